import type { GameDayParts } from './service.ts';
import { NotLoggedInError } from '../errors.ts';
import type { AttackRequest } from '../attacks/request.ts';
import { guardKey, type GuardSpec } from '../guardrails/guards.ts';
import type { Person } from '../store/sessions.ts';
import type { GameDayRecord, GameDayStepEvent } from './gamedayRecord.ts';
import { sameAttackWords, savedWords } from '../attacks/saved.ts';
import {
  iso,
  notStarted,
  requireMayRunStep,
  runnerOf,
  StepNotAllowedError,
  StepNotStartedError,
  stepEvent,
  tellStep,
} from './planStepState.ts';
import { countDown, startStep } from './planSteps.ts';
import {
  activeStep,
  findStep,
  nextStep,
  answerWaitEnds,
  awaitedAnswer,
  type GameDayPlan,
  newStep,
  type PlanOwner,
  type PlanStep,
  positionOf,
  type Runner,
} from './plan.ts';

/**
 * A game day's plan changes before a step runs: adding, moving and removing steps, and the
 * automatic mode, with the background pass that starts the steps counted down and runs the
 * automatic mode's next. Every way in (command, button, form, countdown, automatic mode) goes
 * through planStepState.ts's `requireMayRunStep`.
 */

type Day = GameDayRecord & { id: string };

/** A step's attack with the step's own guards among the attack's: they must be healthy at the start, and halt it. */
export function stepRequest(request: AttackRequest, guards: readonly GuardSpec[]): AttackRequest {
  const all = [...(request.guards ?? [])];
  for (const spec of guards) if (!all.some((g) => guardKey(g) === guardKey(spec))) all.push(spec);
  return { ...request, team: undefined, yes: false, ...(all.length ? { guards: all } : {}) };
}

/**
 * Adds a step at the end of the plan (drafted in a channel, or of its running game day), when
 * `by` may run it; gives its position.
 */
export async function addStep(
  deps: GameDayParts,
  owner: PlanOwner,
  fields: Pick<PlanStep, 'source' | 'request' | 'teamId' | 'teamName' | 'hypothesis' | 'addedBy' | 'guards'>,
  by: Person,
): Promise<number> {
  await requireMayRunStep(deps, by, fields);
  const step = newStep(fields, deps.clock.now());
  const { plan } = await deps.gameDays.plans.change(owner, (plan) => {
    plan.steps.push(step);
  });
  await told(deps, owner, plan, step, 'added', { by: fields.addedBy });
  await redrawCountdownFor(deps, owner, plan);
  return plan.steps.length;
}

/** The outcome of a change to a plan's order: `in place` when the step already stands where it would go. */
export type MoveOutcome = 'moved' | 'in place' | 'no such step' | 'not planned';

/**
 * Moves a planned step (at a position, or by id) to another position (1 is first), when `by` may
 * run it; steps already run keep their place, so a step moves only among what is still to come.
 */
export async function moveStep(
  deps: GameDayParts,
  owner: PlanOwner,
  from: { position: number } | { id: string },
  to: number,
  by: Person,
): Promise<MoveOutcome> {
  const found = findStep(await deps.gameDays.plans.get(owner), from);
  if (!found) return 'no such step';
  await requireMayRunStep(deps, by, found);
  const { plan, result } = await deps.gameDays.plans.change(owner, (plan): MoveOutcome => {
    const index = plan.steps.findIndex((s) => s.id === found.id);
    const step = plan.steps[index];
    if (!step) return 'no such step';
    if (step.state !== 'planned') return 'not planned';
    const firstPlanned = plan.steps.findIndex((s) => s.state === 'planned');
    const target = Math.min(Math.max(to - 1, firstPlanned), plan.steps.length - 1);
    if (target === index) return 'in place';
    plan.steps.splice(index, 1);
    plan.steps.splice(target, 0, step);
    return 'moved';
  });
  if (result === 'moved') await redrawFor(deps, owner, plan);
  return result;
}

/** Removes a step not yet run, when `by` may run it. */
export async function removeStep(
  deps: GameDayParts,
  owner: PlanOwner,
  stepId: string,
  by: Person,
): Promise<MoveOutcome> {
  const found = findStep(await deps.gameDays.plans.get(owner), { id: stepId });
  if (!found) return 'no such step';
  await requireMayRunStep(deps, by, found);
  const { plan, result } = await deps.gameDays.plans.change(owner, (plan): MoveOutcome => {
    const index = plan.steps.findIndex((s) => s.id === stepId);
    if (index < 0) return 'no such step';
    if (plan.steps[index]!.state !== 'planned') return 'not planned';
    plan.steps.splice(index, 1);
    return 'moved';
  });
  if (result === 'moved') {
    await redrawFor(deps, owner, plan);
    await redrawCountdownFor(deps, owner, plan);
  }
  return result;
}

/**
 * Turns the automatic mode on (steps then run with `by`'s session, so `by` must be allowed to run
 * each step still to come; each is checked again when it counts down) or off (anyone: it only stops).
 * On, it waits after each attack for the answer on its hypothesis, or `waitMs` at most when given.
 */
export async function setAutomatic(
  deps: GameDayParts,
  day: Day,
  by: Runner,
  on: boolean,
  waitMs?: number,
): Promise<GameDayPlan> {
  if (on)
    for (const step of (await deps.gameDays.plans.get({ gameDayId: day.id })).steps)
      if (step.state === 'planned') await requireMayRunStep(deps, by, step);
  const now = deps.clock.now();
  const { plan } = await deps.gameDays.plans.change({ gameDayId: day.id }, (plan) => {
    plan.auto = on ? { by: runnerOf(by), since: iso(now), ...(waitMs === undefined ? {} : { waitMs }) } : undefined;
    plan.paused = undefined;
  });
  await tellStep(deps, day.channel, { what: on ? 'automatic on' : 'automatic off', by: by.userId, at: iso(now) });
  return plan;
}

/** The running game day a plan belongs to: none for a draft, or once it has ended. */
async function runningOf(deps: GameDayParts, owner: PlanOwner): Promise<{ id: string; channel: string } | undefined> {
  if (!('gameDayId' in owner)) return undefined;
  return (await deps.gameDays.allRunning()).find((d) => d.id === owner.gameDayId);
}

/** Redraws the game-day card after a change to a running game day's plan. */
async function redrawFor(deps: GameDayParts, owner: PlanOwner, plan: GameDayPlan): Promise<void> {
  const base = await runningOf(deps, owner);
  const day = base && (await deps.gameDays.running(base.channel));
  if (day) await deps.gameDays.showCard({ ...day, plan });
}

/** The countdown card of the step under way says its place in the plan: redrawn when the plan grows or shrinks. */
async function redrawCountdownFor(deps: GameDayParts, owner: PlanOwner, plan: GameDayPlan): Promise<void> {
  const active = activeStep(plan);
  const base = active?.countdown?.ts ? await runningOf(deps, owner) : undefined;
  const day = base && (await deps.gameDays.running(base.channel));
  if (day && active) deps.gameDays.redrawCountdown({ ...day, plan }, active);
}

/** A change to a running game day's plan, told in its timeline. */
async function told(
  deps: GameDayParts,
  owner: PlanOwner,
  plan: GameDayPlan,
  step: PlanStep,
  what: GameDayStepEvent['what'],
  extra: Partial<GameDayStepEvent>,
): Promise<void> {
  const base = await runningOf(deps, owner);
  if (base) await tellStep(deps, base.channel, stepEvent(plan, step, what, deps.clock.now(), extra));
}

/** A step still starting this long after its countdown ended was left by a stopped bot. */
const staleStartMs = 10 * 60_000;

/**
 * The background pass over every running game day's plan (the service's runPlans): countdowns that have reached zero
 * start, and the automatic mode counts the next step down when the previous attack has ended,
 * its hypothesis is answered (or the wait set for it has passed) and its guards read healthy (or
 * pauses, saying why).
 */
export async function runPlans(deps: GameDayParts): Promise<void> {
  const now = deps.clock.now();
  for (const base of await deps.gameDays.allRunning()) {
    const plan = await deps.gameDays.plans.get({ gameDayId: base.id });
    for (const step of plan.steps) {
      const ref = { channel: base.channel, gameDayId: base.id, stepId: step.id };
      if (step.state === 'counting down' && Date.parse(step.countdown!.startsAt) <= now) await startStep(deps, ref);
      // A bot stopped between the countdown and the create left the step starting: a start
      // takes seconds, and one whose create was sent is finished by recover-starts, which links it.
      if (step.state === 'running' && !step.guid && Date.parse(step.countdown!.startsAt) + staleStartMs <= now)
        await notStarted(
          deps,
          ref,
          deps.gameDays.board.describeError(new StepNotStartedError('interrupted', ''), step.teamName),
          now,
        );
    }
    if (plan.auto && !plan.paused) await runAutomatically(deps, base.channel, base.id);
  }
}

async function runAutomatically(deps: GameDayParts, channel: string, gameDayId: string): Promise<void> {
  const day = await deps.gameDays.running(channel);
  const plan = day?.plan;
  if (!day || day.id !== gameDayId || !plan?.auto || plan.paused || activeStep(plan)) return;
  const next = nextStep(plan);
  if (!next) return;
  // The channel answers whether the last hypothesis held first, or the facilitator's wait runs out.
  const awaited = awaitedAnswer(plan);
  if (awaited && !((answerWaitEnds(plan, awaited) ?? Number.POSITIVE_INFINITY) <= deps.clock.now())) return;
  const before = plan.steps.slice(0, positionOf(plan, next.id) - 1).filter((s) => s.state === 'ended');
  const previous = before.at(-1);
  const pause = async (
    why: NonNullable<GameDayPlan['paused']>['why'],
    detail: string,
    change?: NonNullable<GameDayPlan['paused']>['change'],
  ) => {
    await deps.gameDays.plans.change({ gameDayId }, (p) => {
      p.paused ??= { why, detail, at: iso(deps.clock.now()), ...(change ? { change } : {}) };
    });
    await tellStep(deps, channel, { what: 'paused', reason: why, title: detail, at: iso(deps.clock.now()) });
  };
  // The previous attack's guards and the game day's must read healthy now.
  const guards = [...(previous?.request.guards ?? []), ...(await deps.guards.forGameDay(gameDayId)).map((g) => g.spec)];
  for (const spec of guards) {
    const reading = await deps.guards.reading(spec);
    if (reading?.health === 'unhealthy') return pause('guard', reading.name ?? guardKey(spec));
  }
  if (next.source.kind === 'saved') {
    // The step runs the saved attack as planned: one deleted or saved anew since (another version,
    // or other words for a step planned before versions) is for a person to look at.
    const { name, version } = next.source;
    const saved = await deps.savedAttacks.get(next.teamId, name);
    const changed =
      !saved ||
      (version !== undefined && saved.version !== version) ||
      !sameAttackWords(saved.words, savedWords(next.request));
    if (changed)
      return pause('changed', name, saved && { by: saved.changedBy.userId, at: saved.changedAt, words: saved.words });
  }
  try {
    await countDown(deps, day, plan.auto.by, next.id);
  } catch (error) {
    // Its owner may no longer run the next step: a person runs it, or turns the mode on again.
    if (!(error instanceof StepNotAllowedError) && !(error instanceof NotLoggedInError)) throw error;
    return pause('not allowed', String(positionOf(plan, next.id)));
  }
}
