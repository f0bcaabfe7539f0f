/**
 * Values as Keyv 5 stored them (before Faultline had its own stores): JSON of `{ value, expires }`
 * where any string that starts with `:` carries one more `:` in front. Redis keeps this layout, so
 * a value written by an older replica reads the same; the SQLite store imports its rows once.
 */
export interface KeyvRecord {
  value: unknown;
  expires?: number | undefined;
}

export function encodeKeyv(record: KeyvRecord): string {
  return JSON.stringify(record, (_key, value: unknown) =>
    typeof value === 'string' && value.startsWith(':') ? `:${value}` : value,
  );
}

export function decodeKeyv(text: string): KeyvRecord {
  return JSON.parse(text, (_key, value: unknown) =>
    typeof value === 'string' && value.startsWith(':') ? value.slice(1) : value,
  ) as KeyvRecord;
}
