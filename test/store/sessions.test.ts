import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { createClient } from '@redis/client';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { CompanySession } from '../../src/client/index.ts';
import { SessionCipher } from '../../src/store/cipher.ts';
import { createKeyValueStore, type KeyValueStore } from '../../src/store/keyValue.ts';
import { SessionStore } from '../../src/store/sessions.ts';
import { dropRedisKeys } from '../support/redisKeys.ts';

const key = randomBytes(32);
const alice = { workspaceId: 'T0001', userId: 'U0ALICE' };

function companySession(expiresInMs: number, now = Date.now()): CompanySession {
  return {
    header: 'Bearer header-secret-0001',
    token: 'token-secret-0001',
    renew_token: 'renew-secret-0001',
    expires_at: new Date(now + expiresInMs).toISOString(),
    identifier: 'owner@acme.test',
    company_id: 'c1',
    company_name: 'Acme Demo',
    roles: ['COMPANY_OWNER'],
    privileges: ['HALT_ALL'],
    teams: [
      { identifier: 'team-a', name: 'Platform', company_id: 'c1', roles: ['TEAM_OWNER'], privileges: ['HALT_WRITE'] },
      { identifier: 'team-b', name: 'Payments', company_id: 'c1', roles: ['TEAM_USER'], privileges: [] },
    ],
  };
}

const secrets = ['header-secret-0001', 'token-secret-0001', 'renew-secret-0001'];

const opened: KeyValueStore[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

function open(url: string, namespace?: string): KeyValueStore {
  const store = createKeyValueStore(url, namespace);
  opened.push(store);
  return store;
}

function behavesAsASessionStore(makeStore: () => KeyValueStore) {
  it('returns what was saved, with the selected team among the session teams', async () => {
    const sessions = new SessionStore(makeStore(), new SessionCipher(key));
    await sessions.save(alice, companySession(60_000));
    await sessions.selectTeam(alice, 'team-b');
    const login = await sessions.get(alice);
    expect(login?.session.identifier).toBe('owner@acme.test');
    expect(login?.team?.name).toBe('Payments');
  });

  it('ignores a remembered team that is not one of the session teams', async () => {
    const sessions = new SessionStore(makeStore(), new SessionCipher(key));
    await sessions.save(alice, companySession(60_000));
    await sessions.selectTeam(alice, 'someone-elses-team');
    expect((await sessions.get(alice))?.team).toBeUndefined();
  });

  it('does not find a session under another workspace or user', async () => {
    const sessions = new SessionStore(makeStore(), new SessionCipher(key));
    await sessions.save(alice, companySession(60_000));
    expect(await sessions.get({ workspaceId: 'T0002', userId: alice.userId })).toBeUndefined();
    expect(await sessions.get({ workspaceId: alice.workspaceId, userId: 'U0BOB' })).toBeUndefined();
  });

  it('forgets a session once it is past expires_at', async () => {
    let now = Date.now();
    const sessions = new SessionStore(makeStore(), new SessionCipher(key), () => now);
    await sessions.save(alice, companySession(60_000, now));
    now += 61_000;
    expect(await sessions.lookup(alice)).toEqual({ expired: true });
    expect(await sessions.lookup(alice)).toEqual({ expired: false });
  });

  it('drops a session on logout', async () => {
    const sessions = new SessionStore(makeStore(), new SessionCipher(key));
    await sessions.save(alice, companySession(60_000));
    await sessions.drop(alice);
    expect(await sessions.get(alice)).toBeUndefined();
  });

  it('re-seals a session written under the previous key after a rotation', async () => {
    const store = makeStore();
    const newKey = randomBytes(32);
    await new SessionStore(store, new SessionCipher(key)).save(alice, companySession(60_000));
    const rotated = new SessionStore(store, new SessionCipher(newKey, key));
    expect((await rotated.get(alice))?.session.company_name).toBe('Acme Demo');
    // Once re-sealed, the old key is no longer needed.
    expect((await new SessionStore(store, new SessionCipher(newKey)).get(alice))?.session.company_name).toBe(
      'Acme Demo',
    );
  });

  it('treats a session sealed under an unknown key as logged out', async () => {
    const store = makeStore();
    await new SessionStore(store, new SessionCipher(randomBytes(32))).save(alice, companySession(60_000));
    expect(await new SessionStore(store, new SessionCipher(key)).get(alice)).toBeUndefined();
  });
}

describe('SessionStore on memory://', () => {
  behavesAsASessionStore(() => open('memory://'));
});

describe('SessionStore on sqlite://', () => {
  const dir = mkdtempSync(join(tmpdir(), 'faultline-sessions-'));
  behavesAsASessionStore(() => open(`sqlite://${join(dir, `${randomUUID()}.db`)}`));

  it('keeps sessions across a restart, and the file holds no token in plain text', async () => {
    const file = join(dir, 'restart.db');
    const first = createKeyValueStore(`sqlite://${file}`);
    await new SessionStore(first, new SessionCipher(key)).save(alice, companySession(60_000));
    await first.close();
    const raw = readdirSync(dir)
      .filter((f) => f.startsWith('restart.db'))
      .map((f) => readFileSync(join(dir, f)).toString('latin1'))
      .join('');
    expect(raw).toContain('session:T0001:U0ALICE');
    for (const secret of secrets) expect(raw).not.toContain(secret);
    const second = open(`sqlite://${file}`);
    expect((await new SessionStore(second, new SessionCipher(key)).get(alice))?.session.identifier).toBe(
      'owner@acme.test',
    );
  });
});

const redisUrl = process.env.REDIS_URL;
describe.skipIf(!redisUrl)('SessionStore on redis://', () => {
  const namespace = `faultline-test-${randomUUID()}`;
  behavesAsASessionStore(() => open(redisUrl!, `${namespace}-${randomUUID()}`));

  afterAll(async () => {
    await dropRedisKeys(redisUrl!, namespace);
  });

  it('shares sessions between two bot processes and stores no token in plain text', async () => {
    const ns = `${namespace}-shared`;
    await new SessionStore(open(redisUrl!, ns), new SessionCipher(key)).save(alice, companySession(60_000));
    expect((await new SessionStore(open(redisUrl!, ns), new SessionCipher(key)).get(alice))?.session.identifier).toBe(
      'owner@acme.test',
    );

    const client = createClient({ url: redisUrl! });
    await client.connect();
    try {
      // Values under `<namespace>::`, and beside them the sorted sets that index their keys.
      const keys = await client.keys(`${ns}::*`);
      expect(keys.length).toBeGreaterThan(0);
      const values = await Promise.all(keys.map((k) => client.get(k)));
      const indexed = await client.zRange(`${ns}:keys`, 0, -1);
      const raw = keys.join('\n') + values.join('\n') + indexed.join('\n');
      expect(raw).toContain('U0ALICE');
      for (const secret of secrets) expect(raw).not.toContain(secret);
      const ttl = await client.pTTL(keys.find((k) => k.includes('session:'))!);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
    } finally {
      await client.quit();
    }
  });

  it('reports ready while Redis answers', async () => {
    expect(await open(redisUrl!, namespace).ping()).toBe(true);
  });
});

describe('readiness', () => {
  it('is false when Redis cannot be reached', async () => {
    expect(await open('redis://127.0.0.1:1', 'unreachable').ping()).toBe(false);
  });
});

function supportsClaimsAndListing(makeStore: () => KeyValueStore) {
  it('gives a claim to one caller only, until it lapses', async () => {
    const store = makeStore();
    const key = `pending-${randomUUID()}`;
    const results = await Promise.all([store.claim(key, 60_000), store.claim(key, 60_000), store.claim(key, 60_000)]);
    expect(results.filter(Boolean)).toHaveLength(1);
    const brief = `brief-${randomUUID()}`;
    expect(await store.claim(brief, 1)).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    await expect.poll(() => store.claim(brief, 60_000), { interval: 5, timeout: 1_000 }).toBe(true);
  });

  it('lists the entries under a prefix', async () => {
    const store = makeStore();
    await store.set('live:t1:a', { guid: 'a' });
    await store.set('live:t2:b', { guid: 'b' });
    await store.set('other:c', { guid: 'c' });
    const found: string[] = [];
    for await (const [key] of store.entries('live:')) found.push(key);
    expect(found.sort()).toEqual(['live:t1:a', 'live:t2:b']);
  });
}

describe('claims and listing', () => {
  describe('memory://', () => supportsClaimsAndListing(() => open('memory://', `ns-${randomUUID()}`)));
  describe('sqlite://', () =>
    supportsClaimsAndListing(() =>
      open(`sqlite://${join(mkdtempSync(join(tmpdir(), 'faultline-claims-')), 'c.db')}`, `ns-${randomUUID()}`),
    ));
  describe.skipIf(!redisUrl)('redis://', () =>
    supportsClaimsAndListing(() => open(redisUrl!, `faultline-test-claims-${randomUUID()}`)),
  );
});

describe('leases', () => {
  const stores: [string, () => KeyValueStore][] = [
    ['memory', () => open('memory://', `lease-${randomUUID()}`)],
    [
      'sqlite',
      () => open(`sqlite://${join(mkdtempSync(join(tmpdir(), 'faultline-lease-')), 'l.db')}`, `lease-${randomUUID()}`),
    ],
  ];
  if (redisUrl) stores.push(['redis', () => open(redisUrl, `faultline-test-lease-${randomUUID()}`)]);
  it.each(stores)('on %s: the holder keeps a lease, others do not get it', async (_kind, make) => {
    const store = make();
    expect(await store.claim('poll:t1', 60_000, 'replica-a')).toBe(true);
    expect(await store.claim('poll:t1', 60_000, 'replica-a')).toBe(true);
    expect(await store.claim('poll:t1', 60_000, 'replica-b')).toBe(false);
    expect(await store.claim('poll:t1', 60_000)).toBe(false);
    await store.release('poll:t1', 'replica-a');
    expect(await store.claim('poll:t1', 60_000, 'replica-b')).toBe(true);
  });

  it.each(stores)("on %s: a holder whose lease lapsed cannot give back the next holder's", async (_kind, make) => {
    const store = make();
    expect(await store.claim('poll:t1', 20, 'replica-a')).toBe(true);
    // A stalls past its lease; B takes the team over.
    await expect.poll(() => store.claim('poll:t1', 60_000, 'replica-b'), { interval: 5, timeout: 2_000 }).toBe(true);
    await store.release('poll:t1', 'replica-a');
    expect(await store.claim('poll:t1', 60_000, 'replica-c')).toBe(false);
    expect(await store.claim('poll:t1', 60_000, 'replica-b')).toBe(true);
    // Only the holder's own release frees it.
    expect(await store.release('poll:t1', 'replica-a')).toBe(false);
    expect(await store.release('poll:t1', 'replica-b')).toBe(true);
    expect(await store.claim('poll:t1', 60_000, 'replica-c')).toBe(true);
  });

  it.each(stores)('on %s: a claim lets only its own holder give it back', async (_kind, make) => {
    const store = make();
    expect(await store.claim('note-lock:g1', 60_000, 'first')).toBe(true);
    expect(await store.release('note-lock:g1', 'second')).toBe(false);
    expect(await store.claim('note-lock:g1', 60_000, 'second')).toBe(false);
    expect(await store.release('note-lock:g1', 'first')).toBe(true);
    expect(await store.claim('note-lock:g1', 60_000, 'second')).toBe(true);
  });

  it.each(stores)(
    'on %s: of two claims made together on a fresh store, the first made gets it',
    async (_kind, make) => {
      const store = make();
      expect(
        await Promise.all([store.claim('start:p1', 60_000, 'first'), store.claim('start:p1', 60_000, 'second')]),
      ).toEqual([true, false]);
    },
  );
});

/** A cipher that counts how often a stored session is decrypted. */
class CountingCipher extends SessionCipher {
  opens = 0;
  override open(sealed: string, associatedData: string) {
    this.opens++;
    return super.open(sealed, associatedData);
  }
}

function reusesOpenedSessions(makeStore: () => KeyValueStore) {
  it('decrypts a session once for many lookups while its ciphertext stays the same', async () => {
    const cipher = new CountingCipher(key);
    const sessions = new SessionStore(makeStore(), cipher);
    await sessions.save(alice, companySession(3_600_000));
    for (let i = 0; i < 5; i++) expect((await sessions.get(alice))?.session.company_name).toBe('Acme Demo');
    expect(cipher.opens).toBe(1);
  });

  it('never serves a session logged out, here or by another replica on the same store', async () => {
    const store = makeStore();
    const here = new SessionStore(store, new SessionCipher(key));
    const other = new SessionStore(store, new SessionCipher(key));
    await here.save(alice, companySession(3_600_000));
    expect(await here.get(alice)).toBeDefined();
    await other.drop(alice);
    expect(await here.get(alice)).toBeUndefined();
    await here.save(alice, companySession(3_600_000));
    expect(await here.get(alice)).toBeDefined();
    await here.drop(alice);
    expect(await here.get(alice)).toBeUndefined();
  });

  it('serves the new session once another replica has saved one in its place', async () => {
    const store = makeStore();
    const here = new SessionStore(store, new SessionCipher(key));
    const other = new SessionStore(store, new SessionCipher(key));
    await here.save(alice, companySession(3_600_000));
    expect((await here.get(alice))?.session.teams).toHaveLength(2);
    await other.save(alice, { ...companySession(3_600_000), teams: [companySession(0).teams[0]!] });
    expect((await here.get(alice))?.session.teams.map((team) => team.name)).toEqual(['Platform']);
  });

  it('opens the session again once the short reuse has run out, and still ends it when it expires', async () => {
    let now = Date.now();
    const cipher = new CountingCipher(key);
    const sessions = new SessionStore(makeStore(), cipher, () => now);
    await sessions.save(alice, companySession(90_000, now));
    await sessions.get(alice);
    now += 61_000;
    expect(await sessions.get(alice)).toBeDefined();
    expect(cipher.opens).toBe(2);
    now += 30_000;
    expect(await sessions.lookup(alice)).toEqual({ expired: true });
  });

  it('keeps at most a thousand opened sessions, and still answers for the ones it let go', async () => {
    const cipher = new CountingCipher(key);
    const sessions = new SessionStore(makeStore(), cipher);
    const people = Array.from({ length: 1_001 }, (_, i) => ({ workspaceId: 'T0001', userId: `U${i}` }));
    for (const person of people) await sessions.save(person, companySession(3_600_000));
    for (const person of people) await sessions.get(person);
    expect(cipher.opens).toBe(1_001);
    // The first was let go to make room for the last, so it is opened again; the last is not.
    expect(await sessions.get(people[0]!)).toBeDefined();
    expect(await sessions.get(people[1_000]!)).toBeDefined();
    expect(cipher.opens).toBe(1_002);
  });
}

describe('opened sessions on memory://', () => reusesOpenedSessions(() => open('memory://', `ns-${randomUUID()}`)));
describe.skipIf(!redisUrl)('opened sessions on Redis', () => {
  const namespace = `faultline-test-opened-${randomUUID()}`;
  reusesOpenedSessions(() => open(redisUrl!, `${namespace}-${randomUUID()}`));
  afterAll(async () => {
    const client = createClient({ url: redisUrl! });
    await client.connect();
    const keys = await client.keys(`${namespace}*`);
    if (keys.length) await client.del(keys);
    await client.quit();
  });
});
