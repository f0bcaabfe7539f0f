/**
 * Whether an attack is live, halting or finished is decided in one place, and every module that
 * needs to know asks it: cards, watches, the Halt buttons and the client's readers agree.
 */
import { describe, expect, it } from 'vitest';
import { canHalt, isFinished, isLive, phaseOf } from '../../src/attacks/lifecycle.ts';
import { watchCovers, type Watch } from '../../src/attacks/watches.ts';

const endTime = '2026-11-20T18:13:49.593Z';
const watch: Watch = {
  teamId: 'team',
  teamName: 'Platform',
  channel: 'C1',
  by: { workspaceId: 'T1', userId: 'U1', userName: 'u1' },
  since: '2026-11-20T00:00:00.000Z',
  renewedAt: '2026-11-20T00:00:00.000Z',
};

/** The platform's lifecycle decides; the end time only when the lifecycle is missing or unknown. */
const cases = [
  { stage_lifecycle: 'Active', end_time: undefined, phase: 'live' },
  { stage_lifecycle: 'Active', end_time: endTime, phase: 'live' },
  { stage_lifecycle: 'Halting', end_time: undefined, phase: 'halting' },
  { stage_lifecycle: 'Halting', end_time: endTime, phase: 'halting' },
  { stage_lifecycle: 'Complete', end_time: endTime, phase: 'finished' },
  { stage_lifecycle: 'Error', end_time: undefined, phase: 'finished' },
  { stage_lifecycle: undefined, end_time: undefined, phase: 'live' },
  { stage_lifecycle: undefined, end_time: endTime, phase: 'finished' },
  { stage_lifecycle: 'Paused', end_time: endTime, phase: 'finished' },
] as const;

describe('an attack’s lifecycle', () => {
  it.each(cases)('$stage_lifecycle with end time $end_time is $phase for every module', (c) => {
    const live = c.phase !== 'finished';
    const attack = { stage_lifecycle: c.stage_lifecycle, end_time: c.end_time, created_at: endTime };
    const card = { lifecycle: c.stage_lifecycle ?? '', endTime: c.end_time };
    expect([phaseOf(attack), phaseOf(card)]).toEqual([c.phase, c.phase]);
    expect({
      platform: !isFinished(attack),
      card: isLive(card),
      watch: watchCovers(watch, attack),
      haltButton: canHalt(card),
    }).toEqual({ platform: live, card: live, watch: live, haltButton: c.phase === 'live' });
  });
});
