import type { TeamEntry } from '../client/index.ts';
import type { GameDayParts } from './service.ts';
import { NotLoggedInError, UserInputError } from '../errors.ts';
import { mayRunAttacks } from '../attacks/access.ts';
import type { AttackRequest } from '../attacks/request.ts';
import { guardKey, type GuardSpec } from '../guardrails/guards.ts';
import type { Login, Person } from '../store/sessions.ts';
import type { GameDayRecord, GameDayStepEvent } from './gamedayRecord.ts';
import { iso, stepEvent, tellStep } from './planStepState.ts';
import { activeStates, type GameDayPlan, newStep, type PlanOwner, type PlanStep, type Runner } from './plan.ts';

/**
 * Who may change a game day's plan, and its changes before a step runs: adding, moving and
 * removing steps, and the automatic mode. Every way in (command, button, form, countdown,
 * automatic mode) goes through `requireMayRunStep`.
 */

type Day = GameDayRecord & { id: string };

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

/** The plan a channel's commands act on: its running game day's, else the one drafted for the next. */
export async function planPlace(deps: GameDayParts, channel: string): Promise<{ owner: PlanOwner; day?: Day }> {
  const day = await deps.gameDays.running(channel);
  return day ? { owner: { gameDayId: day.id }, day } : { owner: { channel } };
}

/** Whoever acts, as the runner a step or the automatic mode keeps: no more of them than that. */
export const runnerOf = (actor: Runner): Runner => ({
  workspaceId: actor.workspaceId,
  userId: actor.userId,
  userName: actor.userName,
});

/** The step at a position counted from 1, or by id. */
export const findStep = (plan: GameDayPlan, at: { position: number } | { id: string }) =>
  'id' in at ? plan.steps.find((s) => s.id === at.id) : plan.steps[at.position - 1];

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

/** The step Run next step would count down, if any. */
export const nextStep = (plan: GameDayPlan) => plan.steps.find((s) => s.state === 'planned');

/** The step under way (counting down, waiting for a second person, or running), if any. */
export const activeStep = (plan: GameDayPlan) => plan.steps.find((s) => activeStates.includes(s.state));

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
