import { builtInCatalogue } from '../../client/catalogue.ts';
import type { TeamEntry } from '../../client/index.ts';
import type { Services } from '../../services.ts';
import type { AttackRequest } from '../../attacks/request.ts';
import { preview, previewOrStart } from './preview.ts';
import { channelLinks } from '../../views/blocks.ts';
import { attackBuilderModal } from '../../views/attacks/attackBuilder.ts';
import {
  ATTACK_CHANNEL,
  ATTACK_SAVE_AS,
  ATTACK_TARGET_KIND,
  ATTACK_TARGET_VALUES,
  ATTACK_TEAM,
  ATTACK_TYPE_SELECT,
  builderTitle,
} from '../../views/attacks/builderFields.ts';
import { NoTargetsError } from '../../attacks/blastRadius.ts';
import { noTargetsFieldText } from '../../views/attacks/blastRadius.ts';
import { messageModal } from '../../views/notice.ts';
import { savedAttackWords, savedNameProblem } from '../../views/attacks/savedAttacks.ts';
import { builderToRequest } from './builder.ts';
import { attackUsage, parseAttackCommand, requestedTeam, unclosedQuoteError } from './parse.ts';
import type { AttackParseOptions } from './botFlags.ts';
import { type Action, type Reply, type Submission, type SubmissionReply, subcommand } from '../command.ts';
import { ownWords } from '../contract.ts';
import type { Actor, Login } from '../../store/sessions.ts';
import { requireTeam, teamName } from '../../attacks/access.ts';
import { matchTeam } from '../arguments.ts';

/** The team named by --team (one of the person's own), else the selected one. */
export function resolveTeam(login: Login, requested: string | undefined, usage?: string): TeamEntry {
  if (!requested) return requireTeam(login);
  return (
    login.session.teams.find((t) => t.identifier === requested) ?? matchTeam(login.session.teams, requested, usage)
  );
}

/** What the command and the builder check an attack against, from the configuration. */
const parseOptions = (deps: Services): AttackParseOptions => ({
  maxAttackSeconds: deps.attacks.settings.maxAttackSeconds,
  monitoring: deps.attacks.settings.monitoring,
  command: deps.command,
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
  deps: Services,
  login: Login,
  team: TeamEntry,
  origin: BuilderOrigin,
  selectedType?: string,
  values?: Record<string, string | undefined>,
) {
  const catalogue = await deps.attacks.catalogue(login, team);
  return attackBuilderModal({
    catalogue: catalogue.types,
    selectedType,
    teams: login.session.teams.map((t) => ({ id: t.identifier, name: teamName(t) })),
    currentTeam: values?.[ATTACK_TEAM] ?? team.identifier,
    values,
    maxAttackSeconds: deps.attacks.settings.maxAttackSeconds,
    privateMetadata: JSON.stringify(origin),
    askChannel: origin.channel === undefined,
    askGuards: Boolean(deps.attacks.settings.monitoring.integrationA || deps.attacks.settings.monitoring.uriB),
  });
}

/** The attack builder, from `/chaos attack` in a channel or from App Home (which asks for one). */
export async function openBuilder(deps: Services, actor: Actor, origin: BuilderOrigin): Promise<Reply> {
  if (origin.channel) await deps.attacks.checkChannel(origin.channel);
  const login = await deps.login.require(actor);
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
    const { actor, responseUrl } = request;
    // The builder is opened only where its attack may start; an attack typed out is checked as it starts.
    if (words.length === 0 && !request.unclosedQuote)
      return openBuilder(deps, actor, { channel: await deps.attacks.checkChannel(actor.channelId), responseUrl });
    if (request.unclosedQuote) throw unclosedQuoteError(request.unclosedQuote);
    const login = await deps.login.require(request.actor);
    // Parse against the team the attack would run in: its metadata decides which flags exist. The
    // team is read from the very words the parser reads next, so both see the same --team.
    const team = resolveTeam(login, requestedTeam(words), attackUsage.general);
    const attack = await checkAttackWords(deps, login, team, words);
    return previewOrStart(deps, { actor, login, team, request: attack, channel: actor.channelId });
  },
});

/**
 * Reads an attack's words (the text after `attack`) against the team's metadata as the platform
 * gives it now, as a start checks them; a UserInputError says what is wrong.
 */
export async function checkAttackWords(
  deps: Services,
  login: Login,
  team: TeamEntry,
  words: readonly string[],
): Promise<AttackRequest> {
  const catalogue = await deps.attacks.catalogue(login, team, commandMetadataWaitMs);
  return parseAttackCommand(words, catalogue.types, parseOptions(deps));
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
export async function builderChanged(action: Action, deps: Services): Promise<Reply> {
  const login = await deps.login.require(action.actor);
  const team = resolveTeam(login, action.inputs[ATTACK_TEAM]);
  const type = action.actionId === ATTACK_TYPE_SELECT ? action.value : action.inputs[ATTACK_TYPE_SELECT];
  return {
    kind: 'updateModal',
    view: await builderModal(deps, login, team, builderOrigin(action.privateMetadata), type, action.inputs),
  };
}

/** The builder's submission leads to the same preview as the slash command, in the same place. */
export async function submitBuilder(submission: Submission, deps: Services): Promise<SubmissionReply> {
  const origin = builderOrigin(submission.privateMetadata);
  const login = await deps.login.require(submission.actor);
  // The select gives a team id; one that is not among the person's own teams is never used.
  const chosenTeam = submission.inputs[ATTACK_TEAM];
  const team = chosenTeam ? login.session.teams.find((t) => t.identifier === chosenTeam) : requireTeam(login);
  // Without a usable team the other fields are still checked, against the selected team's types.
  const checkedIn = team ?? login.team ?? login.session.teams[0];
  const catalogue = checkedIn ? (await deps.attacks.catalogue(login, checkedIn)).types : builtInCatalogue;
  const result = builderToRequest(submission.inputs, catalogue, parseOptions(deps));
  const saveAs = submission.inputs[ATTACK_SAVE_AS]?.trim();
  const nameProblem = saveAs ? savedNameProblem(saveAs) : undefined;
  if ('errors' in result || !team || nameProblem) {
    const errors: Record<string, string> = 'errors' in result ? { ...result.errors } : {};
    if (!team) errors[ATTACK_TEAM] = 'Choose one of your teams.';
    if (nameProblem) errors[ATTACK_SAVE_AS] = nameProblem;
    return { kind: 'errors', errors };
  }
  const channel = origin.channel ?? submission.inputs[ATTACK_CHANNEL];
  const others = origin.channel ? undefined : deps.attacks.otherChannels(channel);
  if (others)
    return {
      kind: 'errors',
      errors: { [ATTACK_CHANNEL]: `Choose one of the attack channels: ${channelLinks(others)}.` },
    };
  if (!channel) return { kind: 'errors', errors: { [ATTACK_CHANNEL]: 'Choose the channel for the attack card.' } };
  if (saveAs) {
    // Nothing is saved for a channel the attack could not start in (the preview checks it again).
    await deps.attacks.checkChannel(channel);
    const saved = await deps.attacks.save(submission.actor, login, team, saveAs, result);
    if ('refused' in saved)
      return {
        kind: 'errors',
        errors: {
          [ATTACK_SAVE_AS]: savedAttackWords.refusedField(saved.refused, saved.existing ?? saveAs, teamName(team)),
        },
      };
  }
  let shown: Awaited<ReturnType<typeof preview>>;
  try {
    shown = await preview(
      deps,
      { actor: submission.actor, login, team, request: result, channel },
      saveAs || undefined,
    );
  } catch (error) {
    // A target that matches nothing is the form's to fix: the refusal goes under the target field.
    if (!(error instanceof NoTargetsError)) throw error;
    const field = result.target.kind === 'all' ? ATTACK_TARGET_KIND : ATTACK_TARGET_VALUES;
    return { kind: 'errors', errors: { [field]: noTargetsFieldText(error) } };
  }
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
