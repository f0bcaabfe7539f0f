import { z } from 'zod';
import type { TeamEntry } from '../../client/index.ts';
import type { Services } from '../../services.ts';
import { teamName } from '../../attacks/access.ts';
import type { AttackRequest } from '../../attacks/request.ts';
import { savedNamePattern, type SavedAttack, type SavedRun } from '../../attacks/saved.ts';
import { UserInputError } from '../../errors.ts';
import type { Login } from '../../store/sessions.ts';
import { parseSavedRef, savedAttacksMessage, savedAttackWords } from '../../views/attacks/savedAttacks.ts';
import { checkAttackWords, resolveTeam } from './attack.ts';
import { previewOrStart } from './preview.ts';
import { requestedTeam } from './parse.ts';
import { unclosedQuoteError } from './parse.ts';
import { type CommandRequest, subcommand, type Action, message, type Reply } from '../command.ts';
import { contract, flag, ownWords } from '../contract.ts';
import { closestWord } from '../../suggest.ts';

const saveUsage = 'save <name> <attack type> [attack flags] [target flags] [--guard …] [--team T]';
const savedUsage = 'saved [--team T]';
const runUsage = 'run <name> [--team T] [--yes]';

/** A name as given, or the words that say what a name may be. */
function checkName(name: string): string {
  if (!savedNamePattern.test(name)) throw new UserInputError(savedAttackWords.badName(name), saveUsage);
  return name;
}

/** A saved attack that changed since it was seen: nothing was started, and the change is named. */
export class SavedAttackChangedError extends UserInputError {
  override name = 'SavedAttackChangedError';
  readonly saved: SavedAttack;
  constructor(message: string, saved: SavedAttack) {
    super(message);
    this.saved = saved;
  }
}

/**
 * The team's saved attack by name, read again against the team's attack types as the platform
 * has them now, as a typed start is. One the metadata no longer takes says so, and nothing is
 * sent; one changed since the run's person, list or plan step saw it is refused with the change
 * named (see SavedRun). `run`, its button, the workflow step and a game-day step all come through here.
 */
export async function savedAttackRequest(
  deps: Services,
  login: Login,
  team: TeamEntry,
  name: string,
  run: SavedRun,
): Promise<{ saved: SavedAttack; request: AttackRequest }> {
  const found = await deps.attacks.savedForRun(team.identifier, name, run);
  const cmd = deps.command;
  if ('missing' in found)
    throw new UserInputError(savedAttackWords.notFound(name, teamName(team), closestWord(name, found.missing), cmd));
  const { saved, changed } = found;
  if (changed) throw new SavedAttackChangedError(savedAttackWords.changed(saved, teamName(team), changed, cmd), saved);
  try {
    return { saved, request: await checkAttackWords(deps, login, team, saved.words) };
  } catch (error) {
    if (!(error instanceof UserInputError)) throw error;
    throw new UserInputError(savedAttackWords.stale(saved.name, teamName(team), error.message, cmd), error.usage);
  }
}

export const saveCommand = subcommand({
  name: 'save',
  once: true,
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
    const login = await deps.login.require(request.actor);
    const team = resolveTeam(login, requestedTeam(spec), saveUsage);
    const attack = await checkAttackWords(deps, login, team, spec);
    if (attack.yes) throw new UserInputError(savedAttackWords.yesNotSaved(deps.command), saveUsage);
    const result = await deps.attacks.save(request.actor, login, team, name, attack);
    if ('refused' in result)
      return message(
        result.refused === 'exists'
          ? savedAttackWords.exists(result.existing ?? name, teamName(team), deps.command)
          : result.refused === 'not allowed'
            ? savedAttackWords.mayNotChange(teamName(team))
            : savedAttackWords.busy(name),
      );
    return message(savedAttackWords.saved(result.saved, teamName(team), deps.command));
  },
});

/** The list of a team's saved attacks, with Run and Delete. */
async function listReply(deps: Services, team: TeamEntry, notice?: string) {
  return savedAttacksMessage({
    teamId: team.identifier,
    teamName: teamName(team),
    saved: await deps.attacks.saved.list(team.identifier),
    command: deps.command,
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
    const login = await deps.login.require(request.actor);
    const team = resolveTeam(login, args.flags.team, savedUsage);
    return { kind: 'message', message: await listReply(deps, team) };
  },
});

/**
 * A saved attack, read again and then previewed, or started with `--yes`, exactly as a typed one;
 * `--yes` only for a version the person has seen. A preview shown, or a start, is their having seen it.
 */
async function runSaved(
  deps: Services,
  request: Pick<CommandRequest, 'actor'>,
  login: Login,
  team: TeamEntry,
  name: string,
  /** `shown`: the version the list showed, for its Run button. */
  options: { yes: boolean; team: string | undefined; shown?: number | undefined },
): Promise<Reply> {
  const run: SavedRun = options.yes
    ? { kind: 'unattended', by: request.actor }
    : options.shown !== undefined
      ? { kind: 'shown', version: options.shown }
      : { kind: 'preview' };
  const { saved, request: attack } = await savedAttackRequest(deps, login, team, name, run);
  const reply = await previewOrStart(deps, {
    actor: request.actor,
    login,
    team,
    request: { ...attack, team: options.team, yes: options.yes },
    channel: request.actor.channelId,
  });
  await deps.attacks.sawSaved(saved, request.actor);
  return reply;
}

export const runCommand = subcommand({
  name: 'run',
  // Started with `--yes`: a redelivered or replayed one starts nothing.
  once: ({ flags }) => flags.yes === true,
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
    if (name === undefined) throw new UserInputError(savedAttackWords.noRunName(deps.command), runUsage);
    const login = await deps.login.require(request.actor);
    const team = resolveTeam(login, args.flags.team, runUsage);
    return runSaved(deps, request, login, team, name, { yes: args.flags.yes === true, team: args.flags.team });
  },
});

/** The saved attack a button names, in one of the clicker's own teams. */
async function fromButton(deps: Services, action: Action) {
  const ref = parseSavedRef(action.value);
  if (!ref) throw new UserInputError(savedAttackWords.staleButton);
  const login = await deps.login.require(action.actor);
  // A team id from a button is used only when it is one of the clicker's own teams.
  const team = login.session.teams.find((t) => t.identifier === ref.teamId);
  if (!team) throw new UserInputError(savedAttackWords.notYourTeam);
  return { ref, login, team };
}

/**
 * Run on the list: the preview of the version the list showed, in the channel the list was shown
 * in; one changed since is the list again, as it is now, saying who changed it.
 */
export async function runSavedFromButton(action: Action, deps: Services): Promise<Reply> {
  const { ref, login, team } = await fromButton(deps, action);
  try {
    return await runSaved(deps, { actor: action.actor }, login, team, ref.name, {
      yes: false,
      team: undefined,
      shown: ref.version,
    });
  } catch (error) {
    if (!(error instanceof SavedAttackChangedError)) throw error;
    return { kind: 'message', message: await listReply(deps, team, error.message), replaceOriginal: true };
  }
}

/** Delete on the list (behind a confirm): the list again, without it. */
export async function deleteSavedFromButton(action: Action, deps: Services): Promise<Reply> {
  const { ref, login, team } = await fromButton(deps, action);
  const deleted = await deps.attacks.deleteSaved(action.actor, login, team, ref.name);
  if (deleted === 'not allowed') throw new UserInputError(savedAttackWords.mayNotChange(teamName(team)));
  if (deleted === 'busy') throw new UserInputError(savedAttackWords.busy(ref.name));
  const notice =
    deleted === 'deleted'
      ? savedAttackWords.deleted(ref.name, teamName(team))
      : savedAttackWords.alreadyDeleted(ref.name, teamName(team));
  const list = await listReply(deps, team, notice);
  return { kind: 'message', message: list, replaceOriginal: true };
}
