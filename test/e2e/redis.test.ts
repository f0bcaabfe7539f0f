import { describe, expect, it } from 'vitest';
import { replicasForSuite, Stack } from './harness.ts';

const redisUrl = process.env.REDIS_URL;
const read = Stack.read;
const channel = 'C0GENERAL';

/** Several replicas on one Redis: the documented deployment for HTTP mode. */
describe.skipIf(!redisUrl)('on a shared Redis store', () => {
  let first: Stack;
  let second: Stack;
  // Slack delivers to the load balancer; here, to the first replica unless a test says otherwise.
  replicasForSuite(redisUrl!, (a, b) => ([first, second] = [a, b]));

  it('starts once, polls cards to the end with one replica per team, and serves Home and game days', async () => {
    const id = 'U0REDIS1';
    await first.login(id, first.sim.seed.users.owner, { team: 'Platform' });
    expect(read(await first.ask(id, 'gameday start Redis drill', { channel }))).toContain('started');

    const preview = await first.ask(id, 'attack cpu -l 30', { channel });
    await preview.click('Start');
    const attack = await first.fake.waitFor(() => [...first.sim.state.attacks.values()][0], 'the attack');
    await first.fake.waitFor(
      () =>
        first.fake
          .channel(channel)
          .messages()
          .find((m) => m.text().includes(attack.guid)),
      'the card',
    );
    // The confirmation comes once the card is saved: a poll before it would not know the card yet.
    await first.fake.waitFor(
      () => read(first.person(id).ephemerals(channel).at(-1)).includes('Started cpu attack'),
      'the start confirmation',
    );

    first.advanceClock(120_000);
    const a = await first.poll();
    const b = await second.poll();
    // Exactly one replica holds the team's lease and polls it.
    expect(a.teams + b.teams).toBe(1);
    await second.built.services.slack.flush();
    expect(
      read(
        first.fake
          .channel(channel)
          .messages()
          .find((m) => m.text().includes(attack.guid)),
      ),
    ).toContain('Successful');

    expect(read(await first.openHome(id))).toContain('Redis drill');

    expect(read(await first.ask(id, 'gameday status', { channel }))).toContain('Redis drill');
    const thread = first.fake
      .channel(channel)
      .messages()
      .find((m) => read(m).includes('Game day: Redis drill'))!;
    expect(first.fake.channel(channel).thread(thread.ts).map(read).join('\n')).toContain('cpu');
    first.expectClean();
    second.expectClean();
  });

  it('serves a watch set on one replica from whichever polls its team, with one card', async () => {
    const id = 'U0REDIS2';
    const watched = 'C0REDISWATCH';
    await first.login(id, first.sim.seed.users.owner, { team: 'Payments' });
    expect(read(await first.ask(id, 'watch', { channel: watched }))).toContain('this channel watches team Payments');
    expect((await second.built.services.attacks.watches.all()).map((w) => [w.teamName, w.channel])).toEqual([
      ['Payments', watched],
    ]);
    const guid = first.sim.createAttackDirectly(first.sim.seed.teams.payments.id, { args: ['-l', '300'] });
    const b = await second.poll();
    const a = await first.poll();
    expect(a.posted + b.posted).toBe(1);
    expect(
      first.fake
        .channel(watched)
        .messages()
        .filter((m) => m.text().includes(guid)),
    ).toHaveLength(1);
    first.expectClean();
    second.expectClean();
  });
});
