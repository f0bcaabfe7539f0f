import { afterAll, describe, expect, it, vi } from 'vitest';
import { createKeyValueStore, type KeyValueStore } from '../../src/store/keyValue.ts';
import { csrfToken, LoginLinks, newSecret, tokenHash, validCsrf } from '../../src/login/links.ts';
import { addressFailureLimit, LoginLimits, personFailureLimit } from '../../src/login/limits.ts';
import { randomUUID } from 'node:crypto';
import { keys } from '../../src/store/keys.ts';

const person = { workspaceId: 'T0FAULTLN', userId: 'U0ALICE', userName: 'alice' };

// Replicas share links and counters through Redis: the same behaviour is checked there when it runs.
const storeUrls = ['memory://', ...(process.env['REDIS_URL'] ? [process.env['REDIS_URL']] : [])];
const opened: KeyValueStore[] = [];
afterAll(async () => {
  await Promise.all(opened.map((store) => store.close()));
});

describe.each(storeUrls)('on %s', (storeUrl) => {
  function setup() {
    let now = Date.parse('2030-01-01T14:00:00Z');
    const store = createKeyValueStore(storeUrl, `login-test-${randomUUID()}`);
    opened.push(store);
    return {
      store,
      links: new LoginLinks(store, () => now),
      limits: new LoginLimits(store, () => now),
      advance: (ms: number) => (now += ms),
      now: () => now,
    };
  }

  describe('login links', () => {
    it('are 256 random bits, stored only under their hash, for the person they were made for', async () => {
      const { store, links } = setup();
      const { token } = await links.mint(person);
      expect(Buffer.from(token, 'base64url')).toHaveLength(32);
      const stored: string[] = [];
      for await (const [key, value] of store.entries('')) stored.push(key, JSON.stringify(value));
      expect(stored.join('\n')).not.toContain(token);
      expect(stored.join('\n')).toContain(tokenHash(token));
      expect((await links.find(token))?.link).toMatchObject(person);
      expect(await links.find(newSecret())).toBeUndefined();
      expect(await links.find('../../etc')).toBeUndefined();
    });

    it('stop working after 10 minutes and once consumed', async () => {
      const { links, advance } = setup();
      const { token } = await links.mint(person);
      advance(keys.loginLink.ttlMs - 1);
      const found = await links.find(token);
      expect(found).toBeDefined();
      advance(1);
      expect(await links.find(token)).toBeUndefined();

      const second = await links.mint(person);
      await links.consume((await links.find(second.token))!.hash);
      expect(await links.find(second.token)).toBeUndefined();
    });

    it('belong to the first browser that opens them', async () => {
      const { links } = setup();
      const { token } = await links.mint(person);
      const first = newSecret();
      expect(await links.bindBrowser((await links.find(token))!, first)).toBe(true);
      expect(await links.bindBrowser((await links.find(token))!, first)).toBe(true);
      expect(await links.bindBrowser((await links.find(token))!, newSecret())).toBe(false);
    });

    it('carry a CSRF token only this browser and link produce', () => {
      const secret = newSecret();
      const token = csrfToken(secret, 'a'.repeat(64));
      expect(validCsrf(token, secret, 'a'.repeat(64))).toBe(true);
      expect(validCsrf(token, newSecret(), 'a'.repeat(64))).toBe(false);
      expect(validCsrf(token, secret, 'b'.repeat(64))).toBe(false);
      expect(validCsrf(`${token.slice(0, -1)}x`, secret, 'a'.repeat(64))).toBe(false);
      expect(validCsrf(undefined, secret, 'a'.repeat(64))).toBe(false);
    });
  });

  describe('failed-login limits', () => {
    it(`block a person after ${personFailureLimit} failures until their 15-minute window ends`, async () => {
      const { limits, advance, now } = setup();
      const first = now();
      for (let i = 0; i < personFailureLimit - 1; i++) {
        await limits.recordPersonFailure(person);
        advance(60_000);
      }
      expect(await limits.personBlockedUntil(person)).toBeUndefined();
      await limits.recordPersonFailure(person);
      expect(await limits.personBlockedUntil(person)).toEqual(new Date(first + keys.loginFailures.ttlMs));
      expect(await limits.personBlockedUntil({ ...person, userId: 'U0BOB' })).toBeUndefined();
      advance(first + keys.loginFailures.ttlMs - now());
      expect(await limits.personBlockedUntil(person)).toBeUndefined();
    });

    it('count every failure of a burst, as replicas sharing the store see them', async () => {
      const { limits } = setup();
      const people = Array.from({ length: addressFailureLimit + 1 }, (_, i) => ({ ...person, userId: `U0P${i}` }));
      await Promise.all(people.map((p) => limits.recordAddressFailure('198.51.100.7', p)));
      // Exactly one failed past the address's limit: only that one is held by it.
      const held = await Promise.all(people.map((p) => limits.addressBlockedUntil('198.51.100.7', p)));
      expect(held.filter((until) => until !== undefined)).toHaveLength(1);
      expect(await limits.addressBlockedUntil('198.51.100.7', { ...person, userId: 'U0NEW' })).toBeUndefined();
      expect(await limits.addressBlockedUntil('198.51.100.8', people[0]!)).toBeUndefined();
    });

    it('run one attempt of a person at a time', async () => {
      const { limits } = setup();
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const ran: string[] = [];
      const attempt = (name: string) =>
        limits.oneAtATime(person, async () => {
          ran.push(name);
          await gate;
          return name;
        });
      // Two at once: exactly one runs (which one is the store's business), the other is turned away.
      const settled: (string | undefined)[] = [];
      const both = Promise.all([attempt('first'), attempt('second')].map((p) => p.then((r) => settled.push(r))));
      await vi.waitFor(() => expect(settled).toEqual([undefined]));
      expect(ran).toHaveLength(1);
      release();
      await both;
      expect(settled).toEqual([undefined, ran[0]]);
      expect(await attempt('third')).toBe('third');
    });
  });
});
