import type { GameDayParts } from './service.ts';
import { requireLogin } from '../attacks/access.ts';
import type { AttackRequest } from '../attacks/request.ts';
import type { TeamEntry } from '../client/index.ts';
import type { Actor, Login } from '../store/sessions.ts';
import { activeStep, nextStep, type PlanStep, positionOf } from './plan.ts';
import { requireMayRunStep, runnerOf } from './planStepState.ts';
import { type CountdownOutcome, countDown } from './planSteps.ts';

/** What Run next step came to: the next step counting down, or why it does not. */
export type RunNextOutcome =
  | CountdownOutcome
  | { kind: 'no game day' }
  | { kind: 'not your team'; position: number; teamName: string };

/**
 * The step's attack checked again as a start would be now, with the runner's session in the step's
 * team: the way in reads the attack's words, and throws what a person should read when they no longer hold.
 */
export type StepCheck = (login: Login, team: TeamEntry, step: PlanStep, position: number) => Promise<AttackRequest>;

/**
 * Run next step, whichever way in: the channel's game day's next planned step, when none is under
 * way and the person may run it, its attack checked again, counts down to start with their session.
 */
export async function runNext(
  deps: GameDayParts,
  actor: Actor,
  channel: string,
  check: StepCheck,
): Promise<RunNextOutcome> {
  const day = await deps.gameDays.running(channel);
  if (!day) return { kind: 'no game day' };
  const login = await requireLogin(deps, actor);
  const plan = day.plan ?? { steps: [] };
  const busy = activeStep(plan);
  if (busy) return { kind: 'busy', step: busy, position: positionOf(plan, busy.id) };
  const next = nextStep(plan);
  if (!next) return { kind: 'nothing planned' };
  const position = positionOf(plan, next.id);
  if (!login.session.teams.some((t) => t.identifier === next.teamId))
    return { kind: 'not your team', position, teamName: next.teamName };
  // Refused before its attack is read again: only someone who may run attacks in the step's team runs it.
  const { team } = await requireMayRunStep(deps, actor, next);
  const request = await check(login, team, next, position);
  return countDown(deps, day, runnerOf(actor), next.id, request);
}
