import type { Logger } from '../logger.ts';
import type { TeamEntry } from '../client/index.ts';
import { audit } from '../audit.ts';
import { type Actor, type Login, samePerson } from '../store/sessions.ts';
import { mayRunAttacks } from './access.ts';
import type { KeyValueStore } from '../store/keyValue.ts';
import { keys } from '../store/keys.ts';
import { withLock } from '../store/leases.ts';
import type { Who } from './events.ts';
import { requestWords, type AttackRequest } from './request.ts';

/**
 * A whole attack kept under a name for a team (`save`, the builder's Save as), to run again with
 * `run <name>` or a game-day step. It keeps the words of the checked attack rather than the
 * checked result: each run reads them again against the team's metadata as it is then, so a
 * type or flag the platform no longer has is refused at the run instead of sent.
 */
export interface SavedAttack {
  /** As the person typed it; names are unique per team whatever their case. */
  name: string;
  teamId: string;
  /** The words after `attack` (type, its flags, target flags, guards), without `--team` and `--yes`. */
  words: string[];
  /** Who saved it under this name, and when. */
  savedBy: Who;
  savedAt: string;
  /** Who last changed what it runs, and when: a save under the name is that change today. */
  changedBy: Who;
  changedAt: string;
  /**
   * Which save of the name in its team this is: 1 for the first ever, counting on past a delete,
   * so a change is seen by its number. 0 for one kept before versions were counted.
   */
  version: number;
}

/** One person, as a saved attack names them. */
const whoOf = (by: Who): Who => ({ workspaceId: by.workspaceId, userId: by.userId, userName: by.userName });

/** A kept saved attack as this release reads it: one kept before versions is version 0, never changed since saved. */
function current(kept: Partial<SavedAttack> & Pick<SavedAttack, 'name' | 'teamId' | 'words' | 'savedBy' | 'savedAt'>) {
  return {
    ...kept,
    changedBy: kept.changedBy ?? kept.savedBy,
    changedAt: kept.changedAt ?? kept.savedAt,
    version: kept.version ?? 0,
  } satisfies SavedAttack;
}

/** A name a saved attack may have: a word a person can type after `run`. */
export const savedNamePattern = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$/;

/** The one spelling of a name its key is kept under, so `Web-CPU` and `web-cpu` are the same name. */
const nameKey = (name: string) => name.toLowerCase();

/** The words a saved attack keeps of a checked request: its team and `--yes` belong to each run. */
export function savedWords(request: AttackRequest): string[] {
  return requestWords({ ...request, team: undefined, yes: false });
}

/** An attack's words without its guards (a plan step adds its own to the saved attack's). */
function withoutGuards(words: readonly string[]): string {
  return words.filter((word, i) => word !== '--guard' && words[i - 1] !== '--guard').join('\u0000');
}

/** Whether two attacks' words run the same attack, whatever guards either adds. */
export const sameAttackWords = (a: readonly string[], b: readonly string[]) => withoutGuards(a) === withoutGuards(b);

/**
 * Whether the person may save, replace and delete the team's saved attacks: they need the run
 * privilege on it, read from their own login's entry for the team, as their own starts are.
 */
export function mayChangeSaved(login: Login, teamId: string): boolean {
  const own = login.session.teams.find((t) => t.identifier === teamId);
  return own !== undefined && mayRunAttacks(own);
}

/**
 * Saves a checked attack for the team under a name; a name the team has already, or one being
 * saved at this moment, is refused, and so is a person without the run privilege on the team.
 */
export async function saveAttack(
  deps: { saved: SavedAttacks; logger: Logger },
  actor: Actor,
  login: Login,
  team: TeamEntry,
  name: string,
  request: AttackRequest,
): Promise<{ saved: SavedAttack } | { refused: 'exists' | 'busy' | 'not allowed'; existing?: string }> {
  if (!mayChangeSaved(login, team.identifier)) return { refused: 'not allowed' };
  const result = await deps.saved.save(team.identifier, name, request, actor);
  if (result.outcome === 'exists') return { refused: 'exists', existing: result.existing };
  if (result.outcome !== 'saved') return { refused: result.outcome };
  const { saved } = result;
  audit(deps.logger, 'attack_saved', actor, {
    platformUser: login.session.identifier,
    team: team.identifier,
    saved: saved.name,
    version: saved.version,
    words: saved.words,
  });
  return { saved };
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

/** Where a saved attack was seen before it changed: what the refusal says of it. */
export type ChangedSince = { kind: 'unseen' } | { kind: 'list' } | { kind: 'step'; position: number };

/** Why the run may not take this version of the saved attack, if it may not. */
async function changedSince(store: SavedAttacks, saved: SavedAttack, run: SavedRun): Promise<ChangedSince | undefined> {
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
      const seen = await store.seenVersion(saved.teamId, saved.name, run.by);
      return seen === saved.version ? undefined : { kind: 'unseen' };
    }
  }
}

/**
 * The team's saved attack by name, as a run may take it (see SavedRun): `changed` says where it
 * was seen before it changed, and then nothing may start; `missing` gives the names the team has.
 */
export async function savedForRun(
  deps: { saved: SavedAttacks },
  teamId: string,
  name: string,
  run: SavedRun,
): Promise<{ saved: SavedAttack; changed: ChangedSince | undefined } | { missing: string[] }> {
  const saved = await deps.saved.get(teamId, name);
  if (!saved) return { missing: (await deps.saved.list(teamId)).map((s) => s.name) };
  return { saved, changed: await changedSince(deps.saved, saved, run) };
}

/**
 * Deletes the team's saved attack by name, for a person with the run privilege on the team (the
 * store keeps its version number), and says so in the audit log.
 */
export async function deleteSaved(
  deps: { saved: SavedAttacks; logger: Logger },
  actor: Actor,
  login: Login,
  team: TeamEntry,
  name: string,
): Promise<'deleted' | 'missing' | 'busy' | 'not allowed'> {
  if (!mayChangeSaved(login, team.identifier)) return 'not allowed';
  const result = await deps.saved.delete(team.identifier, name);
  if (result.outcome === 'deleted')
    audit(deps.logger, 'saved_attack_deleted', actor, {
      platformUser: login.session.identifier,
      team: team.identifier,
      saved: result.deleted.name,
      version: result.deleted.version,
      words: result.deleted.words,
      savedBy: result.deleted.changedBy.userId,
    });
  return result.outcome;
}

/** Each team's saved attacks, in the store. */
export class SavedAttacks {
  readonly #store: KeyValueStore;
  readonly #now: () => number;

  constructor(store: KeyValueStore, now: () => number) {
    this.#store = store;
    this.#now = now;
  }

  /**
   * Saves an attack under a name new to its team, as the name's next version: `exists` (and
   * nothing changes, with the name as it was saved) when the team has one by that name, whatever
   * its case, `busy` when someone saves or deletes
   * that very name at this moment.
   */
  async save(
    teamId: string,
    name: string,
    request: AttackRequest,
    by: Who,
  ): Promise<{ outcome: 'saved'; saved: SavedAttack } | { outcome: 'exists'; existing: string } | { outcome: 'busy' }> {
    const key = keys.savedAttack.key(teamId, nameKey(name));
    return this.#locked(teamId, name, async () => {
      const existing = await this.#store.get<SavedAttack>(key);
      if (existing) return { outcome: 'exists' as const, existing: existing.name };
      const version = ((await this.#store.get<number>(keys.savedAttackVersion.key(teamId, nameKey(name)))) ?? 0) + 1;
      const at = new Date(this.#now()).toISOString();
      const saved: SavedAttack = {
        name,
        teamId,
        words: savedWords(request),
        savedBy: whoOf(by),
        savedAt: at,
        changedBy: whoOf(by),
        changedAt: at,
        version,
      };
      // The number first: a save that stops halfway leaves a gap, never a number given twice.
      await this.#store.set(keys.savedAttackVersion.key(teamId, nameKey(name)), version, keys.savedAttackVersion.ttlMs);
      await this.#store.set(key, saved, keys.savedAttack.ttlMs);
      return { outcome: 'saved' as const, saved };
    });
  }

  /** The team's saved attack by that name, whatever its case. */
  async get(teamId: string, name: string): Promise<SavedAttack | undefined> {
    const kept = await this.#store.get<SavedAttack>(keys.savedAttack.key(teamId, nameKey(name)));
    return kept && current(kept);
  }

  /** Every saved attack of the team, by name. */
  async list(teamId: string): Promise<SavedAttack[]> {
    const found: SavedAttack[] = [];
    for await (const [, saved] of this.#store.entries<SavedAttack>(keys.savedAttack.ofTeam(teamId)))
      found.push(current(saved));
    return found.sort((a, b) => nameKey(a.name).localeCompare(nameKey(b.name)));
  }

  /**
   * Deletes the team's saved attack by that name; its version number stays, so one saved again
   * under the name is a new version. `missing` when there was none, `busy` as for a save.
   */
  async delete(
    teamId: string,
    name: string,
  ): Promise<{ outcome: 'deleted'; deleted: SavedAttack } | { outcome: 'missing' | 'busy' }> {
    return this.#locked(teamId, name, async () => {
      const deleted = await this.get(teamId, name);
      if (!deleted) return { outcome: 'missing' as const };
      const versionKey = keys.savedAttackVersion.key(teamId, nameKey(name));
      // One kept before versions (0) leaves 1 behind: what is saved next is version 2, a change.
      const last = Math.max((await this.#store.get<number>(versionKey)) ?? 0, deleted.version, 1);
      await this.#store.set(versionKey, last, keys.savedAttackVersion.ttlMs);
      await this.#store.delete(keys.savedAttack.key(teamId, nameKey(name)));
      return { outcome: 'deleted' as const, deleted };
    });
  }

  /** The last version of the team's saved attack by that name the person saw (previewed or ran), if any. */
  seenVersion(teamId: string, name: string, by: Pick<Who, 'workspaceId' | 'userId'>): Promise<number | undefined> {
    return this.#store.get<number>(keys.savedAttackSeen.key(teamId, nameKey(name), by));
  }

  /** The person saw (previewed or ran) that version of the team's saved attack by that name. */
  markSeen(teamId: string, name: string, by: Pick<Who, 'workspaceId' | 'userId'>, version: number): Promise<void> {
    return this.#store.set(keys.savedAttackSeen.key(teamId, nameKey(name), by), version, keys.savedAttackSeen.ttlMs);
  }

  /** Runs `work` while holding the name in its team, or answers `busy` when someone else holds it. */
  async #locked<T>(teamId: string, name: string, work: () => Promise<T>): Promise<T | { outcome: 'busy' }> {
    const held = await withLock(
      this.#store,
      keys.savedAttackLock.key(teamId, nameKey(name)),
      keys.savedAttackLock.ttlMs,
      work,
    );
    return held === 'busy' ? { outcome: 'busy' } : held.done;
  }
}
