import type { GameDayParts } from './service.ts';
import { mayRunAttacks } from '../attacks/access.ts';
import { StartUnfinishedError } from '../attacks/start.ts';
import type { AttackRequest } from '../attacks/request.ts';
import type { GameDayRecord } from './gamedayRecord.ts';

import {
  changeStep,
  dayOf,
  iso,
  requireMayRunStep,
  runnerOf,
  notStarted,
  shown,
  type StepActionOutcome,
  stepEvent,
  StepNotStartedError,
  tellStep,
  transition,
} from './planStepState.ts';
import {
  activeStep,
  findStep,
  nextStep,
  type GameDayPlan,
  type HypothesisAnswer,
  type PlanStep,
  positionOf,
  type Runner,
  type StepRef,
} from './plan.ts';

/**
 * Running a game day's plan: a step counts down in the channel, anyone there may delay, skip or
 * veto it, and at zero it starts with the session of whoever pressed Run, through the very start
 * a person's command goes through (freeze, guards, a second person); once its attack ended, the
 * channel answers whether its hypothesis held.
 */

type Day = GameDayRecord & { id: string };

/** How long Delay puts a countdown back. */
export const delayMs = 5 * 60_000;

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
  deps: GameDayParts,
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
      runBy: runnerOf(runBy),
      channel: day.channel,
    };
    return { kind: 'counting down', step, position: positionOf(plan, step.id), total: plan.steps.length };
  });
  if (result.kind !== 'counting down') return result;
  const record = { ...day, plan };
  const posted = await deps.gameDays.board.postCountdown(record, result.step);
  const { plan: after } = await deps.gameDays.plans.change(owner, (plan) => {
    const step = plan.steps.find((s) => s.id === stepId);
    if (step?.countdown) step.countdown.ts = posted.ts;
  });
  await tellStep(
    deps,
    day.channel,
    stepEvent(after, result.step, 'counting down', now, {
      by: runBy.userId,
      startsAt: result.step.countdown!.startsAt,
    }),
  );
  return result;
}

/** Delay: the countdown ends five minutes later. */
export async function delayStep(deps: GameDayParts, ref: StepRef, by: string): Promise<StepActionOutcome> {
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
export const skipStep = (deps: GameDayParts, ref: StepRef, by: string): Promise<StepActionOutcome> =>
  stopStep(deps, ref, by, 'skip');

/**
 * Veto: the step will not run, who and why are said, and the automatic mode pauses. A request
 * for approval it waited on closes.
 */
export const vetoStep = (deps: GameDayParts, ref: StepRef, by: string, reason: string): Promise<StepActionOutcome> =>
  stopStep(deps, ref, by, 'veto', reason);

async function stopStep(
  deps: GameDayParts,
  ref: StepRef,
  by: string,
  how: 'skip' | 'veto',
  reason?: string,
): Promise<StepActionOutcome> {
  const now = deps.clock.now();
  let waited = false;
  const { outcome, plan } = await changeStep(deps, ref, how, (step, plan) => {
    waited = step.state === 'awaiting approval';
    if (how === 'skip') step.skipped = { by, at: iso(now) };
    else {
      step.vetoed = { by, reason: reason ?? '', at: iso(now) };
      if (plan.auto && !plan.paused)
        plan.paused = { why: 'veto', detail: String(positionOf(plan, step.id)), at: iso(now) };
    }
  });
  if (outcome.kind !== 'done') return outcome;
  const what = how === 'skip' ? 'skipped' : 'vetoed';
  if (waited) await deps.guardrails.closeStepApproval(ref, { how: what, by });
  await shown(
    deps,
    ref,
    plan,
    outcome.step,
    stepEvent(plan, outcome.step, what, now, { by, ...(how === 'veto' ? { reason } : {}) }),
  );
  return outcome;
}

/**
 * Start now: the countdown ends at once, and the step starts with the session of whoever pressed
 * it, who must be allowed to run it (it is their start now, with no window left to veto it).
 */
export async function startStepNow(deps: GameDayParts, ref: StepRef, by: Runner): Promise<StepActionOutcome> {
  const found = findStep(await deps.gameDays.plans.get({ gameDayId: ref.gameDayId }), { id: ref.stepId });
  if (!found) return { kind: 'gone' };
  await requireMayRunStep(deps, by, found);
  const now = deps.clock.now();
  const { outcome } = await changeStep(deps, ref, ['counting down'], (step) => {
    step.countdown!.startsAt = iso(now);
    step.countdown!.runBy = runnerOf(by);
  });
  if (outcome.kind === 'done') await startStep(deps, ref);
  return outcome;
}

/**
 * A step whose countdown has ended starts, once whatever replica or click gets there first:
 * with the session of who pressed Run, through the start any person's command goes through.
 * A start that needs a second person asks for one; a start refused (a freeze, an unhealthy
 * guard, the platform) leaves the step not started, says why, and pauses the automatic mode.
 * In a rehearsal the same checks run and nothing is created or asked: the step ends rehearsed.
 */
export async function startStep(deps: GameDayParts, ref: StepRef): Promise<void> {
  const now = deps.clock.now();
  const { outcome } = await changeStep(deps, ref, 'start', (step) =>
    Date.parse(step.countdown!.startsAt) > now ? 'not yet' : undefined,
  );
  if (outcome.kind !== 'done') return;
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
    const ask = { actor, login, team, request, channel: ref.channel };
    // A rehearsal's step meets the same checks and is never created: what it would have done is told.
    if (await deps.gameDays.rehearsing(ref.channel))
      return await deps.gameDays.stepRehearsed(ref, await deps.rehearseStep(ask));
    const result = await deps.startStep(ask, {
      kind: 'plan step',
      step: ref,
      // Waiting before the request is posted: an Approve clicked the moment it appears finds it so.
      awaitApproval: async () => {
        ({ plan: waiting } = await changeStep(deps, ref, ['running'], (s) => {
          if (!s.guid) transition(s, 'await approval');
        }));
      },
    });
    if (result.kind === 'approval requested' && waiting) {
      const at = waiting.steps.find((s) => s.id === step.id) ?? step;
      await shown(deps, ref, waiting, at, stepEvent(waiting, at, 'awaiting approval', now, { by: runBy.userId }));
    }
  } catch (error) {
    // Created, but its card could not be posted yet: the attack runs, and is the step's.
    if (error instanceof StartUnfinishedError) return deps.gameDays.stepStarted(ref, error.guid);
    deps.logger.info({ err: error, step: step.id, gameDay: ref.gameDayId }, 'a game-day step did not start');
    await notStarted(deps, ref, deps.gameDays.board.describeError(error, step.teamName), now);
  }
}

/**
 * The channel's answer to whether a step's hypothesis held, once. Not held pauses the automatic
 * mode, and a step it had already counted down is put back in the plan.
 */
export async function answerStep(
  deps: GameDayParts,
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
  if (record) {
    deps.gameDays.redrawQuestion({ ...record, plan }, outcome.step);
    deps.gameDays.redrawCountdown({ ...record, plan }, outcome.step);
  }
  // Answered after the game day ended: its summary shows the answer too.
  if (record?.endedAt) await deps.gameDays.redrawSummary({ ...record, plan });
  const answered = { by, answer, ...(observation ? { observation } : {}) };
  await tellStep(deps, ref.channel, stepEvent(plan, outcome.step, 'answered', now, answered));
  if (cancelled) {
    const day = await dayOf(deps, ref);
    if (day) {
      deps.gameDays.redrawCountdown({ ...day, plan }, cancelled);
      await tellStep(deps, ref.channel, stepEvent(plan, cancelled, 'cancelled', now, { reason: 'not held' }));
    }
  }
  return outcome;
}

/** The game day of a step, running or ended. */
async function dayOrEnded(deps: GameDayParts, ref: StepRef): Promise<Day | undefined> {
  const running = await dayOf(deps, ref);
  if (running) return running;
  const { record } = await deps.gameDays.ended(ref.channel, ref.gameDayId);
  return record;
}
