import { createClient } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../src/store/errors.ts';
import { hasRedisServer, RedisServer } from '../support/redisServer.ts';
import { SlackRecorder } from '../support/slackRecorder.ts';
import { TcpProxy } from '../support/tcpProxy.ts';
import { Stack } from './harness.ts';

const read = Stack.read;
const channel = 'C0GENERAL';
const refusal = 'Faultline cannot reach its store; nothing was done';

/** Logs the person in and starts an attack from its preview, before the store goes: the attack and its card as it is now. */
async function loggedInWithAttack(stack: Stack, id: string) {
  await stack.login(id, stack.sim.seed.users.owner, { team: 'Platform' });
  const preview = await stack.ask(id, 'attack cpu -l 30', { channel });
  await preview.click('Start');
  await stack.fake.waitFor(
    () => read(stack.person(id).ephemerals(channel).at(-1)).includes('Started cpu attack'),
    'the start confirmation',
  );
  const attack = [...stack.sim.state.attacks.values()][0]!;
  return {
    attack,
    card: () =>
      stack.fake
        .channel(channel)
        .messages()
        .find((m) => m.text().includes(attack.guid)),
  };
}

/**
 * Redis stopped while the bot is in use, then started again on the same port: every store call
 * fails loudly meanwhile, people are told so (never "log in", never a silent success), /readyz
 * says so, and afterwards everything stored before is there and the poller carries on alone.
 */
describe.skipIf(!process.env.REDIS_URL || !hasRedisServer)('when Redis goes away and comes back', () => {
  let redis: RedisServer;
  let stack: Stack;

  beforeAll(async () => {
    redis = await RedisServer.start();
    // The background jobs' own timers run here (every second): nothing but Redis coming back restarts them.
    stack = await Stack.start({ storeUrl: redis.url, env: { POLL_SECONDS: '1' } });
  });
  afterAll(async () => {
    await stack?.stop();
    await redis?.remove();
  });

  const readyz = async () => (await fetch(`http://127.0.0.1:${stack.bot.port}/readyz`)).status;

  it('refuses every command, click and submission with the store error, and resumes by itself', {
    timeout: 60_000,
  }, async () => {
    const id = 'U0OUTAGE1';
    const person = { workspaceId: stack.fake.teamId, userId: id };
    const { store, sessions } = stack.built;
    const { cards } = stack.built.services.attacks;
    const { attack, card } = await loggedInWithAttack(stack, id);
    // A form opened before the outage and submitted during it.
    await stack
      .person(id)
      .channel(channel)
      .messages()
      .find((m) => m.text().includes(attack.guid))!
      .click('Add note');
    const noteForm = await stack.fake.waitFor(
      () => stack.person(id).modal()?.callbackId === 'attack_note' && stack.person(id).modal(),
      'the note form',
    );
    expect(await readyz()).toBe(200);

    await redis.stop();

    // The store itself: a write is refused rather than lost, a read fails rather than answering nothing.
    await expect(store.set('outage-probe', 'lost?')).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.get(`session:${person.workspaceId}:${person.userId}`)).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );
    await expect(sessions.get(person)).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(cards.liveByTeam()).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(await store.ping()).toBe(false);
    expect(await readyz()).toBe(503);

    // A command.
    const whoami = read(await stack.ask(id, 'whoami', { channel }));
    expect(whoami).toContain(refusal);
    expect(whoami).not.toMatch(/log ?in/i);

    // A click on the card: nothing reaches the platform.
    const ephemerals = stack.person(id).ephemerals(channel).length;
    await stack
      .person(id)
      .channel(channel)
      .messages()
      .find((m) => m.text().includes(attack.guid))!
      .click('Halt');
    const halt = await stack.fake.waitFor(
      () => stack.person(id).ephemerals(channel).length > ephemerals && stack.person(id).ephemerals(channel).at(-1),
      'the reply to Halt',
    );
    expect(read(halt)).toContain(refusal);
    expect(stack.sim.state.attacks.get(attack.guid)!.halt).toBeUndefined();

    // A submission: the form says so, and no note is added.
    await noteForm.fill('Note', 'written during the outage').submit();
    const answered = await stack.fake.waitFor(
      () => read(stack.person(id).modal()).includes(refusal) && stack.person(id).modal(),
      'the refusal in the form',
    );
    expect(read(answered)).not.toMatch(/log ?in/i);
    expect(Object.values(stack.sim.state.attacks.get(attack.guid)!.annotations).join(' ')).not.toContain(
      'during the outage',
    );

    // App Home, opened meanwhile, says so rather than staying blank or stale.
    const home = read(await stack.openHome(id));
    expect(home).toContain(refusal);
    expect(home).not.toMatch(/log ?in/i);

    // A workflow step: failed with the same words, never left running.
    const step = await stack.fake.runStep('freeze_chaos', { reason: 'during the outage' }, { usedBy: id });
    await stack.fake.waitFor(() => step.state !== 'running', 'the step to end');
    expect(step.error).toMatch(new RegExp(`^${refusal}`));
    expect(step.error).not.toMatch(/log ?in/i);

    // The jobs' timers ran into the outage (they run every second) and said so, as a warning.
    await stack.fake.waitFor(
      () => stack.logs.some((line) => line.msg.startsWith('background jobs failed: the store is unreachable')),
      'the jobs noticing the outage',
      15_000,
    );

    await redis.restart();
    // ping() waits for the client's reconnection (or gives up after its timeout and is asked again).
    while (!(await store.ping()));
    expect(await readyz()).toBe(200);

    // Everything stored before the outage is there; nothing from during it is.
    expect((await sessions.get(person))?.team?.name).toBe('Platform');
    expect((await cards.get(attack.guid))?.channel).toBe(channel);
    expect(await store.get('outage-probe')).toBeUndefined();
    expect(read(await stack.ask(id, 'whoami', { channel }))).toContain(stack.sim.seed.users.owner.email);

    // The card refresh's timer, untouched by the test, brings the card to its end.
    stack.advanceClock(120_000);
    await stack.fake.waitFor(
      () => read(card()).includes('Successful'),
      'the card updated by the poller after the outage',
      15_000,
    );

    // The first run that succeeds after the outage says so.
    await stack.fake.waitFor(
      () =>
        stack.logs.some(
          (line) => line.level === 'info' && line.msg === 'background jobs resumed: the store answers again',
        ),
      'the jobs saying they resumed',
    );

    // An outage is expected now and then (and /readyz reports it): nothing was logged as an error.
    expect(stack.errorLogs()).toEqual([]);
    const log = stack.logText();
    for (const secret of stack.secrets()) expect(log).not.toContain(secret);
  });
});

/**
 * The network between the bot and Redis fails (a proxy in between drops every connection and
 * refuses new ones) while Redis runs on, then comes back: the same loud refusals as an outage,
 * nothing lost, and the client and the poller reconnect by themselves.
 */
describe.skipIf(!process.env.REDIS_URL || !hasRedisServer)('when the network to Redis is cut and mended', () => {
  let redis: RedisServer;
  let proxy: TcpProxy;
  let stack: Stack;

  beforeAll(async () => {
    redis = await RedisServer.start();
    proxy = await TcpProxy.start(redis.port);
    stack = await Stack.start({ storeUrl: proxy.url, env: { POLL_SECONDS: '1' } });
  });
  afterAll(async () => {
    await stack?.stop();
    await proxy?.stop();
    await redis?.remove();
  });

  const readyz = async () => (await fetch(`http://127.0.0.1:${stack.bot.port}/readyz`)).status;

  it('refuses while cut, keeps everything, and carries on once the network is back', { timeout: 60_000 }, async () => {
    const id = 'U0NETCUT1';
    const person = { workspaceId: stack.fake.teamId, userId: id };
    const { store, sessions } = stack.built;
    const { cards } = stack.built.services.attacks;
    const { attack, card } = await loggedInWithAttack(stack, id);

    proxy.cut();

    await expect(store.set('cut-probe', 'lost?')).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(await readyz()).toBe(503);
    const note = read(await stack.ask(id, `note ${attack.guid} written while cut off`, { channel }));
    expect(note).toContain(refusal);
    expect(Object.values(stack.sim.state.attacks.get(attack.guid)!.annotations).join(' ')).not.toContain(
      'while cut off',
    );
    // Redis itself lost nothing: the bot's session and card are there, only out of the bot's reach.
    const direct = createClient({ url: redis.url });
    await direct.connect();
    const stored = await direct.keys('*::*');
    await direct.close();
    expect(stored.some((key) => key.endsWith(`session:${person.workspaceId}:${person.userId}`))).toBe(true);
    expect(stored.some((key) => key.includes(attack.guid))).toBe(true);

    proxy.restore();
    while (!(await store.ping()));
    expect(await readyz()).toBe(200);
    expect((await sessions.get(person))?.team?.name).toBe('Platform');
    expect((await cards.get(attack.guid))?.channel).toBe(channel);
    expect(await store.get('cut-probe')).toBeUndefined();
    expect(read(await stack.ask(id, `note ${attack.guid} written once mended`, { channel }))).toContain('Note added');

    stack.advanceClock(120_000);
    await stack.fake.waitFor(
      () => read(card()).includes('Successful'),
      'the card updated by the poller after the cut',
      15_000,
    );
    expect(stack.errorLogs()).toEqual([]);
  });
});

/**
 * Two replicas on one Redis, as HTTP mode is deployed: a click that reaches both starts one
 * attack, one replica polls a team, and when that one stops the other takes the team over at
 * its next pass (the stopping replica gives its lease back; it does not wait to lapse).
 */
describe.skipIf(!process.env.REDIS_URL || !hasRedisServer)('two replicas on one Redis', () => {
  let redis: RedisServer;
  let first: Stack;
  let second: Stack;
  let relay: SlackRecorder | undefined;

  beforeAll(async () => {
    redis = await RedisServer.start();
    [first, second] = await Stack.startReplicas(redis.url);
  });
  afterAll(async () => {
    await relay?.stop();
    await second?.stop();
    await first?.stop();
    await redis?.remove();
  });

  it('starts one attack for a click both get, polls with one, and hands the team over when it stops', {
    timeout: 60_000,
  }, async () => {
    const id = 'U0REPLICA1';
    const creates = () =>
      first.sim.requests.filter((r) => r.method === 'POST' && (r.path === '/attacks/new' || r.path === '/attacks'));
    await first.login(id, first.sim.seed.users.owner, { team: 'Platform' });
    const preview = await first.ask(id, 'attack cpu -l 30', { channel });

    // The click reaches both replicas at once.
    relay = await SlackRecorder.start(...[first, second].map((s) => `http://127.0.0.1:${s.bot.port}/slack/events`));
    first.fake.setBotUrl(relay.url);
    await preview.click('Start');
    const attack = await first.fake.waitFor(() => [...first.sim.state.attacks.values()][0], 'the attack');
    await first.fake.waitFor(
      () => read(first.person(id).ephemerals(channel).at(-1)).includes('Started cpu attack'),
      'the start confirmation',
    );
    first.fake.setBotUrl(`http://127.0.0.1:${first.bot.port}/slack/events`);

    const a = await first.poll();
    const b = await second.poll();
    expect(a.teams + b.teams).toBe(1);
    const [holder, other] = a.teams ? [first, second] : [second, first];
    expect((await holder.poll()).teams).toBe(1);
    expect((await other.poll()).teams).toBe(0);

    // The holder stops (a deploy, a scale-down): it finishes what it was doing and gives its lease back.
    await holder.stopBot();
    first.advanceClock(120_000);
    const takenOver = await other.poll();
    expect(takenOver.teams).toBe(1);
    expect(
      read(
        first.fake
          .channel(channel)
          .messages()
          .find((m) => m.text().includes(attack.guid)),
      ),
    ).toContain('Successful');

    // Both replicas have finished all they were asked (stopping drains work in flight): one attack.
    await other.stopBot();
    expect(creates()).toHaveLength(1);
    expect(
      first.fake
        .channel(channel)
        .messages()
        .filter((m) => m.text().includes(attack.guid)),
    ).toHaveLength(1);
    first.expectClean();
    second.expectClean();
  });
});
