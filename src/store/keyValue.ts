import { resolve } from 'node:path';
import { createRedisStore } from './redisStore.ts';
import { createSqliteStore } from './sqliteStore.ts';

export { StoreUnavailableError } from './errors.ts';

/**
 * The one persistent map everything stateful goes through: sessions, cards, poller state, game
 * days. Every call rejects with StoreUnavailableError when the store cannot be reached: a write
 * is never silently lost, and a read never answers "nothing there" for "could not ask".
 */
export interface KeyValueStore {
  get<T>(key: string): Promise<T | undefined>;
  /** `ttlMs` undefined keeps the value until it is deleted. */
  set<T>(key: string, value: T, ttlMs?: number): Promise<void>;
  delete(key: string): Promise<boolean>;
  /**
   * Changes the value under `key` in one atomic step: `change` gets it as stored (undefined when
   * there is none) and says what to write, or undefined to leave it. No other write to `key` comes
   * between the read and the write (a transaction on SQLite; on Redis a compare-and-set, with
   * `change` called again on what another writer left, a bounded number of times), so a writer
   * never saves over news it has not read. `change` may run more than once: it only computes.
   * Gives back the value as it stands afterwards.
   */
  update<T>(key: string, change: (current: T | undefined) => Update<T> | undefined): Promise<T | undefined>;
  /**
   * Takes `key` for `ttlMs` if nobody holds it: true for the one caller that got it. With an
   * `owner`, also true (and the hold renewed) when that owner already holds it: a lease. Atomic
   * (one script on Redis, one statement on SQLite) and durable like a value: a claim outlives the
   * process that took it, so a restart never takes again what was taken before it.
   */
  claim(key: string, ttlMs: number, owner?: string): Promise<boolean>;
  /**
   * Gives a claim back early (the work it guarded is done, or failed before it did anything),
   * but only while `owner` still holds it: a holder whose hold lapsed, and was taken by another,
   * never frees the other's. True when this owner's hold was given back. Atomic like `claim`.
   */
  release(key: string, owner: string): Promise<boolean>;
  /**
   * Adds one to the counter under `key` in one atomic step and says where it stands: the first
   * increment starts a window of `ttlMs` from `now`, and a window that has ended starts again at
   * one. Every caller of a burst gets a count of its own, so a limit checked on the answer cannot
   * be passed. `now` is the caller's clock, as the times a limit tells people are.
   */
  increment(key: string, ttlMs: number, now: number): Promise<Counted>;
  /** Where the counter under `key` stands at `now`, or undefined when no window is running. */
  counter(key: string, now: number): Promise<Counted | undefined>;
  /**
   * Every entry whose key starts with `prefix`, in key order. Costs what it returns: both stores
   * keep keys ordered, so listing the live cards never reads the finished ones.
   */
  entries<T>(prefix: string): AsyncIterable<[string, T]>;
  /** True when the backing store answers (a real round trip, bounded in time); used by /readyz. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
  readonly kind: 'sqlite' | 'redis' | 'memory';
}

/** What an update writes: the value, and entries made from it in the same step (a value of undefined deletes one). */
export interface Update<T> {
  value: T;
  ttlMs?: number | undefined;
  beside?: { key: string; value: unknown; ttlMs?: number | undefined }[] | undefined;
}

/** A counter's value and when its window ends (epoch ms). */
export interface Counted {
  count: number;
  endsAt: number;
}

export function createKeyValueStore(url: string, namespace = 'faultline'): KeyValueStore {
  if (url.startsWith('sqlite://'))
    return createSqliteStore(resolve(url.slice('sqlite://'.length)), namespace, 'sqlite');
  if (url.startsWith('memory://')) return createSqliteStore(':memory:', namespace, 'memory');
  return createRedisStore(url, namespace);
}
