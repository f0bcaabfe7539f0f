/**
 * Attack stages (platform-contract.md, Stages), derived from timestamps and simulated time
 * whenever an attack is read, so that moving the clock moves every attack along.
 */

export type Lifecycle = 'Active' | 'Halting' | 'Complete' | 'Error';

/** Failures the simulator produces; the platform knows more (see the contract). */
export type FailureStage = 'TargetNotFound';

/** What is needed to know an attack's stage at any instant. */
export interface Timeline {
  createdAt: number;
  /** How long the Running stage lasts (the attack's -l/--length). */
  runMs: number;
  /** Set when the attack cannot run: it fails right after Pending. */
  failure?: FailureStage;
  /** Set when a halt arrived while the attack was active. */
  haltedAt?: number;
  /**
   * Targets (by index) that first halt did not reach, as an agent that does not take halts: each
   * runs on as if never halted until a later halt reaches it (the time it did), and keeps the
   * attack halting meanwhile.
   */
  holdouts?: Map<number, number | undefined>;
  /**
   * Targets (by index) whose agent takes longer to stop than the others: their execution reaches
   * UserHalted this many milliseconds later, and keeps the attack halting meanwhile.
   */
  stopDelays?: Map<number, number>;
}

export interface StageAt {
  stage: string;
  lifecycle: Lifecycle;
  /** When the current stage began (used as updated_at). */
  since: number;
  /** When the attack finished; null while it is active or halting. */
  endTime: number | null;
}

/** The stage of a run halted at `haltedAt` (undefined: never halted) that stops `delayMs` late. */
function runStageAt(
  timeline: Timeline,
  haltedAt: number | undefined,
  now: number,
  stageMs: number,
  delayMs = 0,
): StageAt {
  if (haltedAt !== undefined && now >= haltedAt) {
    const haltedEnd = haltedAt + 2 * stageMs + delayMs;
    if (now >= haltedEnd) return { stage: 'UserHalted', lifecycle: 'Complete', since: haltedEnd, endTime: haltedEnd };
    if (now >= haltedAt + stageMs)
      return { stage: 'HaltDistributed', lifecycle: 'Halting', since: haltedAt + stageMs, endTime: null };
    return { stage: 'Halt', lifecycle: 'Halting', since: haltedAt, endTime: null };
  }

  const schedule: Array<[stage: string, durationMs: number]> = timeline.failure
    ? [['Pending', stageMs]]
    : [
        ['Pending', stageMs],
        ['Distributed', stageMs],
        ['Initializing', stageMs],
        ['Running', timeline.runMs],
        ['TearingDown', stageMs],
      ];
  let start = timeline.createdAt;
  for (const [stage, durationMs] of schedule) {
    if (now < start + durationMs) return { stage, lifecycle: 'Active', since: start, endTime: null };
    start += durationMs;
  }
  return timeline.failure
    ? { stage: timeline.failure, lifecycle: 'Error', since: start, endTime: start }
    : { stage: 'Successful', lifecycle: 'Complete', since: start, endTime: start };
}

/**
 * The stage of one target's execution: the attack's, unless the first halt did not reach that
 * target or the target stops late.
 */
export function executionStageAt(timeline: Timeline, index: number, now: number, stageMs: number): StageAt {
  const holdouts = timeline.holdouts;
  const haltedAt = holdouts?.has(index) ? holdouts.get(index) : timeline.haltedAt;
  return runStageAt(timeline, haltedAt, now, stageMs, timeline.stopDelays?.get(index));
}

/** The attack's stage: halted ones stay halting while a target the halt did not reach, or one stopping late, runs. */
export function stageAt(timeline: Timeline, now: number, stageMs: number): StageAt {
  const stage = runStageAt(timeline, timeline.haltedAt, now, stageMs);
  const laggards = new Set([...(timeline.holdouts?.keys() ?? []), ...(timeline.stopDelays?.keys() ?? [])]);
  if (!laggards.size || stage.stage !== 'UserHalted') return stage;
  const rest = [...laggards].map((index) => executionStageAt(timeline, index, now, stageMs));
  if (rest.some((each) => each.endTime === null))
    return { stage: 'HaltDistributed', lifecycle: 'Halting', since: timeline.haltedAt! + stageMs, endTime: null };
  const end = Math.max(stage.endTime!, ...rest.map((each) => each.endTime!));
  return { stage: 'UserHalted', lifecycle: 'Complete', since: end, endTime: end };
}

export function isActive(timeline: Timeline, now: number, stageMs: number): boolean {
  return stageAt(timeline, now, stageMs).lifecycle === 'Active';
}

export function isFinished(timeline: Timeline, now: number, stageMs: number): boolean {
  const { lifecycle } = stageAt(timeline, now, stageMs);
  return lifecycle === 'Complete' || lifecycle === 'Error';
}

/** How the targets (by index) take a halt sent now. */
export interface HaltTakers {
  /** Targets that do not take halts now. */
  deaf?: readonly number[];
  /** Targets that stop this many milliseconds later than the others once a halt reaches them. */
  stopDelays?: ReadonlyMap<number, number>;
}

/**
 * Halts an attack that is still active, except on the targets (by index) that do not take halts
 * now. Halting is otherwise idempotent: an attack that is already halting or has finished is left
 * as it is, but a later halt reaches the targets an earlier one missed once they take halts again.
 * A target's stop delay is the one it has when the halt reaches it. Returns whether this call
 * halted anything.
 */
export function haltTimeline(
  timeline: Timeline,
  now: number,
  stageMs: number,
  { deaf = [], stopDelays = new Map() }: HaltTakers = {},
): boolean {
  const delayOnReach = (index: number) => {
    const delay = stopDelays.get(index);
    if (!delay) return;
    timeline.stopDelays ??= new Map();
    timeline.stopDelays.set(index, delay);
  };
  if (isActive(timeline, now, stageMs)) {
    timeline.haltedAt = now;
    if (deaf.length) timeline.holdouts = new Map(deaf.map((index) => [index, undefined]));
    for (const index of stopDelays.keys()) if (!deaf.includes(index)) delayOnReach(index);
    return true;
  }
  let reached = false;
  for (const [index, haltedAt] of timeline.holdouts ?? []) {
    if (haltedAt !== undefined || deaf.includes(index)) continue;
    if (executionStageAt(timeline, index, now, stageMs).lifecycle !== 'Active') continue;
    timeline.holdouts!.set(index, now);
    delayOnReach(index);
    reached = true;
  }
  return reached;
}
