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
}

export interface StageAt {
  stage: string;
  lifecycle: Lifecycle;
  /** When the current stage began (used as updated_at). */
  since: number;
  /** When the attack finished; null while it is active or halting. */
  endTime: number | null;
}

export function stageAt(timeline: Timeline, now: number, stageMs: number): StageAt {
  const { haltedAt } = timeline;
  if (haltedAt !== undefined && now >= haltedAt) {
    const haltedEnd = haltedAt + 2 * stageMs;
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

export function isActive(timeline: Timeline, now: number, stageMs: number): boolean {
  return stageAt(timeline, now, stageMs).lifecycle === 'Active';
}

export function isFinished(timeline: Timeline, now: number, stageMs: number): boolean {
  const { lifecycle } = stageAt(timeline, now, stageMs);
  return lifecycle === 'Complete' || lifecycle === 'Error';
}

/**
 * Halts an attack that is still active. Halting is idempotent: an attack that is already
 * halting or has finished is left as it is. Returns whether this call halted it.
 */
export function haltTimeline(timeline: Timeline, now: number, stageMs: number): boolean {
  if (!isActive(timeline, now, stageMs)) return false;
  timeline.haltedAt = now;
  return true;
}
