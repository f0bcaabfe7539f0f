import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shownValue, summaryRecord, writeSummaryJson } from '../../bench/summary.ts';
import type { SummaryRow } from '../../bench/table.ts';

/** Rows as the benchmarks return them, with figures from a run of `bench -- ack`, `throughput` and `memory`. */
const rows: SummaryRow[] = [
  {
    benchmark: 'ack',
    figure: 'p99 slash command, Faultline / bare',
    value: 1.8111,
    unit: '×',
    target: '≤ 1.10×',
    met: false,
    detail: '90%: 1.43×–2.10×',
  },
  { benchmark: 'ack', figure: 'p99 slash command, Faultline', value: 4.2213, unit: 'ms' },
  {
    benchmark: 'ack',
    figure: 'commands and buttons over 3 s or failed, platform hanging',
    value: 0,
    unit: 'requests',
    target: '0',
    met: true,
    detail: 'of 800',
  },
  // The app's process could not read its resident size.
  {
    benchmark: 'ack',
    figure: 'RSS after the load, stopped, Faultline / bare',
    value: Number.NaN,
    unit: '×',
    target: '≤ 1.5×',
    met: false,
  },
  {
    benchmark: 'throughput',
    figure: 'Faultline: commands/s with p99 to reply < 1 s',
    value: 200,
    unit: '/s',
    detail: 'or more: the highest rate tried',
  },
  { benchmark: 'memory', figure: 'heap growth: first poll pass', value: -0.25, unit: 'MiB' },
];

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'faultline-summary-'));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe('the summary as JSON', () => {
  it('writes one record per figure with exactly its benchmark, figure, value, unit, target and met', async () => {
    const file = join(directory, 'summary.json');
    await writeSummaryJson(file, rows);
    const written = JSON.parse(await readFile(file, 'utf8')) as unknown[];
    expect(written).toEqual([
      {
        benchmark: 'ack',
        figure: 'p99 slash command, Faultline / bare',
        value: 1.8111,
        unit: '×',
        target: '≤ 1.10×',
        met: false,
      },
      { benchmark: 'ack', figure: 'p99 slash command, Faultline', value: 4.2213, unit: 'ms', target: '', met: null },
      {
        benchmark: 'ack',
        figure: 'commands and buttons over 3 s or failed, platform hanging',
        value: 0,
        unit: 'requests',
        target: '0',
        met: true,
      },
      {
        benchmark: 'ack',
        figure: 'RSS after the load, stopped, Faultline / bare',
        value: null,
        unit: '×',
        target: '≤ 1.5×',
        met: false,
      },
      {
        benchmark: 'throughput',
        figure: 'Faultline: commands/s with p99 to reply < 1 s',
        value: 200,
        unit: '/s',
        target: '',
        met: null,
      },
      { benchmark: 'memory', figure: 'heap growth: first poll pass', value: -0.25, unit: 'MiB', target: '', met: null },
    ]);
  });

  it('keeps the figure the same from run to run: the run-specific detail stays in the table', () => {
    expect(summaryRecord(rows[0]!).figure).toBe('p99 slash command, Faultline / bare');
    expect(JSON.stringify(summaryRecord(rows[0]!))).not.toContain('1.43');
  });

  it('says nothing was met where a figure has no target, whatever the row says', () => {
    expect(summaryRecord({ benchmark: 'list', figure: 'time', value: 12, unit: 'ms', met: true }).met).toBeNull();
  });
});

describe('a value in the table', () => {
  it.each([
    [1.8111, '×', '1.81×'],
    [4.2213, 'ms', '4.22 ms'],
    [154.4, 'ms', '154 ms'],
    [13.37, 'ms', '13.4 ms'],
    [0, 'requests', '0 requests'],
    [200, '/s', '200/s'],
    [-0.25, 'MiB', '-0.25 MiB'],
    [7, '', '7'],
    [Number.NaN, 'ms', '–'],
  ])('%d %s shows as %s', (value, unit, shown) => {
    expect(shownValue(value, unit)).toBe(shown);
  });
});
