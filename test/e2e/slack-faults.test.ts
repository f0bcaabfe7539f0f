/**
 * Slack misbehaving under the bot: a storm of 429s on card updates, a stop while updates are
 * still queued, a Web API call that never answers. Each test has its own stack, because what it
 * provokes (rate-limited calls, a stopped bot) is exactly what the shared checks refuse.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message } from '@faultline/fake-slack';
import { afterEach, describe, expect, it } from 'vitest';
import { Stack, type StackOptions } from './harness.ts';

const read = Stack.read;
const channel = 'C0FAULTS';
let stack: Stack | undefined;

async function start(options: StackOptions = {}): Promise<Stack> {
  stack = await Stack.start({ ...options, env: { ATTACK_CHANNELS: channel, ...options.env } });
  return stack;
}
afterEach(async () => {
  stack?.fake.faults.clear();
  await stack?.stop();
  stack = undefined;
});

function cardOf(s: Stack, guid: string): Message | undefined {
  return s.fake
    .channel(channel)
    .messages()
    .find((m) => m.text().includes(guid));
}

/** Logs the owner in and starts an attack with --yes; resolves with its guid once its card is posted. */
async function startAttack(s: Stack, personId: string, text = 'attack cpu -l 300 --target-tags role=web --yes') {
  const before = s.sim.state.attacks.size;
  const confirmations = s.person(personId).ephemerals(channel).length;
  await s.person(personId).command(text, { channel });
  const attack = await s.fake.waitFor(
    () => s.sim.state.attacks.size > before && [...s.sim.state.attacks.values()].at(-1),
    'the attack in the simulator',
  );
  await s.fake.waitFor(() => cardOf(s, attack.guid), 'the attack card');
  // The confirmation comes once the card is saved, so the poller knows it from then on.
  await s.fake.waitFor(
    () =>
      s
        .person(personId)
        .ephemerals(channel)
        .slice(confirmations)
        .some((m) => read(m).includes('Started')),
    'the start confirmation',
  );
  return attack.guid;
}

/** Web API calls in the order Slack received them, as `method` or `method:error`. */
const callLog = (s: Stack) => s.fake.calls.map((call) => (call.ok ? call.method : `${call.method}:${call.error}`));

describe('a storm of 429s on card updates', () => {
  it('holds only the card updates: the halt confirmation, its thread reply and the checks before a start still go out', async () => {
    const s = await start();
    const owner = 'U0STORM';
    await s.login(owner, s.sim.seed.users.owner, { team: 'Platform' });
    const guid = await startAttack(s, owner);

    // Every chat.update from now on is answered 429, Retry-After 30 s.
    s.fake.faults.inject({ kind: 'ratelimit', method: 'chat.update', retryAfterSeconds: 30 });
    s.advanceClock(10_000);
    await s.built.services.attacks.refreshCards();
    await s.fake.waitFor(() => s.fake.callsTo('chat.update').length > 0, 'the rate-limited card update');
    const limitedAt = s.fake.calls.length;

    // A halt while the card queue waits: the thread reply and the confirmation do not wait with it.
    await s
      .person(owner)
      .channel(channel)
      .messages()
      .find((m) => m.text().includes(guid))!
      .click('Halt');
    const card = cardOf(s, guid)!;
    await s.fake.waitFor(
      () =>
        s.fake
          .channel(channel)
          .thread(card.ts)
          .find((m) => read(m).includes('halted this attack')),
      'the halt in the thread',
    );
    await s.fake.waitFor(
      () => read(s.person(owner).lastEphemeral()).includes('Halt requested'),
      'the halt confirmation',
    );

    // A start checks the channel (conversations.info) and posts a card: neither waits either.
    const second = await startAttack(s, owner, 'attack memory -l 300 --target-tags role=web --yes');

    const after = callLog(s).slice(limitedAt);
    expect(after).toContain('chat.postMessage');
    expect(after).toContain('conversations.info');
    // Slack said wait 30 s: one refused update, no hammering, and none slipped through.
    expect(s.fake.callsTo('chat.update').map((call) => call.error ?? 'ok')).toEqual(['ratelimited']);
    expect(read(cardOf(s, guid))).not.toContain('Halt requested');
    expect(cardOf(s, second)).toBeDefined();
    expect(s.built.services.slack.queued).toBeGreaterThanOrEqual(1);
    expect(s.errorLogs()).toEqual([]);
  });
});

describe('stopping while card updates wait', () => {
  it('stops within its time limit and leaves the unsent card to the next replica, which redraws it from the store', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'faultline-unsent-'));
    const s = await start({ storeUrl: `sqlite://${join(dir, 'store.db')}` });
    const owner = 'U0UNSENT';
    await s.login(owner, s.sim.seed.users.owner, { team: 'Platform' });
    const guid = await startAttack(s, owner);
    expect(read(cardOf(s, guid))).not.toContain('Running');

    s.fake.faults.inject({ kind: 'ratelimit', method: 'chat.update', retryAfterSeconds: 30 });
    s.advanceClock(10_000);
    await s.built.services.attacks.refreshCards();
    await s.fake.waitFor(() => s.fake.callsTo('chat.update').length > 0, 'the rate-limited card update');
    // The store has the new stage; Slack has not shown it.
    expect((await s.built.services.attacks.cards.get(guid))?.stage).toBe('Running');

    // Slack asked for 30 s, more than the shutdown allows: the bot stops without waiting.
    await s.stopBot();
    expect(s.logs.some((line) => line.msg === 'card updates left for the next replica')).toBe(true);
    expect(read(cardOf(s, guid))).not.toContain('Running');

    s.fake.faults.clear();
    await s.startBot();
    await s.poll();
    expect(read(cardOf(s, guid))).toContain('Running');
    expect(s.fake.callsTo('chat.update').map((call) => call.error ?? 'ok')).toEqual(['ratelimited', 'ok']);
    expect(s.errorLogs()).toEqual([]);
  });

  it('gives a Slack call that never answers up after its time limit, so the stop is not held by it', async () => {
    const s = await start({ slackTimeoutMs: 200 });
    const owner = 'U0HUNG';
    await s.login(owner, s.sim.seed.users.owner, { team: 'Platform' });
    const guid = await startAttack(s, owner);

    // The halt's thread reply hangs at Slack; the halt itself and its confirmation must not.
    s.fake.faults.inject({ kind: 'hang', method: 'chat.postMessage' });
    await s
      .person(owner)
      .channel(channel)
      .messages()
      .find((m) => m.text().includes(guid))!
      .click('Halt');
    await s.fake.waitFor(() => s.sim.state.attacks.get(guid)!.halt, 'the halt in the simulator');
    await s.stopBot();
    expect(s.logs.some((line) => line.msg === 'could not post the halt in the thread')).toBe(true);
    expect(read(s.person(owner).lastEphemeral())).toContain('Halt requested');
    expect(s.errorLogs()).toEqual([]);
  });
});

describe('a start while Slack cannot check the token', () => {
  it('starts, and answers once Slack answers the check, without keeping the failure for good', async () => {
    const s = await start({ slackTimeoutMs: 200 });
    await s.stopBot();
    s.fake.faults.inject({ kind: 'hang', method: 'auth.test' });
    await s.startBot();
    await s.fake.waitFor(
      () =>
        s.logs.some(
          (line) => line.msg === 'Slack did not confirm the bot token yet; asked again with the next request',
        ),
      'the failed token check',
    );
    s.fake.faults.clear();
    expect(read(await s.ask('U0TOKEN', 'help', { channel }))).toContain('/chaos');
    expect(s.fake.callsTo('auth.test').at(-1)?.ok).toBe(true);
  });
});

describe('a login while Slack cannot tell the e-mail to match', () => {
  it('is refused, says why, and asks the platform nothing; the next one goes through', async () => {
    const s = await start();
    const { solo } = s.sim.seed.users;
    const platformLogins = () => s.sim.requests.filter((r) => r.path === '/users/auth').length;
    s.fake.faults.inject({ kind: 'ratelimit', method: 'users.info', times: 1 });
    const person = await s.submitLogin('U0SLACKDOWN', solo);
    const errors = await s.fake.waitFor(() => {
      const shown = person.modal()?.errors() ?? {};
      return Object.keys(shown).length > 0 && shown;
    }, 'the refusal');
    expect(errors).toEqual({
      Email: 'Faultline could not read your Slack profile to check that this login is yours. Try again in a minute.',
    });
    expect(platformLogins()).toBe(0);
    expect(read(await s.ask('U0SLACKDOWN', 'whoami'))).toContain('not logged in');
    await person.modal()!.fill('Email', solo.email).fill('Password', solo.password).submit();
    await s.fake.waitFor(() => person.modal()?.title === 'Logged in', 'the login');
    expect(s.errorLogs()).toEqual([]);
  });
});
