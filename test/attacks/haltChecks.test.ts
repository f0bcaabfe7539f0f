import { describe, expect, it } from 'vitest';
import { haltTimes, seconds, sloWords, stopsOf } from '../../src/attacks/haltChecks.ts';

const sent = '2026-01-01T10:00:00.000Z';
const at = (ms: number) => new Date(Date.parse(sent) + ms).toISOString();

describe('halt receipts', () => {
  it('takes each stopped target at its execution end, else when it was first seen stopped, slowest first', () => {
    const executions = [
      { client_id: 'web-1', stage_lifecycle: 'Complete', end_time: at(4_000) },
      { client_id: 'web-2', stage_lifecycle: 'Complete', end_time: undefined },
      { client_id: 'db-1', stage_lifecycle: 'Complete', end_time: undefined },
      { client_id: 'db-2', stage_lifecycle: 'Halting', end_time: undefined },
    ];
    const stops = stopsOf(executions, [{ target: 'web-2', at: at(5_000) }], at(9_000));
    expect(stops).toEqual([
      { target: 'db-1', at: at(9_000) },
      { target: 'web-2', at: at(5_000) },
      { target: 'web-1', at: at(4_000) },
    ]);
  });

  it('gives the median and the slowest after the halt was sent', () => {
    const stops = [
      { target: 'd', at: at(8_000) },
      { target: 'c', at: at(6_000) },
      { target: 'b', at: at(4_000) },
      { target: 'a', at: at(2_000) },
    ];
    expect(haltTimes(sent, stops)).toEqual({ medianMs: 5_000, slowest: stops[0], slowestMs: 8_000 });
    expect(haltTimes(sent, [])).toBeUndefined();
  });

  it('says durations and the SLO as people read them', () => {
    expect(seconds(6_200)).toBe('6.2 s');
    expect(seconds(65_000)).toBe('1 min 5 s');
    expect(sloWords(60)).toBe('a minute');
    expect(sloWords(120)).toBe('2 minutes');
    expect(sloWords(90)).toBe('90 s');
  });
});
