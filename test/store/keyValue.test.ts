import { randomUUID } from 'node:crypto';
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { createClient } from '@redis/client';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createKeyValueStore, type KeyValueStore } from '../../src/store/keyValue.ts';
import { dropRedisKeys } from '../support/redisKeys.ts';

const opened: KeyValueStore[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

function open(url: string, namespace = `kv-test-${randomUUID()}`): KeyValueStore {
  const store = createKeyValueStore(url, namespace);
  opened.push(store);
  return store;
}

async function list<T>(store: KeyValueStore, prefix: string): Promise<[string, T][]> {
  const found: [string, T][] = [];
  for await (const entry of store.entries<T>(prefix)) found.push(entry);
  return found;
}

/** Polls until `key` reads as nothing: how a test waits for a short TTL to run out. */
async function expired(store: KeyValueStore, key: string): Promise<void> {
  while ((await store.get(key)) !== undefined);
}

/** Adds one to the count under `key`, and keeps a note of the last count beside it. */
const countUp = (store: KeyValueStore, key: string) =>
  store.update<number>(key, (count = 0) => ({ value: count + 1, beside: [{ key: `${key}-note`, value: count + 1 }] }));

/**
 * `make` opens a store; `pair` two stores on the same data, as two replicas have them (the
 * memory store has no second process, so the same store twice).
 */
function behavesAsAKeyValueStore(make: () => KeyValueStore, pair: () => [KeyValueStore, KeyValueStore]) {
  it('updates a value in one step from what it holds, writes and deletes entries beside it, or leaves it', async () => {
    const store = make();
    await store.set('card:1-mark', 'old');
    expect(await store.update<{ n: number }>('card:1', (card) => (card ? undefined : { value: { n: 1 } }))).toEqual({
      n: 1,
    });
    expect(
      await store.update<{ n: number }>('card:1', (card) => ({
        value: { n: card!.n + 1 },
        ttlMs: 60_000,
        beside: [
          { key: 'card:1-mark', value: undefined },
          { key: 'card:1-seen', value: 'yes', ttlMs: 5 },
        ],
      })),
    ).toEqual({ n: 2 });
    expect(await store.update('card:1', () => undefined)).toEqual({ n: 2 });
    expect(await store.update('card:2', () => undefined)).toBeUndefined();
    await expired(store, 'card:1-seen');
    expect(await list(store, 'card:')).toEqual([['card:1', { n: 2 }]]);
  });

  it('loses no update when writers on two connections change one value at once', async () => {
    const [one, two] = pair();
    // Three writers on each connection at once, five times over: most reads are stale by their write.
    for (let round = 0; round < 5; round++)
      await Promise.all([one, one, one, two, two, two].map((store) => countUp(store, 'count')));
    expect(await one.get('count')).toBe(30);
    expect(await two.get('count-note')).toBe(30);
  });

  it('reads back what it stored, including strings that start with a colon, and deletes', async () => {
    const store = make();
    await store.set('card:1', { guid: '1', notes: [':memo:', 'plain'] });
    await store.set('team:W:U', ':colon first');
    expect(await store.get('card:1')).toEqual({ guid: '1', notes: [':memo:', 'plain'] });
    expect(await store.get('team:W:U')).toBe(':colon first');
    expect(await store.get('card:2')).toBeUndefined();
    expect(await store.delete('card:1')).toBe(true);
    expect(await store.delete('card:1')).toBe(false);
    expect(await store.get('card:1')).toBeUndefined();
  });

  it('lists exactly the keys under a prefix, in key order, over many pages', async () => {
    const store = make();
    const live = Array.from({ length: 1_234 }, (_, i) => `live:T1:${String(i).padStart(5, '0')}`);
    await Promise.all(live.map((key) => store.set(key, { key })));
    // Neighbours that must not show: a longer word with the same start, and the prefix without its colon.
    await store.set('live-count', 3);
    await store.set('livestock:1', 'no');
    await store.set('gameday:C1', 'running');
    await store.set('gameday-event:g1:0001', 'event');
    const found = await list<{ key: string }>(store, 'live:');
    expect(found.map(([key]) => key)).toEqual(live);
    expect(found.every(([key, value]) => value.key === key)).toBe(true);
    expect(await list(store, 'gameday:')).toEqual([['gameday:C1', 'running']]);
    expect(await list(store, 'live:T2:')).toEqual([]);
  });

  it('lists a listing longer than a page whole, in key order', async () => {
    const store = make();
    await Promise.all(Array.from({ length: 1_234 }, (_, i) => store.set(`live:T1:${String(i).padStart(5, '0')}`, i)));
    const result = await list<number>(store, 'live:');
    expect(result.map(([, value]) => value)).toEqual(Array.from({ length: 1_234 }, (_, i) => i));
  });

  it('forgets values when their time is up, for reads and listings alike', async () => {
    const store = make();
    await store.set('live:T1:short', 'short', 5);
    await store.set('live:T1:long', 'long', 60_000);
    await expired(store, 'live:T1:short');
    expect(await list(store, 'live:')).toEqual([['live:T1:long', 'long']]);
    expect(await store.delete('live:T1:short')).toBe(false);
    // Stored again without a TTL, it stays.
    await store.set('live:T1:short', 'again');
    expect(await list(store, 'live:T1:')).toEqual([
      ['live:T1:long', 'long'],
      ['live:T1:short', 'again'],
    ]);
  });

  it('keeps namespaces apart', async () => {
    const a = make();
    const b = make();
    await a.set('live:T1:a', 'a');
    expect(await b.get('live:T1:a')).toBeUndefined();
    expect(await list(b, 'live:')).toEqual([]);
  });

  it('gives a claim to one holder at a time, renews it for that holder, and frees it only for them', async () => {
    const store = make();
    expect(await store.claim('start:p1', 60_000, 'a')).toBe(true);
    expect(await store.claim('start:p1', 60_000, 'b')).toBe(false);
    expect(await store.claim('start:p1', 60_000)).toBe(false);
    expect(await store.claim('start:p1', 60_000, 'a')).toBe(true);
    expect(await store.release('start:p1', 'b')).toBe(false);
    expect(await store.release('start:p1', 'a')).toBe(true);
    expect(await store.claim('start:p1', 5, 'b')).toBe(true);
    // A lapsed hold passes to the next caller.
    while (!(await store.claim('start:p1', 60_000, 'c')));
    expect(await store.release('start:p1', 'b')).toBe(false);
  });

  it('counts every increment of a burst, in one window that starts again once it has ended', async () => {
    const store = make();
    const now = Date.now();
    const burst = await Promise.all(
      Array.from({ length: 60 }, () => store.increment('reset-email:a@b.test', 60_000, now)),
    );
    expect(burst.map((c) => c.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    expect(new Set(burst.map((c) => c.endsAt))).toEqual(new Set([now + 60_000]));
    expect(await store.counter('reset-email:a@b.test', now + 59_999)).toEqual({ count: 60, endsAt: now + 60_000 });
    expect(await store.counter('reset-email:a@b.test', now + 60_000)).toBeUndefined();
    expect(await store.counter('reset-email:other', now)).toBeUndefined();
    expect(await store.increment('reset-email:a@b.test', 60_000, now + 60_000)).toEqual({
      count: 1,
      endsAt: now + 120_000,
    });
  });

  it('answers a ping', async () => {
    expect(await make().ping()).toBe(true);
  });
}

describe('the memory store', () => {
  behavesAsAKeyValueStore(
    () => open('memory://'),
    () => {
      const store = open('memory://');
      return [store, store];
    },
  );
});

describe('the SQLite store', () => {
  const dir = mkdtempSync(join(tmpdir(), 'faultline-kv-'));
  const file = join(dir, 'shared.db');
  behavesAsAKeyValueStore(
    () => open(`sqlite://${file}`),
    () => {
      const namespace = `kv-test-${randomUUID()}`;
      return [open(`sqlite://${file}`, namespace), open(`sqlite://${file}`, namespace)];
    },
  );

  it('keeps what it stored across a restart', async () => {
    const path = join(dir, `${randomUUID()}.db`);
    const first = createKeyValueStore(`sqlite://${path}`);
    await first.set('live:T1:a', { guid: 'a' }, 60_000);
    await first.close();
    expect(await list(open(`sqlite://${path}`, 'faultline'), 'live:')).toEqual([['live:T1:a', { guid: 'a' }]]);
  });

  it('keeps its claims across a restart, so a Start clicked before a crash is not taken again', async () => {
    const path = join(dir, `${randomUUID()}.db`);
    const first = createKeyValueStore(`sqlite://${path}`);
    expect(await first.claim('start:p1', 60_000)).toBe(true);
    await first.close();
    const again = open(`sqlite://${path}`, 'faultline');
    expect(await again.claim('start:p1', 60_000)).toBe(false);
    expect(await again.claim('start:p2', 60_000)).toBe(true);
  });

  it('creates its file, its WAL and its journal readable by their owner only, and tightens an older file', async () => {
    const path = join(dir, `${randomUUID()}.db`);
    const store = open(`sqlite://${path}`, 'faultline');
    await store.set('live:T1:a', { guid: 'a' });
    const older = join(dir, `${randomUUID()}.db`);
    writeFileSync(older, '', { mode: 0o644 });
    open(`sqlite://${older}`, 'faultline');
    for (const made of [path, `${path}-wal`, `${path}-shm`, older])
      expect({ made, mode: (statSync(made).mode & 0o777).toString(8) }).toEqual({ made, mode: '600' });
  });

  it('takes over the rows @keyv/sqlite wrote, once, and drops those that had expired', async () => {
    const path = join(dir, `${randomUUID()}.db`);
    const legacy = new DatabaseSync(path);
    legacy.exec('CREATE TABLE keyv(key VARCHAR(255) PRIMARY KEY, value TEXT )');
    const insert = legacy.prepare('INSERT INTO keyv (key, value) VALUES (?, ?)');
    insert.run(
      'faultline:live:T1:g1',
      JSON.stringify({ value: { guid: 'g1', teamId: 'T1' }, expires: Date.now() + 60_000 }),
    );
    insert.run('faultline:team:W:U', JSON.stringify({ value: '::colon' }));
    insert.run('faultline:live:T1:old', JSON.stringify({ value: { guid: 'old' }, expires: Date.now() - 1 }));
    insert.run('other:live:T1:g2', JSON.stringify({ value: { guid: 'g2' } }));
    legacy.close();

    const store = open(`sqlite://${path}`, 'faultline');
    expect(await list(store, 'live:')).toEqual([['live:T1:g1', { guid: 'g1', teamId: 'T1' }]]);
    expect(await store.get('team:W:U')).toBe(':colon');
    await store.close();
    const left = new DatabaseSync(path);
    expect(
      left
        .prepare('SELECT key FROM keyv')
        .all()
        .map((row) => row['key']),
    ).toEqual(['other:live:T1:g2']);
    left.close();
  });
});

const redisUrl = process.env.REDIS_URL;
describe.skipIf(!redisUrl)('the Redis store', () => {
  const namespace = `kv-test-${randomUUID()}`;
  behavesAsAKeyValueStore(
    () => open(redisUrl!, `${namespace}-${randomUUID()}`),
    () => {
      const shared = `${namespace}-${randomUUID()}`;
      return [open(redisUrl!, shared), open(redisUrl!, shared)];
    },
  );

  afterAll(async () => {
    await dropRedisKeys(redisUrl!, namespace);
  });

  it('reads and lists what a Keyv-based version stored, and removes index entries of expired values', async () => {
    const ns = `${namespace}-keyv`;
    const client = createClient({ url: redisUrl! });
    await client.connect();
    try {
      // As @keyv/redis wrote them: `<namespace>::<key>`, Keyv's JSON, the TTL on the key.
      await client.set(
        `${ns}::live:T1:g1`,
        JSON.stringify({ value: { guid: 'g1', teamId: 'T1' }, expires: Date.now() + 60_000 }),
        { expiration: { type: 'PX', value: 60_000 } },
      );
      await client.set(`${ns}::team:W:U`, JSON.stringify({ value: '::colon' }));
      const store = open(redisUrl!, ns);
      expect(await list(store, 'live:')).toEqual([['live:T1:g1', { guid: 'g1', teamId: 'T1' }]]);
      expect(await store.get('team:W:U')).toBe(':colon');

      // A value gone behind the store's back (as an expiry would do it) leaves the index when listed.
      await client.del(`${ns}::live:T1:g1`);
      expect(await list(store, 'live:')).toEqual([]);
      expect(await client.zRange(`${ns}:keys`, 0, -1)).toEqual(['team:W:U']);
    } finally {
      await client.close();
    }
  });
});
