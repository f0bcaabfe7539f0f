import { builtInCatalogue } from '../../client/catalogue.ts';
import type { TeamEntry } from '../../client/index.ts';
import type { Deps } from '../../deps.ts';
import { otherAttackChannels } from '../../attacks/channels.ts';
import { claimPending, dropPending, loadPending, savePending, type StartAsk } from '../../attacks/start.ts';
import { startChecks, startPolicy, type StartWay } from '../../attacks/startPolicy.ts';
import { channelLinks } from '../../views/blocks.ts';
import type { AttackRequest } from '../../attacks/request.ts';
import { attackBuilderModal } from '../../views/attacks/attackBuilder.ts';
import {
  ATTACK_CHANNEL,
  ATTACK_SAVE_AS,
  ATTACK_TEAM,
  ATTACK_TYPE_SELECT,
  builderTitle,
} from '../../views/attacks/builderIds.ts';
import { messageModal } from '../../views/notice.ts';
import { saveAttack } from '../../attacks/saved.ts';
import { savedAttackWords, savedNameProblem } from '../../views/attacks/savedAttacks.ts';
import {
  attackPreviewMessage,
  cannotRunText,
  previewCancelledText,
  previewExpiredText,
  startedText,
} from '../../views/attacks/attackPreview.ts';
import { builderToRequest } from './builder.ts';
import { parseAttackCommand, requestedTeam, type AttackParseOptions } from './parse.ts';
import { unclosedQuoteError } from './tokenize.ts';
import { attackUsage } from './usage.ts';
import { type Action, message, replacement, type Reply, type Submission, type SubmissionReply } from '../reply.ts';
import { type CommandRequest, subcommand } from '../command.ts';
import { ownWords } from '../contract.ts';
import { UserInputError } from '../../errors.ts';
import type { Actor, Login } from '../../store/sessions.ts';
import {
  mayRunAttacks,
  platformFor,
  requireLogin,
  requireTeam,
  RUN_PRIVILEGE,
  teamName,
} from '../../attacks/access.ts';
import { matchTeam } from '../arguments.ts';
import { approvalRequestedText, ruleText } from '../../views/guardrails/approval.ts';
import { GuardsUnknownError } from '../../guardrails/guardCheck.ts';
import { guardLine, unknownGuardsText } from '../../views/guardrails/guards.ts';
import { guardKey } from '../../guardrails/guards.ts';

/**
 * Where attacks may start: a channel allowed by ATTACK_CHANNELS, where the card (and its Halt
 * button) can be posted. Checked before anything is sent to the platform.
 */
export async function checkChannel(deps: Deps, channel: string | undefined): Promise<string> {
  if (!channel) throw new UserInputError('Start attacks from a channel, where their card can be posted.');
  const others = otherAttackChannels(deps.config.attackChannels, channel);
  if (others) throw new UserInputError(`Attacks cannot be started in this channel. Use ${channelLinks(others)}.`);
  const problem = await deps.slack.cardProblem(channel);
  if (problem) throw new UserInputError(problem);
  return channel;
}

/** The team named by --team (one of the person's own), else the selected one. */
export function resolveTeam(login: Login, requested: string | undefined, usage?: string): TeamEntry {
  if (!requested) return requireTeam(login);
  return (
    login.session.teams.find((t) => t.identifier === requested) ?? matchTeam(login.session.teams, requested, usage)
  );
}

/** What a start through the policy says to the person: started, or the request posted. */
async function startReply(deps: Deps, ask: StartAsk, way: StartWay): Promise<Reply> {
  const outcome = await startPolicy(deps, ask, way);
  if (outcome.kind === 'approval requested') return message(approvalRequestedText(outcome.rule, outcome.channel));
  const { started } = outcome;
  const permalink = started.card ? await deps.slack.permalink(started.card.channel, started.card.ts) : undefined;
  return message(startedText(ask.request, teamName(ask.team), started, deps.config.slack.command, permalink));
}

/**
 * The preview, after the checks a start would make: a freeze or an unhealthy guard refuses it
 * here; a guard whose state cannot be told is shown, and Start becomes Start anyway.
 */
async function preview(deps: Deps, ask: StartAsk, savedAs?: string) {
  const { actor, team, request, channel } = ask;
  // Start is offered only to a session the platform would let start it.
  if (!mayRunAttacks(team))
    return attackPreviewMessage({
      request,
      teamName: teamName(team),
      command: deps.config.slack.command,
      channel,
      refused: cannotRunText(teamName(team), RUN_PRIVILEGE),
    });
  const { checks, unknown, rule } = await startChecks(deps, ask);
  const pending = await savePending(deps, {
    actor,
    teamId: team.identifier,
    request,
    channel,
    unknownGuards: unknown.map((c) => guardKey(c.guard.spec)),
  });
  return attackPreviewMessage({
    request,
    teamName: teamName(team),
    pendingId: pending.id,
    command: deps.config.slack.command,
    channel,
    guards: checks.map((c) => guardLine(c.guard.spec, c.reading)),
    ...(unknown.length
      ? { warning: `${unknownGuardsText(unknown)} Start anyway only if you will watch it yourself.` }
      : {}),
    ...(rule ? { approval: ruleText(rule) } : {}),
    ...(savedAs ? { savedAs } : {}),
  });
}

/** What the command and the builder check an attack against, from the configuration. */
const parseOptions = (deps: Deps): AttackParseOptions => ({
  maxAttackSeconds: deps.config.maxAttackSeconds,
  monitoring: deps.config.monitoring,
  command: deps.config.slack.command,
});

/**
 * A typed command was acknowledged already, so it can wait for the platform's own metadata
 * (checking flags against the built-in catalogue could refuse a type the platform has).
 */
const commandMetadataWaitMs = 8_000;

/** The builder's private metadata: where to answer once it is submitted. */
interface BuilderOrigin {
  channel: string | undefined;
  responseUrl: string | undefined;
}

async function builderModal(
  deps: Deps,
  login: Login,
  team: TeamEntry,
  origin: BuilderOrigin,
  selectedType?: string,
  values?: Record<string, string | undefined>,
) {
  const catalogue = await deps.catalogues.get(team.identifier, platformFor(deps, login, team));
  return attackBuilderModal({
    catalogue: catalogue.types,
    selectedType,
    teams: login.session.teams.map((t) => ({ id: t.identifier, name: teamName(t) })),
    currentTeam: values?.[ATTACK_TEAM] ?? team.identifier,
    values,
    maxAttackSeconds: deps.config.maxAttackSeconds,
    privateMetadata: JSON.stringify(origin),
    askChannel: origin.channel === undefined,
    askGuards: Boolean(deps.config.monitoring.integrationA || deps.config.monitoring.uriB),
  });
}

/** The attack builder, from `/chaos attack` in a channel or from App Home (which asks for one). */
export async function openBuilder(deps: Deps, actor: Actor, origin: BuilderOrigin): Promise<Reply> {
  if (origin.channel) await checkChannel(deps, origin.channel);
  const login = await requireLogin(deps, actor);
  return { kind: 'openModal', view: await builderModal(deps, login, requireTeam(login), origin) };
}

export const attackCommand = subcommand({
  name: 'attack',
  // A preview or, with `--yes`, a start: a redelivered or replayed `--yes` starts nothing.
  once: (words) => words.length > 0,
  usage: attackUsage.general,
  summary: `Previews, then starts an attack. Alone, opens the attack builder. Attack flags are the platform CLI's. Target flags choose the clients (none: every active client of the team): ${attackUsage.targetFlags}. Guards halt the attack when they fire: ${attackUsage.guards}.`,
  examples: [
    'attack',
    'attack cpu -l 60 -c 1 --target-tags role=web',
    'attack latency -l 120 -m 300 --target-hosts platform-web-1,platform-web-2 --team Platform',
    'attack memory -l 30 -p 50 --target-labels app=checkout --target-count 2 --yes',
    'attack cpu -l 300 -c 1 --target-tags role=web --guard a:1234567',
    'attack cpu -l 60 --k8s-target acme-prod/checkout/Deployment/checkout --k8s-target acme-prod/checkout/StatefulSet/cart-db --k8s-count 1',
  ],
  // The type's flags are the platform's, read in order by parseAttackCommand; the bot's own flags
  // there are declared and checked as every command's (attackFlags).
  args: ownWords,
  async run(request, words, deps) {
    const channel = await checkChannel(deps, request.actor.channelId);
    if (request.unclosedQuote) throw unclosedQuoteError(request.unclosedQuote);
    if (words.length === 0) return openBuilder(deps, request.actor, { channel, responseUrl: request.responseUrl });
    const login = await requireLogin(deps, request.actor);
    // Parse against the team the attack would run in: its metadata decides which flags exist. The
    // team is read from the very words the parser reads next, so both see the same --team.
    const team = resolveTeam(login, requestedTeam(words), attackUsage.general);
    const attack = await checkAttackWords(deps, login, team, words);
    return previewOrStart(deps, request, login, team, attack, channel);
  },
});

/**
 * Reads an attack's words (the text after `attack`) against the team's metadata as the platform
 * gives it now, as a start checks them; a UserInputError says what is wrong.
 */
export async function checkAttackWords(
  deps: Deps,
  login: Login,
  team: TeamEntry,
  words: readonly string[],
): Promise<AttackRequest> {
  const catalogue = await deps.catalogues.get(team.identifier, platformFor(deps, login, team), commandMetadataWaitMs);
  return parseAttackCommand(words, catalogue.types, parseOptions(deps));
}

/**
 * What a command does with a checked attack, typed or saved: the preview, or with `--yes` the
 * start, where a freeze, a second person and every guard apply as on a Start click.
 */
export async function previewOrStart(
  deps: Deps,
  request: Pick<CommandRequest, 'actor'>,
  login: Login,
  team: TeamEntry,
  attack: AttackRequest,
  channel: string,
): Promise<Reply> {
  const ask = { actor: request.actor, login, team, request: attack, channel };
  if (attack.yes) {
    try {
      // --yes skips the preview, never a freeze, a guard or the second person.
      return await startReply(deps, ask, { kind: 'command' });
    } catch (error) {
      // A guard that cannot be read gets the preview, with Start anyway.
      if (!(error instanceof GuardsUnknownError)) throw error;
    }
  }
  return { kind: 'message', message: await preview(deps, ask) };
}

/** Start on a preview: exactly one attack, whatever the number of clicks or deliveries. */
export async function startFromPreview(action: Action, deps: Deps): Promise<Reply> {
  const id = action.value ?? '';
  // A second click, a redelivery, or a Cancel already under way: the first one answers.
  if (!(await claimPending(deps, id))) return { kind: 'none' };
  const pending = await loadPending(deps, id);
  if (!pending) return replacement(previewExpiredText);
  let reply: Reply;
  try {
    if (pending.actor.userId !== action.actor.userId || pending.actor.workspaceId !== action.actor.workspaceId) {
      throw new UserInputError('Only the person who asked for this preview can start it.');
    }
    const channel = await checkChannel(deps, pending.channel);
    const login = await requireLogin(deps, action.actor);
    const team = login.session.teams.find((t) => t.identifier === pending.teamId);
    if (!team) throw new UserInputError('You are no longer in the team this attack was for. Run the command again.');
    // Checked again at the click: a freeze or a guard since the preview, or a Start forged past it.
    reply = await startReply(
      deps,
      { actor: action.actor, login, team, request: pending.request, channel },
      { kind: 'preview', id, acknowledgedGuards: pending.unknownGuards },
    );
  } finally {
    await dropPending(deps, id).catch((error: unknown) =>
      deps.logger.warn({ err: error }, 'could not drop a used preview'),
    );
  }
  return reply.kind === 'message' ? { ...reply, replaceOriginal: true } : reply;
}

/** Cancel takes the same claim as Start, so it never says "nothing was sent" while a Start runs. */
export async function cancelPreview(action: Action, deps: Deps): Promise<Reply> {
  const id = action.value ?? '';
  if (!(await claimPending(deps, id))) return { kind: 'none' };
  await dropPending(deps, id);
  return replacement(previewCancelledText);
}

function builderOrigin(privateMetadata: string): BuilderOrigin {
  try {
    const parsed = JSON.parse(privateMetadata) as Partial<BuilderOrigin>;
    return { channel: parsed.channel, responseUrl: parsed.responseUrl };
  } catch {
    return { channel: undefined, responseUrl: undefined };
  }
}

/**
 * Choosing a type (or a target kind) rebuilds the builder: the type's own arguments, the fields
 * the kind needs, and everything typed so far kept.
 */
export async function builderChanged(action: Action, deps: Deps): Promise<Reply> {
  const login = await requireLogin(deps, action.actor);
  const team = resolveTeam(login, action.inputs[ATTACK_TEAM]);
  const type = action.actionId === ATTACK_TYPE_SELECT ? action.value : action.inputs[ATTACK_TYPE_SELECT];
  return {
    kind: 'updateModal',
    view: await builderModal(deps, login, team, builderOrigin(action.privateMetadata), type, action.inputs),
  };
}

/** The builder's submission leads to the same preview as the slash command, in the same place. */
export async function submitBuilder(submission: Submission, deps: Deps): Promise<SubmissionReply> {
  const origin = builderOrigin(submission.privateMetadata);
  const login = await requireLogin(deps, submission.actor);
  // The select gives a team id; one that is not among the person's own teams is never used.
  const chosenTeam = submission.inputs[ATTACK_TEAM];
  const team = chosenTeam ? login.session.teams.find((t) => t.identifier === chosenTeam) : requireTeam(login);
  // Without a usable team the other fields are still checked, against the selected team's types.
  const checkedIn = team ?? login.team ?? login.session.teams[0];
  const catalogue = checkedIn
    ? (await deps.catalogues.get(checkedIn.identifier, platformFor(deps, login, checkedIn))).types
    : builtInCatalogue;
  const result = builderToRequest(submission.inputs, catalogue, parseOptions(deps));
  const saveAs = submission.inputs[ATTACK_SAVE_AS]?.trim();
  const nameProblem = saveAs ? savedNameProblem(saveAs) : undefined;
  if ('errors' in result || !team || nameProblem) {
    const errors: Record<string, string> = 'errors' in result ? { ...result.errors } : {};
    if (!team) errors[ATTACK_TEAM] = 'Choose one of your teams.';
    if (nameProblem) errors[ATTACK_SAVE_AS] = nameProblem;
    return { kind: 'errors', errors };
  }
  const chosen = origin.channel ?? submission.inputs[ATTACK_CHANNEL];
  if (!origin.channel) {
    const others = otherAttackChannels(deps.config.attackChannels, chosen);
    if (others)
      return {
        kind: 'errors',
        errors: { [ATTACK_CHANNEL]: `Choose one of the attack channels: ${channelLinks(others)}.` },
      };
    if (!chosen) return { kind: 'errors', errors: { [ATTACK_CHANNEL]: 'Choose the channel for the attack card.' } };
  }
  const channel = await checkChannel(deps, chosen);
  if (saveAs) {
    const saved = await saveAttack(deps, submission.actor, login, team, saveAs, result);
    if ('refused' in saved)
      return {
        kind: 'errors',
        errors: { [ATTACK_SAVE_AS]: savedAttackWords.refusedField(saved.refused, saveAs, teamName(team)) },
      };
  }
  const shown = await preview(
    deps,
    { actor: submission.actor, login, team, request: result, channel },
    saveAs || undefined,
  );
  // Opened from App Home, the person is in the modal: the preview takes the builder's place.
  if (!origin.channel) return { kind: 'update', view: messageModal(builderTitle, shown) };
  // The command's response_url lasts 30 minutes; a builder left open longer answers another way.
  const answered = origin.responseUrl ? await deps.slack.respond(origin.responseUrl, shown) : 'none';
  if (answered === 'not Slack')
    deps.logger.warn(
      { channel },
      "the builder carried a reply address that is not Slack's; answering in the channel instead",
    );
  if (answered !== 'sent') await deps.slack.postEphemeral(channel, submission.actor.userId, shown);
  return { kind: 'clear' };
}
