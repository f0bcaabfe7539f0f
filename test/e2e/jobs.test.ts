import { describe, expect, it } from 'vitest';
import { monitoringEnv, Stack, stackForFile } from './harness.ts';

const read = Stack.read;
const channel = 'C0GENERAL';
const monitor = 1234567;
let stack: Stack;
stackForFile(
  // The jobs run on their own timers here (every second), as in production.
  { env: { ATTACK_CHANNELS: channel, POLL_SECONDS: '1', ...monitoringEnv } },
  (started) => (stack = started),
);

const monitorReads = () =>
  stack.sim.requests.filter((r) => r.method === 'GET' && r.path === `/monitoringA/monitors/${monitor}`);

describe('the background jobs', () => {
  it('keep the cards current while a guard’s monitor never answers', async () => {
    const id = 'U0JOBS1';
    await stack.login(id, stack.sim.seed.users.owner, { team: 'Platform' });
    expect(read(await stack.ask(id, `gameday start Slow monitor --guard a:${monitor}`, { channel }))).toContain(
      'Game day Slow monitor started',
    );
    const { attack, card } = await stack.startAttack(id, 'attack cpu -l 30 -c 1', channel);
    expect(read(card)).toMatch(new RegExp(`Guards .*\\(${monitor}\\): OK`));

    // The monitoring product stops answering: the guard job's next read hangs.
    stack.sim.faults.inject({ method: 'GET', path: `/monitoringA/monitors/${monitor}`, kind: 'hang', times: Infinity });
    const reads = monitorReads().length;
    await stack.fake.waitFor(() => monitorReads().length > reads, 'a guard read that hangs');

    // The attack ends meanwhile. The platform client gives up on the hanging read only after
    // 10 s; the card refresh, on its own timer, shows the end long before that.
    stack.advanceClock(120_000);
    await stack.fake.waitFor(
      () =>
        read(
          stack.fake
            .channel(channel)
            .messages()
            .find((m) => m.text().includes(attack.guid)),
        ).includes('Successful'),
      'the card showing the attack finished',
    );
    // Still the one read, unanswered: the guard job waits on it without holding anything else up.
    expect(monitorReads().length).toBe(reads + 1);
    expect(monitorReads().at(-1)!.status).toBe(0);
  });
});
