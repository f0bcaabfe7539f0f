/**
 * The closing summary of a bench run: printed as a table, and with `--json FILE` also written as
 * one JSON record per figure, for a machine to compare runs.
 */
import { writeFile } from 'node:fs/promises';
import { printTable, type SummaryRow } from './table.ts';

/**
 * A figure as written to the JSON file: `target` is '' and `met` null where the figure has no
 * target. The table's detail (an interval, say) stays out, so a figure's name is the same in every run.
 */
export interface SummaryRecord {
  benchmark: string;
  figure: string;
  /** null when the run could not measure it (JSON has no NaN). */
  value: number | null;
  unit: string;
  target: string;
  met: boolean | null;
}

export function summaryRecord(row: SummaryRow): SummaryRecord {
  return {
    benchmark: row.benchmark,
    figure: row.figure,
    value: Number.isFinite(row.value) ? row.value : null,
    unit: row.unit,
    target: row.target ?? '',
    met: row.target === undefined ? null : (row.met ?? null),
  };
}

export async function writeSummaryJson(file: string, rows: readonly SummaryRow[]): Promise<void> {
  await writeFile(file, `${JSON.stringify(rows.map(summaryRecord), null, 2)}\n`);
}

/** The value as the table shows it: at most three significant digits, then the unit. */
export function shownValue(value: number, unit: string): string {
  if (!Number.isFinite(value)) return '–';
  const digits = Math.abs(value) >= 100 || Number.isInteger(value) ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  const number = value.toFixed(digits);
  if (unit === '') return number;
  return unit === '×' || unit === '%' || unit.startsWith('/') ? `${number}${unit}` : `${number} ${unit}`;
}

export function printSummary(rows: readonly SummaryRow[]): void {
  printTable(
    'Summary',
    ['benchmark', 'figure', 'value', 'target', 'met'],
    rows.map((row) => [
      row.benchmark,
      row.figure,
      `${shownValue(row.value, row.unit)}${row.detail ? ` (${row.detail})` : ''}`,
      row.target ?? '',
      row.target === undefined || row.met === undefined ? '' : row.met ? 'yes' : 'no',
    ]),
  );
}
