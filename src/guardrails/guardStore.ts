import type { CardRecord } from '../attacks/cards.ts';
import type { KeyValueStore } from '../store/keyValue.ts';
import { keys } from '../store/keys.ts';
import { distinctGuards, type Guard, type GuardReading, type GuardSpec, guardFlag, guardKey } from './guards.ts';

/** What halting a guarded attack needs, and where to say so. */
export type GuardedAttack = Pick<
  CardRecord,
  'guid' | 'kind' | 'teamId' | 'teamName' | 'channel' | 'type' | 'createdAt' | 'startedBy' | 'lengthSeconds'
>;

/** An attack's guards as stored; a bare list is how they were kept before the attack was kept with them. */
type StoredAttackGuards = { attack: GuardedAttack; guards: Guard[] } | Guard[];

const guardsOf = (stored: StoredAttackGuards | undefined): Guard[] =>
  stored === undefined ? [] : Array.isArray(stored) ? stored : stored.guards;

/**
 * Where guards are kept: per attack and per game day (by its id, so they end with it), and the
 * last reading of each distinct guard, shared by everything it covers.
 */
export class GuardStore {
  readonly #store: KeyValueStore;

  constructor(store: KeyValueStore) {
    this.#store = store;
  }

  async forAttack(guid: string): Promise<Guard[]> {
    return guardsOf(await this.#store.get<StoredAttackGuards>(keys.attackGuards.key(guid)));
  }

  /**
   * Keeps an attack's guards with what halting it needs, written as soon as it is created: they
   * hold before its card is saved, and when its card could not be posted at all.
   */
  async setForAttack(attack: GuardedAttack, guards: Guard[]): Promise<void> {
    if (guards.length)
      await this.#store.set<StoredAttackGuards>(
        keys.attackGuards.key(attack.guid),
        { attack, guards },
        keys.attackGuards.ttlMs,
      );
  }

  /**
   * Adds guards to an attack's own (one it has already keeps its owner), so they cover it for as
   * long as it lives, whatever happens to where they came from.
   */
  async addForAttack(attack: GuardedAttack, guards: Guard[]): Promise<void> {
    const own = await this.forAttack(attack.guid);
    const all = distinctGuards([...own, ...guards]);
    if (all.length > own.length) await this.setForAttack(attack, all);
  }

  /** Every attack that has guards of its own, with them (the attack itself unless kept before it was). */
  async attackGuards(): Promise<{ guid: string; attack: GuardedAttack | undefined; guards: Guard[] }[]> {
    const found: { guid: string; attack: GuardedAttack | undefined; guards: Guard[] }[] = [];
    for await (const [key, stored] of this.#store.entries<StoredAttackGuards>(keys.attackGuards.prefix)) {
      found.push({
        guid: key.slice(keys.attackGuards.prefix.length),
        attack: Array.isArray(stored) ? undefined : stored.attack,
        guards: guardsOf(stored),
      });
    }
    return found;
  }

  async dropForAttack(guid: string): Promise<void> {
    await this.#store.delete(keys.attackGuards.key(guid));
  }

  /** A game day's guards in the order they were added. */
  async forGameDay(id: string): Promise<Guard[]> {
    // Kept as one list per game day before each guard had its own key.
    const listed = (await this.#store.get<Guard[]>(keys.gameDayGuard.list(id))) ?? [];
    const added: { guard: Guard; addedAt: number }[] = [];
    for await (const [, entry] of this.#store.entries<{ guard: Guard; addedAt: number }>(
      keys.gameDayGuard.ofGameDay(id),
    ))
      added.push(entry);
    return distinctGuards([...listed, ...added.sort((x, y) => x.addedAt - y.addedAt).map((entry) => entry.guard)]);
  }

  /**
   * Adds guards to a game day (one already there keeps its owner), each under a key of its own,
   * so two people adding guards at once both keep theirs.
   */
  async addToGameDay(id: string, guards: Guard[]): Promise<Guard[]> {
    const kept = new Set((await this.forGameDay(id)).map((g) => guardKey(g.spec)));
    const now = Date.now();
    for (const [index, guard] of guards.entries()) {
      const key = guardKey(guard.spec);
      if (kept.has(key)) continue;
      kept.add(key);
      await this.#store.set(keys.gameDayGuard.key(id, key), { guard, addedAt: now + index }, keys.gameDayGuard.ttlMs);
    }
    return this.forGameDay(id);
  }

  /**
   * Removes the game day's guards written as `flags` (`a:1234567`, whatever their integration),
   * from the one list kept before too; gives those removed.
   */
  async removeFromGameDay(id: string, flags: readonly string[]): Promise<Guard[]> {
    const removed = (await this.forGameDay(id)).filter((g) => flags.includes(guardFlag(g.spec)));
    if (!removed.length) return [];
    const gone = new Set(removed.map((g) => guardKey(g.spec)));
    for (const key of gone) await this.#store.delete(keys.gameDayGuard.key(id, key));
    const listed = await this.#store.get<Guard[]>(keys.gameDayGuard.list(id));
    if (listed?.some((g) => gone.has(guardKey(g.spec))))
      await this.#store.set(
        keys.gameDayGuard.list(id),
        listed.filter((g) => !gone.has(guardKey(g.spec))),
        keys.gameDayGuard.ttlMs,
      );
    return removed;
  }

  reading(spec: GuardSpec): Promise<GuardReading | undefined> {
    return this.#store.get<GuardReading>(keys.guardReading.key(guardKey(spec)));
  }

  async saveReading(spec: GuardSpec, reading: GuardReading): Promise<void> {
    await this.#store.set(keys.guardReading.key(guardKey(spec)), reading, keys.guardReading.ttlMs);
  }

  /** Every trip of a guard over an attack is acted on once: true for the one holder that acts. */
  claimTrip(spec: GuardSpec, guid: string, holder: string): Promise<boolean> {
    return this.#store.claim(keys.guardTrip.key(guardKey(spec), guid), keys.guardTrip.ttlMs, holder);
  }

  /** Gives a trip back when acting on it failed for a reason the next pass may not meet. */
  async releaseTrip(spec: GuardSpec, guid: string, holder: string): Promise<void> {
    await this.#store.release(keys.guardTrip.key(guardKey(spec), guid), holder);
  }
}
