import type { TeamEntry } from '../../client/index.ts';
import type { Deps } from '../../deps.ts';
import { requireLogin, teamName } from '../../attacks/access.ts';
import type { AttackRequest } from '../../attacks/request.ts';
import { savedWords } from '../../attacks/saved.ts';
import { UserInputError } from '../../errors.ts';
import type { GameDayRecord } from '../../gamedays/gamedayRecord.ts';
import { type PlanOwner, type PlanStep, positionOf, type Runner, type StepRef } from '../../gamedays/plan.ts';
import {
  activeStep,
  addStep,
  moveStep,
  nextStep,
  removeStep,
  setAutomatic,
  StepNotAllowedError,
  stepRequest,
} from '../../gamedays/planChanges.ts';
import { answerStep, countDown, delayStep, skipStep, startStepNow, vetoStep } from '../../gamedays/planSteps.ts';
import type { StepActionOutcome } from '../../gamedays/planStepState.ts';
import type { GuardSpec } from '../../guardrails/guards.ts';
import type { Actor, Login } from '../../store/sessions.ts';
import {
  addStepModal,
  answerModal,
  STEP_GUARDS,
  STEP_HYPOTHESIS,
  STEP_OBSERVATION,
  STEP_SAVED,
  STEP_SPEC,
  STEP_VETO_REASON,
  vetoModal,
} from '../../views/gamedays/stepForms.ts';
import { answerOfAction } from '../../views/gamedays/countdown.ts';
import { parsePlanPlace, parseStepRef, type PlanPlace, planMessage } from '../../views/gamedays/plan.ts';
import { planWords } from '../../views/gamedays/planWords.ts';
import { checkAttackWords, resolveTeam } from '../attacks/attack.ts';
import { requestedTeam } from '../attacks/parse.ts';
import { splitWords } from '../attacks/tokenize.ts';
import { guardsFromFlag } from '../guardrails/guardFlags.ts';
import { type Action, message, type Reply, type Submission, type SubmissionReply } from '../reply.ts';
import { savedAttackRequest } from '../attacks/saved.ts';

/**
 * A game day's plan from Slack: `gameday plan`, `step`, `move`, `next` and `auto`, the Add step
 * form, the countdown's buttons and the hypothesis question. The plan's rules are the domain's
 * (src/gamedays/planChanges.ts, planSteps.ts); this reads what people typed or clicked and answers with the views.
 */

const hypothesisLimit = 500;

/** The plan a channel's commands act on: its running game day's, else the one drafted for the next. */
async function placeOf(
  deps: Deps,
  channel: string,
): Promise<{ owner: PlanOwner; day?: GameDayRecord & { id: string } }> {
  const day = await deps.gameDays.running(channel);
  return day ? { owner: { gameDayId: day.id }, day } : { owner: { channel } };
}

const ownerOf = (place: PlanPlace): PlanOwner =>
  place.gameDayId ? { gameDayId: place.gameDayId } : { channel: place.channel };

const runnerOf = (actor: Actor): Runner => ({
  workspaceId: actor.workspaceId,
  userId: actor.userId,
  userName: actor.userName,
});

/** The plan as a message, for the person who asked. */
async function showPlan(deps: Deps, channel: string, notice?: string): Promise<Reply> {
  const { owner, day } = await placeOf(deps, channel);
  const plan = await deps.gameDays.plans.get(owner);
  return {
    kind: 'message',
    message: planMessage({
      place: { channel, ...(day ? { gameDayId: day.id } : {}) },
      plan,
      running: Boolean(day),
      command: deps.config.slack.command,
      notice,
    }),
  };
}

/**
 * The attack of a step: a saved attack read again, or typed words checked as a start; the step's
 * guards added. `planned` is the step as planned, when it was: its saved attack must be the
 * version it was planned with.
 */
async function stepAttack(
  deps: Deps,
  login: Login,
  team: TeamEntry,
  source: PlanStep['source'],
  words: readonly string[],
  guards: readonly GuardSpec[],
  planned?: { position: number },
): Promise<{ request: AttackRequest; source: PlanStep['source'] }> {
  if (source.kind === 'typed')
    return { request: stepRequest(await checkAttackWords(deps, login, team, words), guards), source };
  const { saved, request } = await savedAttackRequest(
    deps,
    login,
    team,
    source.name,
    planned ? { kind: 'planned', version: source.version, words, position: planned.position } : { kind: 'preview' },
  );
  return {
    request: stepRequest(request, guards),
    source: { kind: 'saved', name: saved.name, version: saved.version },
  };
}

/** Adds a step, checked as a start would be, to the channel's plan. */
async function planStep(
  deps: Deps,
  actor: Actor,
  channel: string,
  fields: {
    saved?: string | undefined;
    words?: readonly string[] | undefined;
    hypothesis: string;
    guards: GuardSpec[];
    team?: string | undefined;
  },
): Promise<string | undefined> {
  const login = await requireLogin(deps, actor);
  const team = resolveTeam(login, fields.team ?? (fields.words ? requestedTeam(fields.words) : undefined));
  const source: PlanStep['source'] = fields.saved ? { kind: 'saved', name: fields.saved } : { kind: 'typed' };
  const step = await stepAttack(deps, login, team, source, fields.words ?? [], fields.guards);
  const { owner, day } = await placeOf(deps, channel);
  const position = await addStep(
    deps,
    owner,
    {
      // A saved attack as its team spells it, and the version planned: the step runs that one only.
      source: step.source,
      request: step.request,
      teamId: team.identifier,
      teamName: teamName(team),
      hypothesis: fields.hypothesis,
      addedBy: actor.userId,
      ...(fields.guards.length ? { guards: fields.guards } : {}),
    },
    actor,
  );
  return position === undefined ? undefined : planWords.added(position, Boolean(day));
}

function checkHypothesis(text: string, usage: string): string {
  const hypothesis = text.replace(/\s+/g, ' ').trim();
  if (!hypothesis) throw new UserInputError(planWords.needHypothesis, usage);
  if (hypothesis.length > hypothesisLimit)
    throw new UserInputError(`Keep the hypothesis under ${hypothesisLimit} characters.`, usage);
  return hypothesis;
}

/** `gameday step <saved attack> <hypothesis…>` or `gameday step --attack "<attack>" <hypothesis…>`. */
export async function stepFromCommand(
  deps: Deps,
  actor: Actor,
  channel: string,
  args: { rest: string[]; attack: string | undefined; guard: string[] | undefined; team: string | undefined },
  usage: string,
): Promise<Reply> {
  const cmd = deps.config.slack.command;
  const guards = guardsFromFlag(args.guard, deps.config, cmd);
  if (args.attack !== undefined) {
    const { words, unclosedQuote } = splitWords(args.attack);
    if (unclosedQuote || !words.length) throw new UserInputError(planWords.noStepWords(cmd), usage);
    const hypothesis = checkHypothesis(args.rest.join(' '), usage);
    return message((await planStep(deps, actor, channel, { words, hypothesis, guards, team: args.team }))!);
  }
  const [saved, ...hypothesisWords] = args.rest;
  if (!saved) throw new UserInputError(planWords.noStepWords(cmd), usage);
  const hypothesis = checkHypothesis(hypothesisWords.join(' '), usage);
  return message((await planStep(deps, actor, channel, { saved, hypothesis, guards, team: args.team }))!);
}

/** `gameday plan`. */
export async function planFromCommand(deps: Deps, actor: Actor, channel: string): Promise<Reply> {
  await requireLogin(deps, actor);
  return showPlan(deps, channel);
}

/** `gameday move <step> <position>`. */
export async function moveFromCommand(
  deps: Deps,
  actor: Actor,
  channel: string,
  from: number,
  to: number,
): Promise<Reply> {
  await requireLogin(deps, actor);
  const { owner } = await placeOf(deps, channel);
  const moved = await moveStep(deps, owner, { position: from }, to, actor);
  if (moved === 'no such step') return message(planWords.noSuchStep(from));
  if (moved === 'not planned') return message(planWords.notPlanned);
  return showPlan(deps, channel, planWords.moved);
}

/**
 * Run next step: the next planned step, its attack checked again as a start would be now, counts
 * down in the channel, to start with the session of whoever pressed it.
 */
export async function runNext(deps: Deps, actor: Actor, channel: string): Promise<Reply> {
  const day = await deps.gameDays.running(channel);
  if (!day) return message(planWords.noGameDay(deps.config.slack.command));
  const login = await requireLogin(deps, actor);
  const plan = day.plan ?? { steps: [] };
  const busy = activeStep(plan);
  if (busy) return message(planWords.busy(positionOf(plan, busy.id), busy.state));
  const next = nextStep(plan);
  if (!next) return message(planWords.nothingPlanned);
  const team = login.session.teams.find((t) => t.identifier === next.teamId);
  if (!team) throw new UserInputError(planWords.notYourTeam(positionOf(plan, next.id), next.teamName));
  const { request } = await stepAttack(deps, login, team, next.source, savedWords(next.request), next.guards ?? [], {
    position: positionOf(plan, next.id),
  });
  const outcome = await countDown(deps, day, runnerOf(actor), next.id, request);
  if (outcome.kind === 'busy') return message(planWords.busy(outcome.position, outcome.step.state));
  if (outcome.kind === 'nothing planned') return message(planWords.nothingPlanned);
  return message(planWords.countingDown(outcome.position, outcome.total));
}

/** `gameday auto on|off`, and the plan's Automatic button. */
export async function automatic(deps: Deps, actor: Actor, channel: string, on: boolean): Promise<Reply> {
  const day = await deps.gameDays.running(channel);
  if (!day) return message(planWords.noGameDay(deps.config.slack.command));
  await requireLogin(deps, actor);
  await setAutomatic(deps, day, runnerOf(actor), on);
  return message(on ? planWords.autoOn : planWords.autoOff);
}

function placeFrom(action: Action): PlanPlace {
  const place = parsePlanPlace(action.value);
  if (!place) throw new UserInputError(planWords.staleButton);
  return place;
}

/** Run next step, on the game-day card or the plan. */
export async function runNextFromButton(action: Action, deps: Deps): Promise<Reply> {
  const place = placeFrom(action);
  return runNext(deps, action.actor, place.channel);
}

/** Automatic on / off, on the plan. */
export async function automaticFromButton(action: Action, deps: Deps): Promise<Reply> {
  const place = placeFrom(action);
  const on = (JSON.parse(action.value ?? '{}') as { on?: unknown }).on === true;
  return automatic(deps, action.actor, place.channel, on);
}

/** Move up and Remove, on the plan: the plan shown again, changed. */
export async function changePlanFromButton(action: Action, deps: Deps): Promise<Reply> {
  const place = placeFrom(action);
  const stepId = (JSON.parse(action.value ?? '{}') as { s?: unknown }).s;
  if (typeof stepId !== 'string') throw new UserInputError(planWords.staleButton);
  await requireLogin(deps, action.actor);
  const owner = ownerOf(place);
  const plan = await deps.gameDays.plans.get(owner);
  const position = positionOf(plan, stepId);
  const outcome =
    action.actionId === 'plan_remove'
      ? await removeStep(deps, owner, stepId, action.actor)
      : position
        ? await moveStep(deps, owner, { id: stepId }, position - 1, action.actor)
        : 'no such step';
  const notice =
    outcome === 'moved'
      ? action.actionId === 'plan_remove'
        ? planWords.removed
        : planWords.moved
      : outcome === 'not planned'
        ? planWords.notPlanned
        : planWords.gone;
  const shown = await showPlan(deps, place.channel, notice);
  return shown.kind === 'message' ? { ...shown, replaceOriginal: true } : shown;
}

/** Add step, on the card or the plan: the form, with the team's saved attacks to choose from. */
export async function openAddStep(action: Action, deps: Deps): Promise<Reply> {
  const place = placeFrom(action);
  const login = await requireLogin(deps, action.actor);
  const team = resolveTeam(login, undefined);
  return {
    kind: 'openModal',
    view: addStepModal({
      saved: await deps.savedAttacks.list(team.identifier),
      teamName: teamName(team),
      askGuards: Boolean(deps.config.monitoring.integrationA || deps.config.monitoring.uriB),
      privateMetadata: JSON.stringify({ c: place.channel }),
    }),
  };
}

/** The Add step form: errors on its fields, or the step added (and the person told where). */
export async function submitStep(submission: Submission, deps: Deps): Promise<SubmissionReply> {
  const place = parsePlanPlace(submission.privateMetadata);
  if (!place) return { kind: 'errors', errors: { [STEP_HYPOTHESIS]: planWords.staleButton } };
  const saved = submission.inputs[STEP_SAVED]?.trim() || undefined;
  const spec = submission.inputs[STEP_SPEC]?.trim() || undefined;
  const hypothesis = submission.inputs[STEP_HYPOTHESIS]?.replace(/\s+/g, ' ').trim() ?? '';
  const errors: Record<string, string> = {};
  if (!hypothesis) errors[STEP_HYPOTHESIS] = planWords.needHypothesis;
  if (!saved && !spec) errors[STEP_SPEC] = planWords.needAttack;
  if (saved && spec) errors[STEP_SPEC] = planWords.notBoth;
  let guards: GuardSpec[] = [];
  const guardText = submission.inputs[STEP_GUARDS]?.trim();
  if (guardText) {
    try {
      guards = guardsFromFlag(guardText.split(/[\s,]+/).filter(Boolean), deps.config, deps.config.slack.command);
    } catch (error) {
      if (!(error instanceof UserInputError)) throw error;
      errors[STEP_GUARDS] = plainText(error.message);
    }
  }
  if (Object.keys(errors).length) return { kind: 'errors', errors };
  try {
    const words = spec ? splitWords(spec).words : undefined;
    const notice = await planStep(deps, submission.actor, place.channel, { saved, words, hypothesis, guards });
    if (notice !== undefined) await deps.slack.postEphemeral(place.channel, submission.actor.userId, { text: notice });
  } catch (error) {
    if (!(error instanceof UserInputError)) throw error;
    const words =
      error instanceof StepNotAllowedError
        ? planWords.notAllowed(error.teamName, error.inTeam, deps.config.slack.command)
        : error.message;
    return { kind: 'errors', errors: { [spec ? STEP_SPEC : STEP_SAVED]: plainText(words) } };
  }
  return { kind: 'clear' };
}

/** A field error is plain text: mrkdwn marks would show as typed. */
const plainText = (text: string) =>
  text.replace(/[*`_]/g, '').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

function stepRefFrom(value: string | undefined): StepRef {
  const ref = parseStepRef(value);
  if (!ref) throw new UserInputError(planWords.staleButton);
  return ref;
}

/** What a click on a countdown or a question answers. */
function answered(outcome: StepActionOutcome, done: (position: number) => string): Reply {
  if (outcome.kind === 'gone') return message(planWords.gone);
  if (outcome.kind === 'too late') return message(planWords.tooLate(outcome.position, outcome.step.state));
  return message(done(outcome.position));
}

/**
 * Start now, Delay 5 min and Skip on a countdown: anyone logged in, in the channel, may delay or
 * skip; Start now is a start, by whoever may run the step.
 */
export async function countdownAction(action: Action, deps: Deps): Promise<Reply> {
  const ref = stepRefFrom(action.value);
  await requireLogin(deps, action.actor);
  switch (action.actionId) {
    case 'countdown_start_now':
      return answered(await startStepNow(deps, ref, runnerOf(action.actor)), planWords.startedNow);
    case 'countdown_delay':
      return answered(await delayStep(deps, ref, action.actor.userId), planWords.delayed);
    default:
      return answered(await skipStep(deps, ref, action.actor.userId), planWords.skipped);
  }
}

/** Veto on a countdown: the form that asks why. */
export async function openVeto(action: Action, deps: Deps): Promise<Reply> {
  const ref = stepRefFrom(action.value);
  await requireLogin(deps, action.actor);
  const plan = await deps.gameDays.plans.get({ gameDayId: ref.gameDayId });
  const step = plan.steps.find((s) => s.id === ref.stepId);
  if (!step) return message(planWords.gone);
  if (step.state !== 'counting down' && step.state !== 'awaiting approval')
    return message(planWords.tooLate(positionOf(plan, step.id), step.state));
  return { kind: 'openModal', view: vetoModal(action.value ?? '', step, positionOf(plan, step.id)) };
}

export async function submitVeto(submission: Submission, deps: Deps): Promise<SubmissionReply> {
  const ref = parseStepRef(submission.privateMetadata);
  const reason = submission.inputs[STEP_VETO_REASON]?.replace(/\s+/g, ' ').trim();
  if (!ref) return { kind: 'errors', errors: { [STEP_VETO_REASON]: planWords.staleButton } };
  if (!reason) return { kind: 'errors', errors: { [STEP_VETO_REASON]: 'Say why, for the channel.' } };
  await requireLogin(deps, submission.actor);
  const outcome = await vetoStep(deps, ref, submission.actor.userId, reason);
  if (outcome.kind === 'too late')
    return {
      kind: 'errors',
      errors: { [STEP_VETO_REASON]: plainText(planWords.tooLate(outcome.position, outcome.step.state)) },
    };
  return { kind: 'clear' };
}

/** Held, Not held or Unsure on a question: the form for an observation. */
export async function openAnswer(action: Action, deps: Deps): Promise<Reply> {
  const ref = stepRefFrom(action.value);
  await requireLogin(deps, action.actor);
  const answer = answerOfAction[action.actionId] ?? 'unsure';
  const plan = await deps.gameDays.plans.get({ gameDayId: ref.gameDayId });
  const step = plan.steps.find((s) => s.id === ref.stepId);
  if (!step) return message(planWords.gone);
  if (step.answer) return message(planWords.alreadyAnswered);
  return {
    kind: 'openModal',
    view: answerModal(
      JSON.stringify({ ...JSON.parse(action.value ?? '{}'), a: answer }),
      step,
      positionOf(plan, step.id),
      answer,
    ),
  };
}

export async function submitAnswer(submission: Submission, deps: Deps): Promise<SubmissionReply> {
  const ref = parseStepRef(submission.privateMetadata);
  const given = ref ? (JSON.parse(submission.privateMetadata) as { a?: unknown }).a : undefined;
  const answer = Object.values(answerOfAction).find((a) => a === given);
  if (!ref || !answer) return { kind: 'errors', errors: { [STEP_OBSERVATION]: planWords.staleButton } };
  await requireLogin(deps, submission.actor);
  const observation = submission.inputs[STEP_OBSERVATION]?.trim() || undefined;
  const outcome = await answerStep(deps, ref, submission.actor.userId, answer, observation);
  if (outcome.kind === 'too late') return { kind: 'errors', errors: { [STEP_OBSERVATION]: planWords.alreadyAnswered } };
  return { kind: 'clear' };
}
