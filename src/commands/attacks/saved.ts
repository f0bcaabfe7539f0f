import { z } from 'zod';
import type { TeamEntry } from '../../client/index.ts';
import type { Services } from '../../services.ts';
import type { Who } from '../../attacks/events.ts';
import { teamName } from '../../attacks/access.ts';
import type { AttackRequest } from '../../attacks/request.ts';
import {
  mayChangeSaved,
  sameAttackWords,
  samePerson,
  savedNamePattern,
  type SavedAttack,
} from '../../attacks/saved.ts';
import { audit } from '../../audit.ts';
import { UserInputError } from '../../errors.ts';
import type { Actor, Login } from '../../store/sessions.ts';
import {
  type ChangedSince,
  parseSavedRef,
  savedAttacksMessage,
  savedAttackWords,
} from '../../views/attacks/savedAttacks.ts';
import { checkAttackWords, resolveTeam } from './attack.ts';
import { checkChannel, previewOrStart } from './preview.ts';
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

/** Deletes the team's saved attack by name, for a person with the run privilege on the team; the store keeps its version number. */
async function deleteSavedAttack(deps: Services, actor: Actor, login: Login, team: TeamEntry, name: string) {
  if (!mayChangeSaved(login, team.identifier)) throw new UserInputError(savedAttackWords.mayNotChange(teamName(team)));
  const result = await deps.attacks.saved.delete(team.identifier, name);
  if (result.outcome === 'busy') throw new UserInputError(savedAttackWords.busy(name));
  if (result.outcome === 'deleted')
    audit(deps.logger, 'saved_attack_deleted', actor, {
      platformUser: login.session.identifier,
      team: team.identifier,
      saved: result.deleted.name,
      version: result.deleted.version,
      words: result.deleted.words,
      savedBy: result.deleted.changedBy.userId,
    });
  return result.outcome === 'deleted';
}

/**
 * Which version of a saved attack a run may take:
 * - `preview`: any, shown to the person before anything starts;
 * - `unattended` (`run --yes`, the Run saved attack step): only one the person has seen: they
 *   saved it, or previewed or ran that version, or nobody changed it since it was first saved;
 * - `shown`: the version a list showed (its Run button; one from before versions says none, and previews);
 * - `planned`: the version a plan step was planned with (its words, for a step planned before
 *   versions were counted).
 */
export type SavedRun =
  | { kind: 'preview' }
  | { kind: 'unattended'; by: Pick<Who, 'workspaceId' | 'userId'> }
  | { kind: 'shown'; version: number }
  | { kind: 'planned'; version: number | undefined; words: readonly string[]; position: number };

/** Why the run may not take this version of the saved attack, if it may not: what the refusal says of it. */
async function changedSince(deps: Services, saved: SavedAttack, run: SavedRun): Promise<ChangedSince | undefined> {
  switch (run.kind) {
    case 'preview':
      return undefined;
    case 'shown':
      return run.version === saved.version ? undefined : { kind: 'list' };
    case 'planned': {
      const same = run.version === undefined ? sameAttackWords(saved.words, run.words) : run.version === saved.version;
      return same ? undefined : { kind: 'step', position: run.position };
    }
    case 'unattended': {
      if (saved.version === 1 || samePerson(saved.changedBy, run.by)) return undefined;
      const seen = await deps.attacks.saved.seenVersion(saved.teamId, saved.name, run.by);
      return seen === saved.version ? undefined : { kind: 'unseen' };
    }
  }
}

/** The person saw that version of the saved attack (a preview of it, or a run of it): theirs to start at once, until it changes. */
export async function sawSavedAttack(deps: Services, saved: SavedAttack, by: Pick<Who, 'workspaceId' | 'userId'>) {
  await deps.attacks.saved.markSeen(saved.teamId, saved.name, by, saved.version);
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
  const saved = await deps.attacks.saved.get(team.identifier, name);
  const cmd = deps.command;
  if (!saved) {
    const names = (await deps.attacks.saved.list(team.identifier)).map((s) => s.name);
    throw new UserInputError(savedAttackWords.notFound(name, teamName(team), closestWord(name, names), cmd));
  }
  const since = await changedSince(deps, saved, run);
  if (since) throw new SavedAttackChangedError(savedAttackWords.changed(saved, teamName(team), since, cmd), saved);
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
  const channel = await checkChannel(deps, request.actor.channelId);
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
    channel,
  });
  await sawSavedAttack(deps, saved, request.actor);
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
  const deleted = await deleteSavedAttack(deps, action.actor, login, team, ref.name);
  const notice = deleted
    ? savedAttackWords.deleted(ref.name, teamName(team))
    : savedAttackWords.alreadyDeleted(ref.name, teamName(team));
  const list = await listReply(deps, team, notice);
  return { kind: 'message', message: list, replaceOriginal: true };
}
