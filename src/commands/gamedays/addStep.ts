import type { TeamEntry } from '../../client/index.ts';
import type { Services } from '../../services.ts';
import { teamName } from '../../attacks/access.ts';
import type { AttackRequest } from '../../attacks/request.ts';
import { UserInputError } from '../../errors.ts';
import type { PlanStep } from '../../gamedays/plan.ts';
import { stepRequest } from '../../gamedays/planChanges.ts';
import { StepNotAllowedError } from '../../gamedays/planStepState.ts';
import type { GuardSpec } from '../../guardrails/guards.ts';
import type { Actor, Login } from '../../store/sessions.ts';
import { parsePlanPlace } from '../../views/gamedays/plan.ts';
import { planWords } from '../../views/gamedays/planWords.ts';
import { STEP_GUARDS, STEP_HYPOTHESIS, STEP_SAVED, STEP_SPEC } from '../../views/gamedays/stepForms.ts';
import { checkAttackWords, resolveTeam } from '../attacks/attack.ts';
import { requestedTeam } from '../attacks/parse.ts';
import { savedAttackRequest } from '../attacks/saved.ts';
import { splitWords, message, type Reply, type Submission, type SubmissionReply } from '../command.ts';
import { guardsFromFlag } from '../guardrails/guardFlags.ts';

/** Adding a step to a game day's plan: `gameday step` and the Add step form, each checked as a start would be. */

const hypothesisLimit = 500;

/**
 * The attack of a step: a saved attack read again, or typed words checked as a start; the step's
 * guards added. `planned` is the step as planned, when it was: its saved attack must be the
 * version it was planned with.
 */
export async function stepAttack(
  deps: Services,
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
  deps: Services,
  actor: Actor,
  channel: string,
  fields: {
    saved?: string | undefined;
    words?: readonly string[] | undefined;
    hypothesis: string;
    guards: GuardSpec[];
    team?: string | undefined;
  },
): Promise<string> {
  const login = await deps.login.require(actor);
  const team = resolveTeam(login, fields.team ?? (fields.words ? requestedTeam(fields.words) : undefined));
  const source: PlanStep['source'] = fields.saved ? { kind: 'saved', name: fields.saved } : { kind: 'typed' };
  const step = await stepAttack(deps, login, team, source, fields.words ?? [], fields.guards);
  const { owner, day } = await deps.gamedays.planPlace(channel);
  const position = await deps.gamedays.addStep(
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
  return planWords.added(position, Boolean(day));
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
  deps: Services,
  actor: Actor,
  channel: string,
  args: { rest: string[]; attack: string | undefined; guard: string[] | undefined; team: string | undefined },
  usage: string,
): Promise<Reply> {
  const cmd = deps.command;
  const guards = guardsFromFlag(args.guard, deps.attacks.settings, cmd);
  if (args.attack !== undefined) {
    const { words, unclosedQuote } = splitWords(args.attack);
    if (unclosedQuote || !words.length) throw new UserInputError(planWords.noStepWords(cmd), usage);
    const hypothesis = checkHypothesis(args.rest.join(' '), usage);
    return message(await planStep(deps, actor, channel, { words, hypothesis, guards, team: args.team }));
  }
  const [saved, ...hypothesisWords] = args.rest;
  if (!saved) throw new UserInputError(planWords.noStepWords(cmd), usage);
  const hypothesis = checkHypothesis(hypothesisWords.join(' '), usage);
  return message(await planStep(deps, actor, channel, { saved, hypothesis, guards, team: args.team }));
}

/** The Add step form: errors on its fields, or the step added (and the person told where). */
export async function submitStep(submission: Submission, deps: Services): Promise<SubmissionReply> {
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
      guards = guardsFromFlag(guardText.split(/[\s,]+/).filter(Boolean), deps.attacks.settings, deps.command);
    } catch (error) {
      if (!(error instanceof UserInputError)) throw error;
      errors[STEP_GUARDS] = plainText(error.message);
    }
  }
  if (Object.keys(errors).length) return { kind: 'errors', errors };
  try {
    const words = spec ? splitWords(spec).words : undefined;
    const notice = await planStep(deps, submission.actor, place.channel, { saved, words, hypothesis, guards });
    await deps.slack.postEphemeral(place.channel, submission.actor.userId, { text: notice });
  } catch (error) {
    if (!(error instanceof UserInputError)) throw error;
    const words =
      error instanceof StepNotAllowedError
        ? planWords.notAllowed(error.teamName, error.inTeam, deps.command)
        : error.message;
    return { kind: 'errors', errors: { [spec ? STEP_SPEC : STEP_SAVED]: plainText(words) } };
  }
  return { kind: 'clear' };
}

/** A field error is plain text: mrkdwn marks would show as typed. */
export const plainText = (text: string) =>
  text.replace(/[*`_]/g, '').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
