import type { TeamEntry } from '../client/index.ts';
import type { Deps } from '../deps.ts';
import { NotLoggedInError, UserInputError } from '../errors.ts';
import { mayRunAttacks } from '../attacks/access.ts';
import { StartUnfinishedError } from '../attacks/start.ts';
import { startPolicy } from '../attacks/startPolicy.ts';
import type { AttackRequest } from '../attacks/request.ts';
import { sameAttackWords, savedWords } from '../attacks/saved.ts';
import { closeStepApproval } from '../guardrails/approvals.ts';
import { guardKey, type GuardSpec } from '../guardrails/guards.ts';
import type { Login, Person } from '../store/sessions.ts';
import type { GameDayRecord, GameDayStepEvent } from './gamedayRecord.ts';
import {
  changeStep,
  dayOf,
  iso,
  NotYet,
  notStarted,
  shown,
  type StepActionOutcome,
  stepEvent,
  StepNotStartedError,
  transition,
} from './planStepState.ts';
import {
  activeStates,
  type GameDayPlan,
  type HypothesisAnswer,
  newStep,
  type PlanOwner,
  type PlanStep,
  positionOf,
  type Runner,
  type StepRef,
} from './plan.ts';

/**
 * Running a game day's plan: a step counts down in the channel, anyone there may delay, skip or
 * veto it, and at zero it starts with the session of whoever pressed Run, through the very start
 * a person's command goes through (freeze, guards, a second person). The automatic mode counts
 * the next step down once the previous attack has ended with its guards healthy, and pauses on a
 * guard trip, a veto, a start refused or a hypothesis that did not hold.
 */

type Day = GameDayRecord & { id: string };

/** A step still starting this long after its countdown ended was left by a stopped bot. */
const staleStartMs = 10 * 60_000;

/** How long Delay puts a countdown back. */
export const delayMs = 5 * 60_000;

/** A step's attack with the step's own guards among the attack's: they must be healthy at the start, and halt it. */
export function stepRequest(request: AttackRequest, guards: readonly GuardSpec[]): AttackRequest {
  const all = [...(request.guards ?? [])];
  for (const spec of guards) if (!all.some((g) => guardKey(g) === guardKey(spec))) all.push(spec);
  return { ...request, team: undefined, yes: false, ...(all.length ? { guards: all } : {}) };
}

/**
 * A plan change or a start refused: the person's own session lacks EXPERIMENTS_RUN on the step's
 * team (or is not in it at all, as another company's login is not); the views word it.
 */
export class StepNotAllowedError extends UserInputError {
  override name = 'StepNotAllowedError';
  readonly teamName: string;
  /** Whether the person is in the team at all. */
  readonly inTeam: boolean;
  constructor(teamName: string, inTeam: boolean) {
    super(`Your platform role cannot run attacks in team ${teamName}; nothing was changed.`);
    this.teamName = teamName;
    this.inTeam = inTeam;
  }
}

/**
 * The one rule every way into a plan goes through (command, button, form, countdown, automatic
 * mode): adding, moving and removing a step, turning automatic mode on, counting a step down,
 * Start now, and the start at zero need the person's own session with EXPERIMENTS_RUN on the
 * step's team. Gives that login and team; refuses with NotLoggedInError or StepNotAllowedError.
 */
export async function requireMayRunStep(
  deps: Deps,
  who: Person,
  step: Pick<PlanStep, 'teamId' | 'teamName'>,
): Promise<{ login: Login; team: TeamEntry }> {
  const { login, expired } = await deps.sessions.lookup(who);
  if (!login) throw new NotLoggedInError(expired);
  const team = login.session.teams.find((t) => t.identifier === step.teamId);
  if (!team || !mayRunAttacks(team)) throw new StepNotAllowedError(step.teamName, team !== undefined);
  return { login, team };
}

/** The step at a position counted from 1, or by id. */
const findStep = (plan: GameDayPlan, at: { position: number } | { id: string }) =>
  'id' in at ? plan.steps.find((s) => s.id === at.id) : plan.steps[at.position - 1];

/**
 * Adds a step at the end of the plan (drafted in a channel, or of its running game day), when
 * `by` may run it; gives its position. `once` (a form's delivery) is asked after every check, and
 * nothing is added when it says this delivery came before.
 */
export async function addStep(
  deps: Deps,
  owner: PlanOwner,
  fields: Pick<PlanStep, 'source' | 'request' | 'teamId' | 'teamName' | 'hypothesis' | 'addedBy' | 'guards'>,
  by: Person,
  once: () => Promise<boolean> = async () => true,
): Promise<number | undefined> {
  await requireMayRunStep(deps, by, fields);
  if (!(await once())) return undefined;
  const step = newStep(fields, deps.clock.now());
  const { plan } = await deps.gameDays.plans.change(owner, (plan) => {
    plan.steps.push(step);
  });
  await told(deps, owner, plan, step, 'added', { by: fields.addedBy });
  return plan.steps.length;
}

/** The outcome of a change to a plan's order. */
export type MoveOutcome = 'moved' | 'no such step' | 'not planned';

/**
 * Moves a planned step (at a position, or by id) to another position (1 is first), when `by` may
 * run it; steps already run keep their place, so a step moves only among what is still to come.
 */
export async function moveStep(
  deps: Deps,
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
    plan.steps.splice(index, 1);
    plan.steps.splice(target, 0, step);
    return 'moved';
  });
  if (result === 'moved') await redrawFor(deps, owner, plan);
  return result;
}

/** Removes a step not yet run, when `by` may run it. */
export async function removeStep(deps: Deps, owner: PlanOwner, stepId: string, by: Person): Promise<MoveOutcome> {
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
  if (result === 'moved') await redrawFor(deps, owner, plan);
  return result;
}

/** The step Run next step would count down, if any. */
export const nextStep = (plan: GameDayPlan) => plan.steps.find((s) => s.state === 'planned');

/** The step under way (counting down, waiting for a second person, or running), if any. */
export const activeStep = (plan: GameDayPlan) => plan.steps.find((s) => activeStates.includes(s.state));

export type CountdownOutcome =
  | { kind: 'counting down'; step: PlanStep; position: number; total: number }
  | { kind: 'busy'; step: PlanStep; position: number }
  | { kind: 'nothing planned' };

/**
 * Counts down the step `stepId` (the next planned one), to start with `runBy`'s session, when
 * `runBy` may run it. `request` is the step's attack as just checked again, when the caller could
 * (a person pressing Run).
 */
export async function countDown(
  deps: Deps,
  day: Day,
  runBy: Runner,
  stepId: string,
  request?: AttackRequest,
): Promise<CountdownOutcome> {
  const owner = { gameDayId: day.id };
  const planned = findStep(await deps.gameDays.plans.get(owner), { id: stepId });
  if (planned) await requireMayRunStep(deps, runBy, planned);
  const now = deps.clock.now();
  const { plan, result } = await deps.gameDays.plans.change(owner, (plan): CountdownOutcome => {
    const busy = activeStep(plan);
    if (busy) return { kind: 'busy', step: busy, position: positionOf(plan, busy.id) };
    const step = nextStep(plan);
    if (!step || step.id !== stepId) return { kind: 'nothing planned' };
    if (request) step.request = request;
    transition(step, 'count down');
    step.countdown = {
      startsAt: iso(now + deps.config.countdownSeconds * 1000),
      runBy: { workspaceId: runBy.workspaceId, userId: runBy.userId, userName: runBy.userName },
      channel: day.channel,
    };
    return { kind: 'counting down', step, position: positionOf(plan, step.id), total: plan.steps.length };
  });
  if (result.kind !== 'counting down') return result;
  const record = { ...day, plan };
  const posted = await deps.gameDays.postCountdown(record, result.step);
  const { plan: after } = await deps.gameDays.plans.change(owner, (plan) => {
    const step = plan.steps.find((s) => s.id === stepId);
    if (step?.countdown) step.countdown.ts = posted.ts;
  });
  await deps.events.record({
    kind: 'plan step',
    channel: day.channel,
    step: stepEvent(after, result.step, 'counting down', now, {
      by: runBy.userId,
      startsAt: result.step.countdown!.startsAt,
    }),
  });
  return result;
}

/** What a click on a countdown (or on a question) found. */
/** Delay: the countdown ends five minutes later. */
export async function delayStep(deps: Deps, ref: StepRef, by: string): Promise<StepActionOutcome> {
  const now = deps.clock.now();
  const { outcome, plan } = await changeStep(deps, ref, ['counting down'], (step) => {
    step.countdown!.startsAt = iso(Math.max(Date.parse(step.countdown!.startsAt), now) + delayMs);
  });
  if (outcome.kind === 'done')
    await shown(
      deps,
      ref,
      plan,
      outcome.step,
      stepEvent(plan, outcome.step, 'delayed', now, { by, startsAt: outcome.step.countdown!.startsAt }),
    );
  return outcome;
}

/** Skip: the step will not run; the plan goes on with the next one. A request for approval it waited on closes. */
export async function skipStep(deps: Deps, ref: StepRef, by: string): Promise<StepActionOutcome> {
  const now = deps.clock.now();
  let waited = false;
  const { outcome, plan } = await changeStep(deps, ref, 'skip', (step) => {
    waited = step.state === 'awaiting approval';
    step.skipped = { by, at: iso(now) };
  });
  if (outcome.kind !== 'done') return outcome;
  if (waited) await closeStepApproval(deps, ref, { how: 'skipped', by });
  await shown(deps, ref, plan, outcome.step, stepEvent(plan, outcome.step, 'skipped', now, { by }));
  return outcome;
}

/**
 * Veto: the step will not run, who and why are said, and the automatic mode pauses. A request
 * for approval it waited on closes.
 */
export async function vetoStep(deps: Deps, ref: StepRef, by: string, reason: string): Promise<StepActionOutcome> {
  const now = deps.clock.now();
  let waited = false;
  const { outcome, plan } = await changeStep(deps, ref, 'veto', (step, plan) => {
    waited = step.state === 'awaiting approval';
    step.vetoed = { by, reason, at: iso(now) };
    if (plan.auto && !plan.paused)
      plan.paused = { why: 'veto', detail: String(positionOf(plan, step.id)), at: iso(now) };
  });
  if (outcome.kind !== 'done') return outcome;
  if (waited) await closeStepApproval(deps, ref, { how: 'vetoed', by });
  await shown(deps, ref, plan, outcome.step, stepEvent(plan, outcome.step, 'vetoed', now, { by, reason }));
  return outcome;
}

/**
 * Start now: the countdown ends at once, and the step starts with the session of whoever pressed
 * it, who must be allowed to run it (it is their start now, with no window left to veto it).
 */
export async function startStepNow(deps: Deps, ref: StepRef, by: Runner): Promise<StepActionOutcome> {
  const found = findStep(await deps.gameDays.plans.get({ gameDayId: ref.gameDayId }), { id: ref.stepId });
  if (!found) return { kind: 'gone' };
  await requireMayRunStep(deps, by, found);
  const now = deps.clock.now();
  const { outcome } = await changeStep(deps, ref, ['counting down'], (step) => {
    step.countdown!.startsAt = iso(now);
    step.countdown!.runBy = { workspaceId: by.workspaceId, userId: by.userId, userName: by.userName };
  });
  if (outcome.kind === 'done') await startStep(deps, ref);
  return outcome;
}

/**
 * A step whose countdown has ended starts, once whatever replica or click gets there first:
 * with the session of who pressed Run, through the start any person's command goes through.
 * A start that needs a second person asks for one; a start refused (a freeze, an unhealthy
 * guard, the platform) leaves the step not started, says why, and pauses the automatic mode.
 */
export async function startStep(deps: Deps, ref: StepRef): Promise<void> {
  const now = deps.clock.now();
  const { outcome, plan } = await changeStep(deps, ref, 'start', (step) => {
    if (Date.parse(step.countdown!.startsAt) > now) throw new NotYet();
  }).catch((error: unknown) => {
    if (error instanceof NotYet) return { outcome: { kind: 'gone' } as StepActionOutcome, plan: undefined };
    throw error;
  });
  if (outcome.kind !== 'done' || !plan) return;
  const step = outcome.step;
  const runBy = step.countdown!.runBy;
  const actor = { ...runBy, channelId: ref.channel };
  const request = { ...step.request, yes: true };
  let waiting: GameDayPlan | undefined;
  try {
    const login = await deps.sessions.get(runBy);
    if (!login) throw new StepNotStartedError('session', runBy.userId);
    const team = login.session.teams.find((t) => t.identifier === step.teamId);
    if (!team) throw new StepNotStartedError('team', runBy.userId);
    // The runner's session starts it only while it may run attacks in the step's team.
    if (!mayRunAttacks(team)) throw new StepNotStartedError('privilege', runBy.userId);
    const result = await startPolicy(
      deps,
      { actor, login, team, request, channel: ref.channel },
      {
        kind: 'plan step',
        step: ref,
        // Waiting before the request is posted: an Approve clicked the moment it appears finds it so.
        awaitApproval: async () => {
          ({ plan: waiting } = await changeStep(deps, ref, ['running'], (s) => {
            if (!s.guid) transition(s, 'await approval');
          }));
        },
      },
    );
    if (result.kind === 'approval requested' && waiting) {
      const at = waiting.steps.find((s) => s.id === step.id) ?? step;
      await shown(deps, ref, waiting, at, stepEvent(waiting, at, 'awaiting approval', now, { by: runBy.userId }));
    }
  } catch (error) {
    // Created, but its card could not be posted yet: the attack runs, and is the step's.
    if (error instanceof StartUnfinishedError) return deps.gameDays.stepStarted(ref, error.guid);
    deps.logger.info({ err: error, step: step.id, gameDay: ref.gameDayId }, 'a game-day step did not start');
    await notStarted(deps, ref, deps.gameDays.describeError(error, step.teamName), now);
  }
}

/**
 * The channel's answer to whether a step's hypothesis held, once. Not held pauses the automatic
 * mode, and a step it had already counted down is put back in the plan.
 */
export async function answerStep(
  deps: Deps,
  ref: StepRef,
  by: string,
  answer: HypothesisAnswer,
  observation: string | undefined,
): Promise<StepActionOutcome> {
  const now = deps.clock.now();
  const existing = (await deps.gameDays.plans.get({ gameDayId: ref.gameDayId })).steps.find((s) => s.id === ref.stepId);
  if (!existing) return { kind: 'gone' };
  if (existing.answer || !(await deps.gameDays.plans.claimAnswer(ref.stepId)))
    return { kind: 'too late', step: existing, position: 0 };
  let cancelled: PlanStep | undefined;
  const { outcome, plan } = await changeStep(deps, ref, ['ended', 'running'], (step, plan) => {
    step.answer = { answer, by, at: iso(now), ...(observation ? { observation } : {}) };
    if (answer !== 'not held' || !plan.auto) return;
    plan.paused ??= { why: 'not held', detail: String(positionOf(plan, step.id)), at: iso(now) };
    cancelled = plan.steps.find((s) => s.state === 'counting down');
    if (cancelled) {
      transition(cancelled, 'cancel');
      cancelled.countdown = { ...cancelled.countdown!, startsAt: iso(now) };
    }
  });
  if (outcome.kind !== 'done') return outcome;
  const record = await dayOrEnded(deps, ref);
  if (record) deps.gameDays.redrawQuestion({ ...record, plan }, outcome.step);
  // Answered after the game day ended: its summary shows the answer too.
  if (record?.endedAt) await deps.gameDays.redrawSummary({ ...record, plan });
  await deps.events.record({
    kind: 'plan step',
    channel: ref.channel,
    step: stepEvent(plan, outcome.step, 'answered', now, { by, answer, ...(observation ? { observation } : {}) }),
  });
  if (cancelled) {
    const day = await dayOf(deps, ref);
    if (day) {
      deps.gameDays.redrawCountdown({ ...day, plan }, cancelled);
      await deps.events.record({
        kind: 'plan step',
        channel: ref.channel,
        step: stepEvent(plan, cancelled, 'cancelled', now, { reason: 'not held' }),
      });
    }
  }
  return outcome;
}

/** The game day of a step, running or ended. */
async function dayOrEnded(deps: Deps, ref: StepRef): Promise<Day | undefined> {
  const running = await dayOf(deps, ref);
  if (running) return running;
  const { record } = await deps.gameDays.ended(ref.channel, ref.gameDayId);
  return record;
}

/**
 * Turns the automatic mode on (steps then run with `by`'s session, so `by` must be allowed to run
 * each step still to come; each is checked again when it counts down) or off (anyone: it only stops).
 */
export async function setAutomatic(deps: Deps, day: Day, by: Runner, on: boolean): Promise<GameDayPlan> {
  if (on)
    for (const step of (await deps.gameDays.plans.get({ gameDayId: day.id })).steps)
      if (step.state === 'planned') await requireMayRunStep(deps, by, step);
  const now = deps.clock.now();
  const { plan } = await deps.gameDays.plans.change({ gameDayId: day.id }, (plan) => {
    plan.auto = on
      ? { by: { workspaceId: by.workspaceId, userId: by.userId, userName: by.userName }, since: iso(now) }
      : undefined;
    plan.paused = undefined;
  });
  await deps.events.record({
    kind: 'plan step',
    channel: day.channel,
    step: { what: on ? 'automatic on' : 'automatic off', by: by.userId, at: iso(now) },
  });
  return plan;
}

/**
 * The background pass over every running game day's plan: countdowns that have reached zero
 * start, and the automatic mode counts the next step down when the previous attack has ended
 * with its guards healthy (or pauses, saying why).
 */
export async function runPlans(deps: Deps): Promise<void> {
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
          deps.gameDays.describeError(new StepNotStartedError('interrupted', ''), step.teamName),
          now,
        );
    }
    if (plan.auto && !plan.paused) await runAutomatically(deps, base.channel, base.id);
  }
}

async function runAutomatically(deps: Deps, channel: string, gameDayId: string): Promise<void> {
  const day = await deps.gameDays.running(channel);
  const plan = day?.plan;
  if (!day || day.id !== gameDayId || !plan?.auto || plan.paused || activeStep(plan)) return;
  const next = nextStep(plan);
  if (!next) return;
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
    await deps.events.record({
      kind: 'plan step',
      channel: channel,
      step: { what: 'paused', reason: why, title: detail, at: iso(deps.clock.now()) },
    });
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

/** Redraws the game-day card after a change to a running game day's plan. */
async function redrawFor(deps: Deps, owner: PlanOwner, plan: GameDayPlan): Promise<void> {
  if (!('gameDayId' in owner)) return;
  const base = (await deps.gameDays.allRunning()).find((d) => d.id === owner.gameDayId);
  const day = base && (await deps.gameDays.running(base.channel));
  if (day) await deps.gameDays.showCard({ ...day, plan });
}

/** A change to a running game day's plan, told in its timeline. */
async function told(
  deps: Deps,
  owner: PlanOwner,
  plan: GameDayPlan,
  step: PlanStep,
  what: GameDayStepEvent['what'],
  extra: Partial<GameDayStepEvent>,
): Promise<void> {
  if (!('gameDayId' in owner)) return;
  const base = (await deps.gameDays.allRunning()).find((d) => d.id === owner.gameDayId);
  if (base)
    await deps.events.record({
      kind: 'plan step',
      channel: base.channel,
      step: stepEvent(plan, step, what, deps.clock.now(), extra),
    });
}
