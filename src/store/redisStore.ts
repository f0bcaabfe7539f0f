import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createClient } from '@redis/client';
import { StoreUnavailableError } from './errors.ts';
import type { KeyValueStore, Update } from './keyValue.ts';
import { claimScript, compareAndSetScript, forgetGoneScript, incrementScript, releaseScript } from './redisScripts.ts';

export interface RedisStoreOptions {
  /** How long opening a connection may take. */
  connectTimeoutMs?: number;
  /** How long a call waits for the client to be connected (at start, or while it reconnects) before it fails. */
  readyWaitMs?: number;
  /** How long a call waits for Redis to answer before it fails. */
  commandTimeoutMs?: number;
  /** How long /readyz waits for PONG. */
  pingTimeoutMs?: number;
}

/** Members read per ZRANGEBYLEX while listing. */
const pageSize = 500;
/** How often index members of values that expired are removed. */
const sweepEveryMs = 60_000;

/** How many times an update reads again after another writer changed the value under it. */
const updateAttempts = 10;

/**
 * Values as Keyv 5 stored them (before Faultline had its own stores): JSON of `{ value, expires }`
 * where any string that starts with `:` carries one more `:` in front. Redis keeps this layout, so
 * a value written by an older replica reads the same; the SQLite store imports its rows once.
 */
interface KeyvRecord {
  value: unknown;
  expires?: number | undefined;
}

function encodeKeyv(record: KeyvRecord): string {
  return JSON.stringify(record, (_key, value: unknown) =>
    typeof value === 'string' && value.startsWith(':') ? `:${value}` : value,
  );
}

export function decodeKeyv(text: string): KeyvRecord {
  return JSON.parse(text, (_key, value: unknown) =>
    typeof value === 'string' && value.startsWith(':') ? value.slice(1) : value,
  ) as KeyvRecord;
}

/** A value as stored: Keyv's layout, with its time to live and when that ends. */
function encode(value: unknown, ttlMs: number | undefined): { text: string; ms?: number; expires?: number } {
  if (ttlMs === undefined) return { text: encodeKeyv({ value }) };
  const ms = Math.max(1, Math.round(ttlMs));
  const expires = Date.now() + ms;
  return { text: encodeKeyv({ value, expires }), ms, expires };
}

const escapeGlob = (text: string) => text.replace(/[*?[\]\\]/g, '\\$&');

/**
 * The store on Redis, shared by replicas. Values sit where Keyv put them (`<namespace>::<key>`,
 * Keyv's JSON layout, expiry as the key's TTL), so data of earlier versions reads the same.
 * Beside them, a sorted set of every key (all score 0, so ordered by key) answers a prefix
 * listing with ZRANGEBYLEX in time proportional to what it returns, and a second sorted set
 * scored by expiry lets a sweep drop members of values Redis expired. A value and its members
 * are written in one MULTI.
 *
 * Failures are loud: commands are not queued while disconnected, a call waits at most
 * `readyWaitMs` for a connection and `commandTimeoutMs` for an answer, and every failure rejects
 * with StoreUnavailableError. The client reconnects by itself when Redis is back.
 */
export function createRedisStore(url: string, namespace: string, options: RedisStoreOptions = {}): KeyValueStore {
  const { connectTimeoutMs = 5_000, readyWaitMs = 1_000, commandTimeoutMs = 2_000, pingTimeoutMs = 1_000 } = options;
  const client = createClient({
    url,
    disableOfflineQueue: true,
    socket: { connectTimeout: connectTimeoutMs, reconnectStrategy: (retries) => Math.min(50 * 2 ** retries, 2_000) },
  });
  // The client reports each failed (re)connection as an event; the calls made meanwhile reject
  // with StoreUnavailableError, and /readyz turns 503.
  client.on('error', () => {});
  const connecting = client.connect().catch(() => undefined);

  const valuePrefix = `${namespace}::`;
  const valueKey = (key: string) => valuePrefix + key;
  const keysIndex = `${namespace}:keys`;
  const expiryIndex = `${namespace}:expiries`;
  const indexedMarker = `${namespace}:keys-indexed`;
  const claimKey = (key: string) => `${namespace}:claims:${key}`;
  const counterKey = (key: string) => `${namespace}:counters:${key}`;

  /** Puts keys written before the index existed (by Keyv-based versions) into it, once per namespace. */
  async function indexExistingKeys(): Promise<void> {
    if (await client.exists(indexedMarker)) return;
    for await (const keys of client.scanIterator({ MATCH: `${escapeGlob(valuePrefix)}*`, COUNT: 1_000 })) {
      if (!keys.length) continue;
      const ttls = await Promise.all(keys.map((key) => client.pTTL(key)));
      const now = Date.now();
      const multi = client.multi();
      keys.forEach((key, index) => {
        const member = key.slice(valuePrefix.length);
        multi.zAdd(keysIndex, { score: 0, value: member });
        if (ttls[index]! > 0) multi.zAdd(expiryIndex, { score: now + ttls[index]!, value: member });
      });
      await multi.exec();
    }
    await client.set(indexedMarker, new Date().toISOString());
  }
  let indexed: Promise<void> | undefined;

  // One wait for the connection, shared by every call made meanwhile (not a listener each).
  let ready: Promise<unknown> | undefined;
  const whenReady = () =>
    (ready ??= once(client, 'ready', { signal: AbortSignal.timeout(readyWaitMs) }).finally(() => {
      ready = undefined;
    }));

  async function run<T>(work: () => Promise<T>): Promise<T> {
    try {
      if (!client.isReady) await whenReady();
      await within(
        commandTimeoutMs,
        (indexed ??= indexExistingKeys().catch((error: unknown) => {
          indexed = undefined;
          throw error;
        })),
      );
      return await within(commandTimeoutMs, work());
    } catch (error) {
      throw new StoreUnavailableError('Redis', { cause: error });
    }
  }

  const forgetGone = (members: string[]) =>
    client.eval(forgetGoneScript, { keys: [keysIndex, expiryIndex], arguments: [valuePrefix, ...members] });

  async function sweep(): Promise<void> {
    for (let round = 0; round < 10; round++) {
      const due = await client.zRangeByScore(expiryIndex, '-inf', Date.now(), {
        LIMIT: { offset: 0, count: pageSize },
      });
      if (due.length) await forgetGone(due);
      if (due.length < pageSize) return;
    }
  }
  const sweeping = setInterval(() => {
    if (client.isReady) void run(sweep).catch(() => undefined);
  }, sweepEveryMs);
  sweeping.unref();

  return {
    kind: 'redis',
    async get<T>(key: string) {
      const text = await run(() => client.get(valueKey(key)));
      return text === null ? undefined : (decodeKeyv(text).value as T | undefined);
    },
    async set<T>(key: string, value: T, ttlMs?: number) {
      if (value === undefined) throw new TypeError(`Cannot store undefined under ${key.split(':')[0]}`);
      const { text, ms, expires } = encode(value, ttlMs);
      await run(async () => {
        const multi = client.multi();
        if (ms === undefined) multi.set(valueKey(key), text).zRem(expiryIndex, key);
        else
          multi
            .set(valueKey(key), text, { expiration: { type: 'PX', value: ms } })
            .zAdd(expiryIndex, { score: expires!, value: key });
        await multi.zAdd(keysIndex, { score: 0, value: key }).exec();
      });
    },
    async delete(key: string) {
      const [deleted] = await run(() =>
        client.multi().del(valueKey(key)).zRem(keysIndex, key).zRem(expiryIndex, key).exec(),
      );
      return Number(deleted) > 0;
    },
    // Compare-and-set: what was read is written over only if nobody wrote it meanwhile, else read again.
    async update<T>(key: string, change: (current: T | undefined) => Update<T> | undefined) {
      for (let attempt = 0; attempt < updateAttempts; attempt++) {
        const text = await run(() => client.get(valueKey(key)));
        const current = text === null ? undefined : (decodeKeyv(text).value as T | undefined);
        const next = change(current);
        if (!next) return current;
        const entries = [{ key, value: next.value, ttlMs: next.ttlMs }, ...(next.beside ?? [])].flatMap((entry) => {
          if (entry.value === undefined) return [entry.key, '', '', ''];
          const { text, ms, expires } = encode(entry.value, entry.ttlMs);
          return [entry.key, text, String(ms ?? ''), String(expires ?? '')];
        });
        const written = await run(() =>
          client.eval(compareAndSetScript, {
            keys: [keysIndex, expiryIndex],
            arguments: [valuePrefix, key, text ?? '', ...entries],
          }),
        );
        if (Number(written) === 1) return next.value;
      }
      throw new StoreUnavailableError('Redis', {
        cause: new Error(`${key.split(':')[0]} was changed by others ${updateAttempts} times in a row`),
      });
    },
    async claim(key: string, ttlMs: number, owner = randomUUID()) {
      const ms = Math.max(1, Math.round(ttlMs));
      const taken = await run(() =>
        client.eval(claimScript, { keys: [claimKey(key)], arguments: [owner, String(ms)] }),
      );
      return Number(taken) === 1;
    },
    async release(key: string, owner: string) {
      const released = await run(() => client.eval(releaseScript, { keys: [claimKey(key)], arguments: [owner] }));
      return Number(released) === 1;
    },
    async increment(key: string, ttlMs: number, now: number) {
      const ms = Math.max(1, Math.round(ttlMs));
      const [count, endsAt] = (await run(() =>
        client.eval(incrementScript, { keys: [counterKey(key)], arguments: [String(now), String(ms)] }),
      )) as [number, number];
      return { count: Number(count), endsAt: Number(endsAt) };
    },
    async counter(key: string, now: number) {
      const [count, endsAt] = await run(() => client.hmGet(counterKey(key), ['count', 'ends']));
      if (!count || !endsAt || Number(endsAt) <= now) return undefined;
      return { count: Number(count), endsAt: Number(endsAt) };
    },
    async *entries<T>(prefix: string): AsyncIterable<[string, T]> {
      // 0xff never occurs in UTF-8, so `[prefix` to `(prefix\xff` is exactly the keys that start with it.
      const max = Buffer.concat([Buffer.from(`(${prefix}`), Buffer.from([0xff])]);
      let min = `[${prefix}`;
      for (;;) {
        const members = await run(() =>
          client.zRangeByLex(keysIndex, min, max, { LIMIT: { offset: 0, count: pageSize } }),
        );
        if (!members.length) return;
        const texts = await run(() => client.mGet(members.map(valueKey)));
        const gone: string[] = [];
        for (const [index, member] of members.entries()) {
          const text = texts[index];
          if (text === null || text === undefined) gone.push(member);
          else yield [member, decodeKeyv(text).value as T];
        }
        // Values that expired (or were deleted outside this store): their members go too.
        if (gone.length) await run(() => forgetGone(gone)).catch(() => undefined);
        if (members.length < pageSize) return;
        min = `(${members.at(-1)!}`;
      }
    },
    async ping() {
      try {
        const deadline = Date.now() + pingTimeoutMs;
        if (!client.isReady) await once(client, 'ready', { signal: AbortSignal.timeout(pingTimeoutMs) });
        return (await within(Math.max(1, deadline - Date.now()), client.ping())) === 'PONG';
      } catch {
        return false;
      }
    },
    async close() {
      clearInterval(sweeping);
      if (client.isReady) await client.close().catch(() => client.destroy());
      else if (client.isOpen) client.destroy();
      await connecting;
    },
  };
}

/** `work`, or a rejection once `ms` pass without an answer. */
async function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`No answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
