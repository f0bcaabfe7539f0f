import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Keyv from 'keyv';
import KeyvSqlite from '@keyv/sqlite';
import KeyvRedis from '@keyv/redis';

/** The one persistent map everything stateful goes through: sessions, cards, poller state, game days. */
export interface KeyValueStore {
  get<T>(key: string): Promise<T | undefined>;
  /** `ttlMs` undefined keeps the value until it is deleted. */
  set<T>(key: string, value: T, ttlMs?: number): Promise<void>;
  delete(key: string): Promise<boolean>;
  /**
   * Takes `key` for `ttlMs` if nobody holds it: true for the one caller that got it. With an
   * `owner`, also true (and the hold renewed) when that owner already holds it: a lease. Atomic
   * across replicas on Redis; within the process on SQLite and memory, which serve one process.
   */
  claim(key: string, ttlMs: number, owner?: string): Promise<boolean>;
  /** Gives a claim back early, e.g. when the work it guarded failed before it did anything. */
  release(key: string): Promise<void>;
  /** Every entry whose key starts with `prefix`. */
  entries<T>(prefix: string): AsyncIterable<[string, T]>;
  /** True when the backing store answers; used by /readyz. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
  readonly kind: 'sqlite' | 'redis' | 'memory';
}

export function createKeyValueStore(url: string, namespace = 'faultline'): KeyValueStore {
  const kind = url.startsWith('sqlite://') ? 'sqlite' : url.startsWith('memory://') ? 'memory' : 'redis';
  let keyv: Keyv;
  let redis: KeyvRedis<unknown> | undefined;
  if (kind === 'sqlite') {
    const file = resolve(url.slice('sqlite://'.length));
    mkdirSync(dirname(file), { recursive: true });
    keyv = new Keyv({ store: new KeyvSqlite({ uri: `sqlite://${file}`, busyTimeout: 5_000 }), namespace });
  } else if (kind === 'redis') {
    redis = new KeyvRedis(url);
    keyv = new Keyv({ store: redis, namespace, useKeyPrefix: false });
  } else {
    keyv = new Keyv({ namespace });
  }
  // Keyv reports connection problems as events; the calls themselves reject, which callers handle.
  keyv.on('error', () => {});
  const localClaims = new Map<string, { owner: string; until: number }>();
  // Claims are plain Redis strings, kept outside Keyv's `<namespace>::` keys: Keyv reads every
  // value there as JSON, and listing entries would stop at the first claim.
  const claimKey = (key: string) => `${namespace}:claims:${key}`;

  return {
    kind,
    async get<T>(key: string) {
      return (await keyv.get(key)) as T | undefined;
    },
    async set<T>(key: string, value: T, ttlMs?: number) {
      const ok = await keyv.set(key, value, ttlMs);
      if (ok === false) throw new Error(`The store did not save ${key.split(':')[0]}`);
    },
    async delete(key: string) {
      return keyv.delete(key);
    },
    async claim(key: string, ttlMs: number, owner = randomUUID()) {
      const ms = Math.max(1, Math.round(ttlMs));
      if (redis) {
        const client = await redis.getClient();
        const redisKey = claimKey(key);
        if ((await client.set(redisKey, owner, { NX: true, PX: ms })) === 'OK') return true;
        // Only the holder ever renews, so reading then extending cannot steal another's hold.
        if ((await client.get(redisKey)) !== owner) return false;
        await client.pExpire(redisKey, ms);
        return true;
      }
      const now = Date.now();
      for (const [held, claim] of localClaims) if (claim.until <= now) localClaims.delete(held);
      const current = localClaims.get(key);
      if (current && current.owner !== owner) return false;
      localClaims.set(key, { owner, until: now + ms });
      return true;
    },
    async release(key: string) {
      if (redis) await (await redis.getClient()).del(claimKey(key));
      else localClaims.delete(key);
    },
    async *entries<T>(prefix: string): AsyncIterable<[string, T]> {
      if (!keyv.iterator) throw new Error(`The ${kind} store cannot list entries`);
      for await (const [key, value] of keyv.iterator(namespace) as AsyncIterable<[string, T]>) {
        if (typeof key === 'string' && key.startsWith(prefix) && value !== undefined) yield [key, value];
      }
    },
    async ping() {
      // A Redis client that lost its server queues commands while it reconnects; bound the wait.
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), 1_000);
      });
      try {
        return await Promise.race([keyv.get('readiness-probe').then(() => true, () => false), timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
    async close() {
      await keyv.disconnect();
    },
  };
}
