/**
 * Field parsers for platform-contract.md's records: an optional field that is null, missing or of
 * an unexpected type becomes undefined (a list becomes empty), so that it degrades a display
 * instead of failing a command.
 */
import { z } from 'zod';

export const optionalText = z.string().optional().catch(undefined);
export const optionalNumber = z.number().optional().catch(undefined);
export const textList = z.array(z.string()).catch([]);
export const textRecord = z.record(z.string(), z.string()).optional().catch(undefined);

/**
 * Tags and labels, which select targets: a value sent as a number or boolean is kept as text and
 * only a value that cannot be text is dropped, so that one odd tag does not hide a host's others.
 */
export const labelRecord = z
  .record(z.string(), z.unknown())
  .catch({})
  .transform((record) =>
    Object.fromEntries(
      Object.entries(record).flatMap(([key, value]) =>
        typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
          ? [[key, String(value)]]
          : [],
      ),
    ),
  );

/** Some endpoints answer JSON with a `text/plain` content type. */
export function parseIfJsonText(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}
