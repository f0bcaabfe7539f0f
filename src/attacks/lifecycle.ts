/**
 * An attack's life, as the platform tells it: `Active` while it runs, `Halting` once a halt is
 * under way, then finished, well (`Complete`) or not (`Error`). This is the one place that says
 * whether an attack is live, ending or finished; cards, watches, guards, freezes, lists and
 * halts all ask it.
 *
 * The lifecycle decides, never the stage name. An attack whose lifecycle says it runs is live
 * even when it carries an end time (a halt is idempotent, so treating it as live costs nothing,
 * while treating it as finished would hide its Halt button and let its guards and watches drop
 * it); the end time decides only when the lifecycle is missing or unknown.
 */

/** An attack's state as the platform answers it, or as its card keeps it. */
export type LifecycleState =
  | { stage_lifecycle?: string | undefined; end_time?: string | null | undefined }
  | { lifecycle: string; endTime?: string | undefined };

export type Phase = 'live' | 'halting' | 'finished';

/** Where an attack is in its life: running, being halted, or over. */
export function phaseOf(state: LifecycleState): Phase {
  const [lifecycle, endTime] =
    'lifecycle' in state ? [state.lifecycle, state.endTime] : [state.stage_lifecycle, state.end_time];
  switch (lifecycle) {
    case 'Active':
      return 'live';
    case 'Halting':
      return 'halting';
    case 'Complete':
    case 'Error':
      return 'finished';
    default:
      return endTime ? 'finished' : 'live';
  }
}

const phaseOrder: Record<Phase, number> = { live: 0, halting: 1, finished: 2 };

/**
 * Whether `next` is earlier in an attack's life than `current`: a life only moves forward, so
 * such a state is an older read (a halt's answer that arrived after the poll saw the end).
 */
export const isOlder = (next: LifecycleState, current: LifecycleState): boolean =>
  phaseOrder[phaseOf(next)] < phaseOrder[phaseOf(current)];

/** Over: it will not run again, and nothing needs to follow it any more. */
export const isFinished = (state: LifecycleState): boolean => phaseOf(state) === 'finished';

/** Not over yet, halting included: its card is kept current and its guards keep watching. */
export const isLive = (state: LifecycleState): boolean => phaseOf(state) !== 'finished';

/** Running and not yet being halted: a Halt button has something to do. */
export const canHalt = (state: LifecycleState): boolean => phaseOf(state) === 'live';

/** How an attack whose halt was sent shows until the platform says more: halting. */
export const haltSentState = { stage: 'Halt', stage_lifecycle: 'Halting' } as const;
