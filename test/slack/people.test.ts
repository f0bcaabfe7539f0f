/**
 * People's names against the fake Slack's users.info: asked once, kept for a while and within
 * bounds, and the user id in place of a name Slack does not give.
 */
import { Writable } from 'node:stream';
import { startFakeSlack, type FakeSlack } from '@faultline/fake-slack';
import { WebClient } from '@slack/web-api';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { People, personName, type PeopleOptions } from '../../src/slack/people.ts';

const BOT_TOKEN = 'xoxb-people-test';
let fake: FakeSlack | undefined;
let warnings: string[];
let clock: number;

async function people(options: PeopleOptions & { scopes?: string[] } = {}): Promise<People> {
  const { scopes, ...rest } = options;
  fake = await startFakeSlack({ signingSecret: 'secret', botToken: BOT_TOKEN, ...(scopes ? { scopes } : {}) });
  fake.user('U0ALICE', { name: 'alice', realName: 'Alice Moreau', displayName: 'alice' });
  fake.user('U0BOB', { name: 'bob', realName: 'Bob Okafor' });
  fake.user('U0CAROL', { name: 'carol', realName: 'Carol Singh' });
  warnings = [];
  clock = 1_000_000;
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) {
        const parsed = JSON.parse(line) as { level: string; msg: string };
        if (parsed.level === 'warn') warnings.push(parsed.msg);
      }
      done();
    },
  });
  const client = new WebClient(BOT_TOKEN, { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } });
  return new People(client, createLogger('debug', destination), { now: () => clock, ...rest });
}

const asked = (id?: string) =>
  fake!.callsTo('users.info').filter((call) => id === undefined || call.args['user'] === id).length;

afterEach(async () => {
  await fake?.stop();
  fake = undefined;
});

describe("people's names", () => {
  it('asks Slack once for a name, even when several ask at the same moment', async () => {
    const names = await people();
    expect(await Promise.all([names.name('U0ALICE'), names.name('U0ALICE'), names.name('U0BOB')])).toEqual([
      'Alice Moreau',
      'Alice Moreau',
      'Bob Okafor',
    ]);
    expect(await names.names(['U0ALICE', 'U0BOB', 'U0ALICE'])).toEqual({
      U0ALICE: 'Alice Moreau',
      U0BOB: 'Bob Okafor',
    });
    expect(asked('U0ALICE')).toBe(1);
    expect(asked('U0BOB')).toBe(1);
  });

  it('asks again once the name is older than its time to live', async () => {
    const names = await people({ ttlMs: 60_000 });
    await names.name('U0ALICE');
    clock += 59_000;
    await names.name('U0ALICE');
    expect(asked('U0ALICE')).toBe(1);
    clock += 2_000;
    await names.name('U0ALICE');
    expect(asked('U0ALICE')).toBe(2);
  });

  it('keeps at most maxEntries names, dropping the least recently used', async () => {
    const names = await people({ maxEntries: 2 });
    await names.name('U0ALICE');
    await names.name('U0BOB');
    await names.name('U0ALICE');
    await names.name('U0CAROL');
    // Bob was used least recently, so he went; Alice stayed.
    await names.name('U0ALICE');
    expect(asked('U0ALICE')).toBe(1);
    await names.name('U0BOB');
    expect(asked('U0BOB')).toBe(2);
  });

  it('gives the user id when Slack refuses, warns, and asks again after a short while', async () => {
    const names = await people({ scopes: ['chat:write'], failureTtlMs: 30_000 });
    expect(await names.name('U0ALICE')).toBe('U0ALICE');
    expect(warnings).toEqual([expect.stringContaining('user id stands in')]);
    expect(await names.name('U0ALICE')).toBe('U0ALICE');
    expect(asked()).toBe(1);
    clock += 31_000;
    await names.name('U0ALICE');
    expect(asked()).toBe(2);
  });

  it('gives the user id of someone Slack does not know', async () => {
    const names = await people();
    expect(await names.name('U0NOBODY')).toBe('U0NOBODY');
  });
});

describe('personName', () => {
  it('prefers the full name, then the display name, then the handle, then the fallback', () => {
    expect(personName({ name: 'alice', profile: { real_name: 'Alice Moreau', display_name: 'Al' } }, 'U1')).toBe(
      'Alice Moreau',
    );
    expect(
      personName({ name: 'alice', real_name: 'Alice M.', profile: { real_name: ' ', display_name: 'Al' } }, 'U1'),
    ).toBe('Alice M.');
    expect(personName({ name: 'alice', profile: { real_name: '', display_name: 'Al' } }, 'U1')).toBe('Al');
    expect(personName({ name: 'alice', profile: {} }, 'U1')).toBe('alice');
    expect(personName(undefined, 'U1')).toBe('U1');
  });
});
