/** One line of the closing summary: a figure, its value in `unit`, and the target it is read against. */
export interface SummaryRow {
  benchmark: string;
  figure: string;
  /** NaN when the run could not measure it. */
  value: number;
  /** 'ms', 's', 'MiB', '×', '/s', 'calls', '' for a plain count… */
  unit: string;
  /** As people write it ('≤ 1.10×'); absent where the figure has none. */
  target?: string;
  /** Whether `value` meets `target`; absent without a target. */
  met?: boolean;
  /** Shown after the value in the table only: an interval, the figures a ratio is made of. */
  detail?: string;
}

export const formatMs = (ms: number) =>
  Number.isNaN(ms) ? '–' : `${ms < 10 ? ms.toFixed(2) : ms < 100 ? ms.toFixed(1) : Math.round(ms)} ms`;
export const formatBytes = (bytes: number | undefined) =>
  bytes === undefined || !Number.isFinite(bytes)
    ? '–'
    : bytes < 1024
      ? `${bytes} B`
      : bytes < 1024 ** 2
        ? `${(bytes / 1024).toFixed(1)} KiB`
        : `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
export const formatRatio = (ratio: number) =>
  Number.isFinite(ratio) ? `${ratio < 10 ? ratio.toFixed(2) : Math.round(ratio)}×` : '–';

// A figure (a number with at most a unit, or a dash for none) lines up on the right, words on the left.
const isFigure = (cell: string) => /^[-–−+]?\d[\d.,–]*( ?\S+)?$/.test(cell) || cell === '–';

/** Prints a titled table with aligned columns. */
export function printTable(title: string, header: readonly string[], rows: readonly (readonly string[])[]): void {
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (isFigure(cell) ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!)))
      .join('  ')
      .trimEnd();
  console.log(`\n${title}`);
  console.log(line(header));
  console.log(widths.map((width) => '-'.repeat(width)).join('  '));
  for (const row of rows) console.log(line(row));
}
