/** The table of a plan step's states: every transition it holds, and every one it refuses. */
import { describe, expect, it } from 'vitest';
import type { StepState } from '../../src/gamedays/plan.ts';
import {
  mayTake,
  type StepTransition,
  StepTransitionRefused,
  stepTransitions,
  transition,
} from '../../src/gamedays/planStepState.ts';

const states: StepState[] = [
  'planned',
  'counting down',
  'awaiting approval',
  'running',
  'ended',
  'vetoed',
  'skipped',
  'not started',
];

describe("a plan step's transitions", () => {
  it('are the life the product describes, and nothing else', () => {
    const edges = Object.entries(stepTransitions).flatMap(([name, { from, to }]) =>
      from.map((state) => `${state} -${name}-> ${to}`),
    );
    expect(edges.sort()).toEqual(
      [
        'planned -count down-> counting down',
        'counting down -start-> running',
        'counting down -skip-> skipped',
        'counting down -veto-> vetoed',
        'counting down -stop at end-> skipped',
        'counting down -cancel-> planned',
        'running -await approval-> awaiting approval',
        'running -not start-> not started',
        'running -end-> ended',
        'awaiting approval -approve-> running',
        'awaiting approval -not start-> not started',
        'awaiting approval -skip-> skipped',
        'awaiting approval -veto-> vetoed',
      ].sort(),
    );
  });

  it('leave nothing from a step that is over', () => {
    for (const over of ['ended', 'vetoed', 'skipped', 'not started'] as const)
      for (const name of Object.keys(stepTransitions) as StepTransition[])
        expect(mayTake({ state: over }, name), `${over} ${name}`).toBe(false);
  });

  it('move a step only along the table, and refuse the rest with the state left as it was', () => {
    for (const state of states)
      for (const [name, { from, to }] of Object.entries(stepTransitions) as [
        StepTransition,
        { from: readonly StepState[]; to: StepState },
      ][]) {
        const step = { state };
        if (from.includes(state)) {
          transition(step, name);
          expect(step.state).toBe(to);
        } else {
          expect(() => transition(step, name)).toThrow(StepTransitionRefused);
          expect(step.state).toBe(state);
        }
      }
  });

  it('never start a step twice: only a countdown or an approval leads to running', () => {
    const intoRunning = Object.values(stepTransitions).filter((t) => t.to === 'running');
    expect(intoRunning.flatMap((t) => t.from).sort()).toEqual(['awaiting approval', 'counting down']);
  });
});
