import { z } from 'zod';
import type { TeamEntry } from '../client/index.ts';
import type { Deps } from '../deps.ts';
import { requireLogin, teamName } from '../attacks/access.ts';
import type { AttackRequest } from '../attacks/request.ts';
import { savedNamePattern, type SavedAttack } from '../attacks/saved.ts';
import { audit } from '../audit.ts';
import { UserInputError } from '../errors.ts';
import type { Actor, Login } from '../store/sessions.ts';
import { parseSavedRef, savedAttacksMessage, savedAttackWords } from '../views/savedAttacks.ts';
import { checkAttackWords, checkChannel, previewOrStart, resolveTeam } from './attack/index.ts';
import { requestedTeam } from './attack/parse.ts';
import { unclosedQuoteError } from './attack/tokenize.ts';
import { type CommandRequest, subcommand } from './command.ts';
import { contract, flag, ownWords } from './contract.ts';
import { type Action, message, type Reply } from './reply.ts';
import { closestWord } from './suggest.ts';
import { firstDelivery } from './delivery.ts';

const saveUsage = 'save <name> <attack type> [attack flags] [target flags] [--guard …] [--team T]';
const savedUsage = 'saved [--team T]';
const runUsage = 'run <name> [--team T] [--yes]';

/** A name as given, or the words that say what a name may be. */
function checkName(name: string): string {
  if (!savedNamePattern.test(name)) throw new UserInputError(savedAttackWords.badName(name), saveUsage);
  return name;
}

/** Whether a name may name a saved attack; the builder checks its Save as field with it. */
export function savedNameProblem(name: string): string | undefined {
  return savedNamePattern.test(name) ? undefined : savedAttackWords.badNameField(name);
}

/** Saves a checked attack for the team under a name; a name the team has already, or one being saved at this moment, is refused. */
export async function saveAttack(
  deps: Deps,
  actor: Actor,
  team: TeamEntry,
  name: string,
  request: AttackRequest,
): Promise<{ saved: SavedAttack } | { refused: 'exists' | 'busy' }> {
  const result = await deps.savedAttacks.save(team.identifier, name, request, actor);
  if (result.outcome !== 'saved') return { refused: result.outcome };
  audit(deps.logger, 'attack_saved', actor, { team: team.identifier, saved: name, words: result.saved.words });
  return { saved: result.saved };
}

/**
 * The team's saved attack by name, read again against the team's attack types as the platform
 * has them now, as a typed start is. One the metadata no longer takes says so, and nothing is
 * sent; `run`, its button and a game-day step all come through here.
 */
export async function savedAttackRequest(
  deps: Deps,
  login: Login,
  team: TeamEntry,
  name: string,
): Promise<{ saved: SavedAttack; request: AttackRequest }> {
  const saved = await deps.savedAttacks.get(team.identifier, name);
  const cmd = deps.config.slack.command;
  if (!saved) {
    const names = (await deps.savedAttacks.list(team.identifier)).map((s) => s.name);
    throw new UserInputError(savedAttackWords.notFound(name, teamName(team), closestWord(name, names), cmd));
  }
  try {
    return { saved, request: await checkAttackWords(deps, login, team, saved.words) };
  } catch (error) {
    if (!(error instanceof UserInputError)) throw error;
    throw new UserInputError(savedAttackWords.stale(saved.name, teamName(team), error.message, cmd), error.usage);
  }
}

export const saveCommand = subcommand({
  name: 'save',
  usage: saveUsage,
  summary:
    'Saves an attack for the team under a name, checked as a start is, for `run` and game-day plans. Give it as you would after `attack`. Names are unique in a team.',
  examples: [
    'save web-cpu cpu -l 60 -c 1 --target-tags role=web',
    'save checkout-latency latency -l 120 -m 300 --target-hosts platform-web-1 --team Platform',
  ],
  // The attack's flags are the platform's, read in order by the attack parser, as `attack` reads them.
  args: ownWords,
  async run(request, words, deps) {
    if (request.unclosedQuote) throw unclosedQuoteError(request.unclosedQuote);
    const [typedName, ...spec] = words;
    if (typedName === undefined) throw new UserInputError(savedAttackWords.noName, saveUsage);
    const name = checkName(typedName);
    if (!spec.length) throw new UserInputError(savedAttackWords.noSpec(name), saveUsage);
    const login = await requireLogin(deps, request.actor);
    const team = resolveTeam(login, requestedTeam(spec), saveUsage);
    const attack = await checkAttackWords(deps, login, team, spec);
    if (attack.yes) throw new UserInputError(savedAttackWords.yesNotSaved(deps.config.slack.command), saveUsage);
    if (!(await firstDelivery(deps, request))) return { kind: 'none' };
    const result = await saveAttack(deps, request.actor, team, name, attack);
    if ('refused' in result)
      return message(
        result.refused === 'exists'
          ? savedAttackWords.exists(name, teamName(team), deps.config.slack.command)
          : savedAttackWords.busy(name),
      );
    return message(savedAttackWords.saved(result.saved, teamName(team), deps.config.slack.command));
  },
});

/** The list of a team's saved attacks, with Run and Delete. */
async function listReply(deps: Deps, team: TeamEntry, notice?: string) {
  return savedAttacksMessage({
    teamId: team.identifier,
    teamName: teamName(team),
    saved: await deps.savedAttacks.list(team.identifier),
    command: deps.config.slack.command,
    notice,
  });
}

export const savedCommand = subcommand({
  name: 'saved',
  usage: savedUsage,
  summary: "Lists the team's saved attacks, each with Run and Delete.",
  examples: ['saved', 'saved --team Platform'],
  args: contract({ command: 'saved', usage: savedUsage, flags: { team: flag.value('a team name or id') } }),
  async run(request, args, deps) {
    const login = await requireLogin(deps, request.actor);
    const team = resolveTeam(login, args.flags.team, savedUsage);
    return { kind: 'message', message: await listReply(deps, team) };
  },
});

/** A saved attack, read again and then previewed, or started with `--yes`, exactly as a typed one. */
async function runSaved(
  deps: Deps,
  request: Pick<CommandRequest, 'actor' | 'delivery'>,
  login: Login,
  team: TeamEntry,
  name: string,
  options: { yes: boolean; team: string | undefined },
): Promise<Reply> {
  const channel = await checkChannel(deps, request.actor.channelId);
  const { request: attack } = await savedAttackRequest(deps, login, team, name);
  return previewOrStart(deps, request, login, team, { ...attack, team: options.team, yes: options.yes }, channel);
}

export const runCommand = subcommand({
  name: 'run',
  usage: runUsage,
  summary:
    'Previews and starts a saved attack, as the typed command would: freezes, guards and approval rules apply. With `--yes`, starts without the preview.',
  examples: ['run web-cpu', 'run web-cpu --yes', 'run checkout-latency --team Platform'],
  args: contract({
    command: 'run',
    usage: runUsage,
    words: { name: z.string().optional() },
    flags: { team: flag.value('a team name or id'), yes: flag.switch() },
  }),
  async run(request, args, deps) {
    const name = args.words.name;
    if (name === undefined) throw new UserInputError(savedAttackWords.noRunName(deps.config.slack.command), runUsage);
    const login = await requireLogin(deps, request.actor);
    const team = resolveTeam(login, args.flags.team, runUsage);
    return runSaved(deps, request, login, team, name, { yes: args.flags.yes === true, team: args.flags.team });
  },
});

/** The saved attack a button names, in one of the clicker's own teams. */
async function fromButton(deps: Deps, action: Action) {
  const ref = parseSavedRef(action.value);
  if (!ref) throw new UserInputError(savedAttackWords.staleButton);
  const login = await requireLogin(deps, action.actor);
  // A team id from a button is used only when it is one of the clicker's own teams.
  const team = login.session.teams.find((t) => t.identifier === ref.teamId);
  if (!team) throw new UserInputError(savedAttackWords.notYourTeam);
  return { ref, login, team };
}

/** Run on the list: the preview, in the channel the list was shown in. */
export async function runSavedFromButton(action: Action, deps: Deps): Promise<Reply> {
  const { ref, login, team } = await fromButton(deps, action);
  return runSaved(deps, { actor: action.actor, delivery: action.delivery }, login, team, ref.name, {
    yes: false,
    team: undefined,
  });
}

/** Delete on the list (behind a confirm): the list again, without it. */
export async function deleteSavedFromButton(action: Action, deps: Deps): Promise<Reply> {
  const { ref, team } = await fromButton(deps, action);
  if (!(await firstDelivery(deps, action))) return { kind: 'none' };
  const deleted = await deps.savedAttacks.delete(team.identifier, ref.name);
  if (deleted) audit(deps.logger, 'saved_attack_deleted', action.actor, { team: team.identifier, saved: ref.name });
  const notice = deleted
    ? savedAttackWords.deleted(ref.name, teamName(team))
    : savedAttackWords.alreadyDeleted(ref.name, teamName(team));
  const list = await listReply(deps, team, notice);
  return { kind: 'message', message: list, replaceOriginal: true };
}
