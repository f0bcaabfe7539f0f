import { randomUUID } from 'node:crypto';
import type { Who } from '../attacks/events.ts';
import type { TargetSet } from '../attacks/blastRadius.ts';
import type { AttackRequest } from '../attacks/request.ts';
import type { ApprovalRule } from '../guardrails/approvalRequests.ts';
import type { GuardSpec } from '../guardrails/guards.ts';
import type { KeyValueStore } from '../store/keyValue.ts';
import { keys } from '../store/keys.ts';
import { withLock } from '../store/leases.ts';
import type { Person } from '../store/sessions.ts';

/**
 * A game day's plan: ordered steps, each an attack (a saved one, or one typed for the step) with
 * a hypothesis, run one at a time behind a countdown anyone in the channel can veto.
 */

/** Where a step is in its life; the card shows it. */
export type StepState =
  | 'planned'
  | 'counting down'
  /** Its start needs a second person, who has been asked. */
  | 'awaiting approval'
  | 'running'
  | 'ended'
  | 'vetoed'
  | 'skipped'
  /** At zero its start was refused (a freeze, a guard, the platform): nothing ran. */
  | 'not started';

/** What the channel answered when a step's attack ended. */
export type HypothesisAnswer = 'held' | 'not held' | 'unsure';

/** Who ran a step: their session starts its attack at zero. */
export type Runner = Who & Person;

export interface PlanStep {
  id: string;
  /**
   * A saved attack of its team by name, with the version it was planned with (missing on a step
   * planned before versions were counted), or an attack typed for the step.
   */
  source: { kind: 'saved'; name: string; version?: number | undefined } | { kind: 'typed' };
  /**
   * The attack as it was checked when the step was planned (or when Run was last pressed), with
   * the step's guards among its own: they must be healthy for it to start, and halt it when they fire.
   */
  request: AttackRequest;
  teamId: string;
  teamName: string;
  hypothesis: string;
  /** The step's own guards, kept apart so a saved attack read again keeps them. */
  guards?: GuardSpec[] | undefined;
  addedBy: string;
  addedAt: string;
  state: StepState;
  /** While counting down, and after: when it starts (or started), who pressed Run, and where the countdown card is. */
  countdown?: { startsAt: string; runBy: Runner; channel: string; ts?: string | undefined } | undefined;
  /** Its attack, once started. */
  guid?: string | undefined;
  vetoed?: { by: string; reason: string; at: string } | undefined;
  /** Who skipped it; nobody when its game day ended during its countdown. */
  skipped?: { by: string | undefined; at: string } | undefined;
  notStarted?: { reason: string; at: string } | undefined;
  /** When its attack ended, and how, as its card showed it; a rehearsed step ends `Rehearsed`. */
  ended?: { at: string; stage: string; lifecycle: string } | undefined;
  /** In a rehearsal: what its start would have done at zero, where nothing was created. */
  rehearsed?: StepRehearsal | undefined;
  /** The Held / Not held / Unsure question, once posted. */
  questionTs?: string | undefined;
  answer?: { answer: HypothesisAnswer; by: string; at: string; observation?: string | undefined } | undefined;
}

/**
 * What a rehearsed step's start would have done, as the start policy found it at zero: the clients
 * its target matched (none for a service or Kubernetes target, which the platform resolves only at
 * a create) and the rule that would have asked a second person, whom nobody asked.
 */
export interface StepRehearsal {
  targets?: TargetSet | undefined;
  rule?: ApprovalRule | undefined;
}

/** The stage a rehearsed step ends in: nothing ran, so no platform stage is its. */
export const rehearsedStage = 'Rehearsed';

/** Why the automatic mode stopped running steps by itself. */
export interface PlanPause {
  why: 'guard' | 'veto' | 'not held' | 'not started' | 'changed' | 'not allowed';
  /** What the pause is about in a few words (the guard's name, the step's position). */
  detail: string;
  /** For a saved attack changed since its step was planned: who changed it, when, and what it now runs. */
  change?: { by: string; at: string; words: string[] } | undefined;
  at: string;
}

export interface GameDayPlan {
  steps: PlanStep[];
  /**
   * Automatic mode: on, by whom (their session runs the steps it starts), until it pauses; after a
   * step's attack ends it waits for the answer on its hypothesis, or `waitMs` at most when set.
   */
  auto?: { by: Runner; since: string; waitMs?: number | undefined } | undefined;
  paused?: PlanPause | undefined;
}

/** A plan is kept for a running (or ended) game day, or drafted in a channel before one starts there. */
export type PlanOwner = { gameDayId: string } | { channel: string };

/** A game day's plan is kept under its id; a draft under its channel. */
const planName = (owner: PlanOwner) => ('gameDayId' in owner ? owner.gameDayId : `draft:${owner.channel}`);

/** A step a button or the timeline names: the game day (its channel) and the step. */
export interface StepRef {
  channel: string;
  gameDayId: string;
  stepId: string;
}

/** Steps with something under way: only one of these at a time. */
export const activeStates: readonly StepState[] = ['counting down', 'awaiting approval', 'running'];

/** The step's position, counted from 1, as people read it. */
export const positionOf = (plan: GameDayPlan, stepId: string) => plan.steps.findIndex((s) => s.id === stepId) + 1;

/**
 * The step whose hypothesis the automatic mode waits on before the next countdown: the last step
 * before the next planned one whose attack ended, while nobody has answered its question.
 */
export function awaitedAnswer(plan: GameDayPlan): PlanStep | undefined {
  const next = plan.steps.findIndex((s) => s.state === 'planned');
  const previous = plan.steps.slice(0, next < 0 ? plan.steps.length : next).findLast((s) => s.state === 'ended');
  return previous && !previous.answer ? previous : undefined;
}

/** When the automatic mode stops waiting for the answer on `step`: never without a wait set. */
export function answerWaitEnds(plan: GameDayPlan, step: PlanStep): number | undefined {
  const wait = plan.auto?.waitMs;
  return wait === undefined || !step.ended ? undefined : Date.parse(step.ended.at) + wait;
}

/** A plan changed by one writer at a time (replicas included), under a short lock. */
export class Plans {
  readonly #store: KeyValueStore;

  constructor(store: KeyValueStore) {
    this.#store = store;
  }

  async get(owner: PlanOwner): Promise<GameDayPlan> {
    const key = keys.gamedayPlan.key(planName(owner));
    return (await this.#store.get<GameDayPlan>(key)) ?? { steps: [] };
  }

  /**
   * Changes the plan with `change`, which gives back what the caller wants to know (and may leave
   * the plan as it was); waits a little for another writer, then fails rather than lose a change.
   */
  async change<T>(owner: PlanOwner, change: (plan: GameDayPlan) => T): Promise<{ plan: GameDayPlan; result: T }> {
    const key = keys.gamedayPlan.key(planName(owner));
    const held = await withLock(
      this.#store,
      keys.gamedayPlanLock.key(planName(owner)),
      keys.gamedayPlanLock.ttlMs,
      async () => {
        const plan = await this.get(owner);
        const result = change(plan);
        await this.#store.set(key, plan, keys.gamedayPlan.ttlMs);
        return { plan, result };
      },
      5_000,
    );
    if (held === 'busy') throw new Error('The plan is being changed by someone else; try again.');
    return held.done;
  }

  /**
   * The plan drafted in a channel becomes the plan of the game day that has just started there. A
   * rehearsal takes a copy, with steps of its own, and leaves the draft for the real game day.
   */
  async adoptDraft(channel: string, gameDayId: string, options: { rehearsal?: boolean } = {}): Promise<void> {
    const draft = await this.#store.get<GameDayPlan>(keys.gamedayPlan.key(planName({ channel })));
    if (!draft) return;
    const plan = options.rehearsal
      ? { ...draft, steps: draft.steps.map((step) => ({ ...step, id: randomUUID() })) }
      : draft;
    await this.#store.set(keys.gamedayPlan.key(gameDayId), plan, keys.gamedayPlan.ttlMs);
    if (!options.rehearsal) await this.#store.delete(keys.gamedayPlan.key(planName({ channel })));
  }

  /** Remembers which step an attack runs, for when it ends. */
  async linkAttack(guid: string, ref: StepRef): Promise<void> {
    await this.#store.set(keys.gamedayStepAttack.key(guid), ref, keys.gamedayStepAttack.ttlMs);
  }

  /** The step an attack runs, if it runs one. */
  stepOfAttack(guid: string): Promise<StepRef | undefined> {
    return this.#store.get<StepRef>(keys.gamedayStepAttack.key(guid));
  }

  /** True for the one answer a step's question takes. */
  claimAnswer(stepId: string): Promise<boolean> {
    return this.#store.claim(keys.gamedayStepAnswer.key(stepId), keys.gamedayStepAnswer.ttlMs);
  }

  /** True for the one caller that asks the step's question. */
  claimQuestion(stepId: string): Promise<boolean> {
    return this.#store.claim(keys.gamedayStepQuestion.key(stepId), keys.gamedayStepQuestion.ttlMs);
  }
}

/** A new step, planned. */
export function newStep(
  fields: Pick<PlanStep, 'source' | 'request' | 'teamId' | 'teamName' | 'hypothesis' | 'addedBy' | 'guards'>,
  now: number,
): PlanStep {
  return { id: randomUUID(), ...fields, addedAt: new Date(now).toISOString(), state: 'planned' };
}

/** The step at a position counted from 1, or by id. */
export const findStep = (plan: GameDayPlan, at: { position: number } | { id: string }) =>
  'id' in at ? plan.steps.find((s) => s.id === at.id) : plan.steps[at.position - 1];

/** The step Run next step would count down, if any. */
export const nextStep = (plan: GameDayPlan) => plan.steps.find((s) => s.state === 'planned');

/** The step under way (counting down, waiting for a second person, or running), if any. */
export const activeStep = (plan: GameDayPlan) => plan.steps.find((s) => activeStates.includes(s.state));
