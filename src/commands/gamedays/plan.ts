import type { Services } from '../../services.ts';
import { teamName } from '../../attacks/access.ts';
import { savedWords } from '../../attacks/saved.ts';
import { UserInputError } from '../../errors.ts';
import { type PlanOwner, positionOf } from '../../gamedays/plan.ts';
import { runnerOf } from '../../gamedays/planStepState.ts';
import type { Actor } from '../../store/sessions.ts';
import { parsePlanPlace, type PlanPlace, planMessage } from '../../views/gamedays/plan.ts';
import { planWords } from '../../views/gamedays/planWords.ts';
import { addStepModal } from '../../views/gamedays/stepForms.ts';
import { type Action, message, type Reply } from '../command.ts';
import { resolveTeam } from '../attacks/attack.ts';
import { stepAttack } from './addStep.ts';

/**
 * A game day's plan from Slack: `gameday plan`, `move`, `next` and `auto`, and the plan's buttons.
 * The plan's rules are the domain's (src/gamedays/planChanges.ts, planNext.ts, planSteps.ts,
 * planStepState.ts); this reads what people typed or clicked and answers with the views. Adding a
 * step is addStep.ts's (its form opens here); the countdown's buttons and the hypothesis question
 * are countdown.ts's.
 */

const ownerOf = (place: PlanPlace): PlanOwner =>
  place.gameDayId ? { gameDayId: place.gameDayId } : { channel: place.channel };

/** The plan as a message, for the person who asked. */
async function showPlan(deps: Services, channel: string, notice?: string): Promise<Reply> {
  const { owner, day } = await deps.gamedays.planPlace(channel);
  const plan = await deps.gamedays.days.plans.get(owner);
  return {
    kind: 'message',
    message: planMessage({
      place: { channel, ...(day ? { gameDayId: day.id } : {}) },
      plan,
      running: Boolean(day),
      rehearsal: day?.rehearsal,
      command: deps.command,
      notice,
    }),
  };
}

/** `gameday plan`. */
export async function planFromCommand(deps: Services, actor: Actor, channel: string): Promise<Reply> {
  await deps.login.require(actor);
  return showPlan(deps, channel);
}

/** `gameday move <step> <position>`. */
export async function moveFromCommand(
  deps: Services,
  actor: Actor,
  channel: string,
  from: number,
  to: number,
): Promise<Reply> {
  await deps.login.require(actor);
  const { owner } = await deps.gamedays.planPlace(channel);
  const moved = await deps.gamedays.moveStep(owner, { position: from }, to, actor);
  if (moved === 'no such step') return message(planWords.noSuchStep(from));
  if (moved === 'not planned') return message(planWords.notPlanned);
  return showPlan(deps, channel, moved === 'in place' ? planWords.inPlace(from) : planWords.moved);
}

/**
 * Run next step: whether and what runs is the game-day service's; this reads the step's attack
 * words again as a start would (`stepAttack`) and words the outcome.
 */
export async function runNext(deps: Services, actor: Actor, channel: string): Promise<Reply> {
  const outcome = await deps.gamedays.runNext(actor, channel, async (login, team, step, position) => {
    const words = savedWords(step.request);
    return (await stepAttack(deps, login, team, step.source, words, step.guards ?? [], { position })).request;
  });
  if (outcome.kind === 'no game day') return message(planWords.noGameDay(deps.command));
  if (outcome.kind === 'not your team')
    throw new UserInputError(planWords.notYourTeam(outcome.position, outcome.teamName));
  if (outcome.kind === 'busy') return message(planWords.busy(outcome.position, outcome.step.state));
  if (outcome.kind === 'nothing planned') return message(planWords.nothingPlanned);
  return message(planWords.countingDown(outcome.position, outcome.total));
}

/** `gameday auto on [--wait 5m]|off`, and the plan's Automatic button. */
export async function automatic(
  deps: Services,
  actor: Actor,
  channel: string,
  on: boolean,
  waitMs?: number,
): Promise<Reply> {
  const day = await deps.gamedays.days.running(channel);
  if (!day) return message(planWords.noGameDay(deps.command));
  await deps.login.require(actor);
  await deps.gamedays.setAutomatic(day, runnerOf(actor), on, waitMs);
  return message(on ? planWords.autoOn(waitMs) : planWords.autoOff);
}

function placeFrom(action: Action): PlanPlace {
  const place = parsePlanPlace(action.value);
  if (!place) throw new UserInputError(planWords.staleButton);
  return place;
}

/** Run next step, on the game-day card or the plan. */
export async function runNextFromButton(action: Action, deps: Services): Promise<Reply> {
  const place = placeFrom(action);
  return runNext(deps, action.actor, place.channel);
}

/** Automatic on / off, on the plan. */
export async function automaticFromButton(action: Action, deps: Services): Promise<Reply> {
  const place = placeFrom(action);
  const on = (JSON.parse(action.value ?? '{}') as { on?: unknown }).on === true;
  return automatic(deps, action.actor, place.channel, on);
}

/** Move up and Remove, on the plan: the plan shown again, changed. */
export async function changePlanFromButton(action: Action, deps: Services): Promise<Reply> {
  const place = placeFrom(action);
  const stepId = (JSON.parse(action.value ?? '{}') as { s?: unknown }).s;
  if (typeof stepId !== 'string') throw new UserInputError(planWords.staleButton);
  await deps.login.require(action.actor);
  const owner = ownerOf(place);
  const plan = await deps.gamedays.days.plans.get(owner);
  const position = positionOf(plan, stepId);
  const outcome =
    action.actionId === 'plan_remove'
      ? await deps.gamedays.removeStep(owner, stepId, action.actor)
      : position
        ? await deps.gamedays.moveStep(owner, { id: stepId }, position - 1, action.actor)
        : 'no such step';
  const notice =
    outcome === 'moved'
      ? action.actionId === 'plan_remove'
        ? planWords.removed
        : planWords.moved
      : outcome === 'in place'
        ? planWords.inPlace(position)
        : outcome === 'not planned'
          ? planWords.notPlanned
          : planWords.gone;
  const shown = await showPlan(deps, place.channel, notice);
  return shown.kind === 'message' ? { ...shown, replaceOriginal: true } : shown;
}

/** Add step, on the card or the plan: the form, with the team's saved attacks to choose from. */
export async function openAddStep(action: Action, deps: Services): Promise<Reply> {
  const place = placeFrom(action);
  const login = await deps.login.require(action.actor);
  const team = resolveTeam(login, undefined);
  return {
    kind: 'openModal',
    view: addStepModal({
      saved: await deps.attacks.saved.list(team.identifier),
      teamName: teamName(team),
      askGuards: Boolean(deps.attacks.settings.monitoring.integrationA || deps.attacks.settings.monitoring.uriB),
      privateMetadata: JSON.stringify({ c: place.channel }),
    }),
  };
}
