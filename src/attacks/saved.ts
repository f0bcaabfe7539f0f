import { randomUUID } from 'node:crypto';
import type { KeyValueStore } from '../store/keyValue.ts';
import { keys } from '../store/keys.ts';
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
  savedBy: Who;
  savedAt: string;
}

/** A name a saved attack may have: a word a person can type after `run`. */
export const savedNamePattern = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$/;

/** The one spelling of a name its key is kept under, so `Web-CPU` and `web-cpu` are the same name. */
const nameKey = (name: string) => name.toLowerCase();

/** The words a saved attack keeps of a checked request: its team and `--yes` belong to each run. */
export function savedWords(request: AttackRequest): string[] {
  return requestWords({ ...request, team: undefined, yes: false });
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
   * Saves an attack under a name new to its team: `exists` (and nothing changes) when the team
   * has one by that name, `busy` when someone saves that very name at this moment.
   */
  async save(
    teamId: string,
    name: string,
    request: AttackRequest,
    by: Who,
  ): Promise<{ outcome: 'saved'; saved: SavedAttack } | { outcome: 'exists' | 'busy' }> {
    const key = keys.savedAttack.key(teamId, nameKey(name));
    const lock = keys.savedAttackLock.key(teamId, nameKey(name));
    const holder = randomUUID();
    if (!(await this.#store.claim(lock, keys.savedAttackLock.ttlMs, holder))) return { outcome: 'busy' };
    try {
      if (await this.#store.get<SavedAttack>(key)) return { outcome: 'exists' };
      const saved: SavedAttack = {
        name,
        teamId,
        words: savedWords(request),
        savedBy: { workspaceId: by.workspaceId, userId: by.userId, userName: by.userName },
        savedAt: new Date(this.#now()).toISOString(),
      };
      await this.#store.set(key, saved, keys.savedAttack.ttlMs);
      return { outcome: 'saved', saved };
    } finally {
      await this.#store.release(lock, holder);
    }
  }

  /** The team's saved attack by that name, whatever its case. */
  get(teamId: string, name: string): Promise<SavedAttack | undefined> {
    return this.#store.get<SavedAttack>(keys.savedAttack.key(teamId, nameKey(name)));
  }

  /** Every saved attack of the team, by name. */
  async list(teamId: string): Promise<SavedAttack[]> {
    const found: SavedAttack[] = [];
    for await (const [, saved] of this.#store.entries<SavedAttack>(keys.savedAttack.ofTeam(teamId))) found.push(saved);
    return found.sort((a, b) => nameKey(a.name).localeCompare(nameKey(b.name)));
  }

  /** True when there was one to delete. */
  delete(teamId: string, name: string): Promise<boolean> {
    return this.#store.delete(keys.savedAttack.key(teamId, nameKey(name)));
  }
}
