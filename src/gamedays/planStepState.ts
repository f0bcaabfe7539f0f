import type { TeamEntry } from '../client/index.ts';
import { mayRunAttacks } from '../attacks/access.ts';
import { NotLoggedInError, UserInputError } from '../errors.ts';
import type { Login, Person } from '../store/sessions.ts';
import type { GameDayParts } from './service.ts';
import type { GameDayStepEvent } from './gamedayRecord.ts';
import type { GameDay } from './gamedayReads.ts';
import {
  type GameDayPlan,
  type PlanPause,
  type PlanStep,
  positionOf,
  type Runner,
  rehearsedStage,
  type StepRef,
  type StepRehearsal,
  type StepState,
} from './plan.ts';

// How a plan step's state changes, and who may run a step, below both the plan's actions
// (planSteps.ts, planChanges.ts) and the approval a step waits on (guardrails/approvals.ts),
// which lets it start or ends it not started.

/**
 * Every way a step's state may change, and from which states: the plan's actions, the approval a
 * step waits on and the game day itself move a step only through `transition`, which refuses the rest.
 */
export const stepTransitions = {
  /** Run (a person's, or the automatic mode's): the next planned step counts down. */
  'count down': { from: ['planned'], to: 'counting down' },
  /** Its countdown reached zero (or Start now): its start is under way. */
  start: { from: ['counting down'], to: 'running' },
  /** Its start needs a second person, who is being asked. */
  'await approval': { from: ['running'], to: 'awaiting approval' },
  /** The second person approved: its start goes on. */
  approve: { from: ['awaiting approval'], to: 'running' },
  /** Its start was refused, or its approval closed without it: nothing ran. */
  'not start': { from: ['running', 'awaiting approval'], to: 'not started' },
  skip: { from: ['counting down', 'awaiting approval'], to: 'skipped' },
  veto: { from: ['counting down', 'awaiting approval'], to: 'vetoed' },
  /** Its game day ended during its countdown: skipped by nobody. */
  'stop at end': { from: ['counting down'], to: 'skipped' },
  /** A hypothesis that did not hold puts back the step the automatic mode counted down. */
  cancel: { from: ['counting down'], to: 'planned' },
  /** Its attack ended. */
  end: { from: ['running'], to: 'ended' },
} as const satisfies Record<string, { from: readonly StepState[]; to: StepState }>;

export type StepTransition = keyof typeof stepTransitions;

/** A change of a step's state outside the table. */
export class StepTransitionRefused extends Error {
  override name = 'StepTransitionRefused';
  constructor(from: StepState, transition: StepTransition) {
    super(`A step ${from} cannot ${transition}`);
  }
}

/** Whether the table lets a step in its state take `transition`. */
export const mayTake = (step: Pick<PlanStep, 'state'>, transition: StepTransition): boolean =>
  (stepTransitions[transition].from as readonly StepState[]).includes(step.state);

/** Moves a step through `transition`; refuses with StepTransitionRefused one its state does not allow. */
export function transition(step: Pick<PlanStep, 'state'>, name: StepTransition): void {
  if (!mayTake(step, name)) throw new StepTransitionRefused(step.state, name);
  step.state = stepTransitions[name].to;
}

export const iso = (ms: number) => new Date(ms).toISOString();

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
  deps: GameDayParts,
  who: Person,
  step: Pick<PlanStep, 'teamId' | 'teamName'>,
): Promise<{ login: Login; team: TeamEntry }> {
  const { login, expired } = await deps.sessions.lookup(who);
  if (!login) throw new NotLoggedInError(expired);
  const team = login.session.teams.find((t) => t.identifier === step.teamId);
  if (!team || !mayRunAttacks(team)) throw new StepNotAllowedError(step.teamName, team !== undefined);
  return { login, team };
}

/** Whoever acts, as the runner a step or the automatic mode keeps: no more of them than that. */
export const runnerOf = (actor: Runner): Runner => ({
  workspaceId: actor.workspaceId,
  userId: actor.userId,
  userName: actor.userName,
});

/** The automatic mode stops running steps by itself, for the first reason only. */
export function pauseAuto(plan: GameDayPlan, why: PlanPause['why'], detail: string, at: string): void {
  if (plan.auto && !plan.paused) plan.paused = { why, detail, at };
}

/**
 * A step's attack was created: only a step still starting takes it. 'late' for one skipped, vetoed,
 * given up on or gone meanwhile (a start a restarted bot finished late): it keeps its state.
 */
export function takeAttack(plan: GameDayPlan, stepId: string, guid: string): PlanStep | 'taken' | 'late' {
  const step = plan.steps.find((s) => s.id === stepId);
  if (step?.guid === guid) return 'taken';
  if (!step || step.guid || step.state !== 'running') return 'late';
  step.guid = guid;
  return step;
}

/** A step's attack ended, as its card shows it: a running step has ended (undefined for any other). */
export function endStep(plan: GameDayPlan, stepId: string, card: { stage: string; lifecycle: string }, at: string) {
  const step = plan.steps.find((s) => s.id === stepId);
  if (!step || step.ended || !mayTake(step, 'end')) return undefined;
  transition(step, 'end');
  step.ended = { at, stage: card.stage, lifecycle: card.lifecycle };
  return step;
}

/** A rehearsal's step passed the start policy at zero, and nothing was created: it has ended, rehearsed. */
export function rehearseStep(plan: GameDayPlan, stepId: string, rehearsal: StepRehearsal, at: string) {
  const step = endStep(plan, stepId, { stage: rehearsedStage, lifecycle: 'Complete' }, at);
  if (step) step.rehearsed = rehearsal;
  return step;
}

/** Its game day ended: each countdown still running stops its step, skipped by nobody, and so does the automatic mode. */
export function stopCountdowns(plan: GameDayPlan, at: string): PlanStep[] {
  const stopped = plan.steps.filter((s) => mayTake(s, 'stop at end'));
  for (const step of stopped) {
    transition(step, 'stop at end');
    step.skipped = { by: undefined, at };
  }
  if (plan.auto) plan.auto = undefined;
  return stopped;
}

/** What the timeline says of a step. */
export function stepEvent(
  plan: GameDayPlan,
  step: PlanStep,
  what: GameDayStepEvent['what'],
  at: number,
  extra: Partial<GameDayStepEvent> = {},
): GameDayStepEvent {
  return {
    what,
    stepId: step.id,
    position: positionOf(plan, step.id),
    title: step.source.kind === 'saved' ? step.source.name : step.request.type,
    hypothesis: step.hypothesis,
    at: iso(at),
    ...extra,
  };
}

export type StepActionOutcome =
  | { kind: 'done'; step: PlanStep; position: number }
  | { kind: 'too late'; step: PlanStep; position: number }
  | { kind: 'gone' };

/** What a step's changes are kept and shown with. */
export type PlanStepParts = Pick<GameDayParts, 'gameDays' | 'events' | 'clock'>;

/** Tells a plan's step event in the channel's game-day timeline. */
export const tellStep = (deps: Pick<GameDayParts, 'events'>, channel: string, step: GameDayStepEvent) =>
  deps.events.record({ kind: 'plan step', channel, step });

/**
 * Changes a step the click names, when it is still in a state the click expects: `allowed`, or
 * those the transition leaves from, which it then takes once `change` has run. A change that says
 * `not yet` leaves the step as it is, gone for the click.
 */
export async function changeStep(
  deps: PlanStepParts,
  ref: StepRef,
  allowed: readonly StepState[] | StepTransition,
  change: (step: PlanStep, plan: GameDayPlan) => 'not yet' | undefined = () => undefined,
): Promise<{ outcome: StepActionOutcome; plan: GameDayPlan }> {
  const { plan, result } = await deps.gameDays.plans.change({ gameDayId: ref.gameDayId }, (plan): StepActionOutcome => {
    const step = plan.steps.find((s) => s.id === ref.stepId);
    if (!step) return { kind: 'gone' };
    const position = positionOf(plan, step.id);
    if (typeof allowed === 'string' ? !mayTake(step, allowed) : !allowed.includes(step.state))
      return { kind: 'too late', step, position };
    if (change(step, plan) === 'not yet') return { kind: 'gone' };
    if (typeof allowed === 'string') transition(step, allowed);
    return { kind: 'done', step, position };
  });
  return { outcome: result, plan };
}

/** The running game day a step belongs to, or undefined once it has ended. */
export async function dayOf(deps: PlanStepParts, ref: StepRef): Promise<GameDay | undefined> {
  const day = await deps.gameDays.running(ref.channel);
  return day?.id === ref.gameDayId ? day : undefined;
}

/** After a change to a step: its countdown card, the game-day card, and a timeline line. */
export async function shown(
  deps: PlanStepParts,
  ref: StepRef,
  plan: GameDayPlan,
  step: PlanStep,
  event?: GameDayStepEvent,
): Promise<void> {
  const day = await dayOf(deps, ref);
  if (!day) return;
  deps.gameDays.redrawCountdown({ ...day, plan }, step);
  if (event) await tellStep(deps, ref.channel, event);
  else await deps.gameDays.showCard({ ...day, plan });
}

/**
 * An Approve of the request a step waits on: true, and the step is starting, only while the step
 * still waits for that approval (not skipped, vetoed or ended meanwhile), so one step runs at a time.
 */
export async function approvedStepStarts(deps: PlanStepParts, ref: StepRef): Promise<boolean> {
  const { outcome } = await changeStep(deps, ref, 'approve');
  return outcome.kind === 'done';
}

/** Why a step could not start without the platform saying so: its runner, or the second person it needed. */
export type StepNotStartedReason = 'session' | 'team' | 'privilege' | 'rejected' | 'expired' | 'interrupted';

/** Why a step could not start before its attack was even tried: its runner's session has ended, or left the team; the views word it. */
export class StepNotStartedError extends Error {
  override name = 'StepNotStartedError';
  readonly reason: StepNotStartedReason;
  /** Slack user id of who pressed Run, or of who rejected its approval. */
  readonly runBy: string;
  constructor(reason: StepNotStartedReason, runBy: string) {
    super(`The step's runner has no ${reason} to start it with`);
    this.reason = reason;
    this.runBy = runBy;
  }
}

/**
 * The approval a step's start asked for was closed without starting it (rejected, expired, its
 * runner gone, the start refused): the step did not start, and the plan goes on.
 */
export async function stepApprovalClosed(
  deps: PlanStepParts,
  ref: StepRef,
  closing: { kind: string; by?: string; approver?: string; error?: unknown },
): Promise<void> {
  const plan = await deps.gameDays.plans.get({ gameDayId: ref.gameDayId });
  const step = plan.steps.find((s) => s.id === ref.stepId);
  if (!step) return;
  const runBy = step.countdown?.runBy.userId ?? '';
  const error =
    closing.kind === 'not started'
      ? closing.error
      : closing.kind === 'rejected'
        ? new StepNotStartedError('rejected', closing.by ?? runBy)
        : closing.kind === 'expired'
          ? new StepNotStartedError('expired', runBy)
          : closing.kind === 'requester gone'
            ? new StepNotStartedError('session', runBy)
            : new StepNotStartedError('interrupted', runBy);
  await notStarted(deps, ref, deps.gameDays.board.describeError(error, step.teamName), deps.clock.now());
}

/** A step whose start was refused: said, and the automatic mode pauses. */
export async function notStarted(deps: PlanStepParts, ref: StepRef, reason: string, now: number): Promise<void> {
  const { outcome, plan } = await changeStep(deps, ref, 'not start', (step, plan) => {
    if (step.guid) return 'not yet';
    step.notStarted = { reason, at: iso(now) };
    pauseAuto(plan, 'not started', String(positionOf(plan, step.id)), iso(now));
  });
  if (outcome.kind === 'done')
    await shown(deps, ref, plan, outcome.step, stepEvent(plan, outcome.step, 'not started', now, { reason }));
}
