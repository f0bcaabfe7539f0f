import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Stack, stackForFile } from './harness.ts';

/**
 * A halt you can see land: after a halt, the attack's executions are read until every target has
 * stopped, and the card says so; a target still running a minute after the halt is shown on the
 * card and in the thread with Halt again, and the person who halted it is told directly.
 * Stages last two seconds of simulated time; moving the clock is what moves the targets on.
 */
const read = Stack.read;
const channel = 'C0GENERAL';
let stack: Stack;
// On SQLite, so a test can restart the bot on the same store.
const storeUrl = `sqlite://${join(mkdtempSync(join(tmpdir(), 'faultline-verify-')), 'bot.db')}`;
stackForFile({ storeUrl }, (started) => (stack = started));

const hosts = ['platform-web-1', 'platform-web-2', 'platform-db-1'];
const executionReads = (guid: string) =>
  stack.sim.requests.filter((r) => r.method === 'GET' && r.path === '/executions' && r.query['taskId'] === guid).length;
const cardOf = (guid: string) => stack.cardIn(channel, guid)!;
const threadOf = (guid: string) => stack.threadOf(channel, guid);

/** The value of one series of the attack events counter, 0 when it has not been counted. */
async function counted(event: string, cause: string): Promise<number> {
  const metric = await stack.built.metrics.registry.getSingleMetric('faultline_attack_events_total')!.get();
  return metric.values.find((v) => v.labels['event'] === event && v.labels['cause'] === cause)?.value ?? 0;
}

/** The card says every target stopped, and offers no Halt again. */
function expectVerified(guid: string) {
  expect(read(cardOf(guid))).toContain('Halt verified: 3 of 3 targets stopped');
  expect(
    cardOf(guid)
      .buttons()
      .map((b) => b.text),
  ).not.toContain('Halt again');
}

/** The halter's reply: the halt has been recorded, and its verification begun, by then. */
const haltReply = (id: string) => stack.replySaying(id, channel, 'Halt requested');

async function haltedAttack(id: string) {
  await stack.login(id, stack.sim.seed.users.owner, { team: 'Platform' });
  const { attack, card } = await stack.startAttack(id, `attack cpu -l 600 --target-hosts ${hosts.join(',')}`, channel);
  // Running on every target before the halt.
  stack.advanceClock(10_000);
  return { attack, card };
}

describe('a verified halt', () => {
  it('reads the executions until every target has stopped, and the card says "Halt verified: 3 of 3 targets stopped"', async () => {
    const id = 'U0VERIFY1';
    const { attack, card } = await haltedAttack(id);
    await card.click('Halt');
    await haltReply(id);

    // Right after the halt, the targets are still stopping.
    await stack.poll();
    expect(executionReads(attack.guid)).toBe(1);
    expect(read(cardOf(attack.guid))).toContain('Halt sent: 0 of 3 targets stopped so far');

    stack.advanceClock(5_000);
    await stack.poll();
    expectVerified(attack.guid);

    // Verified: the executions are read no more.
    const reads = executionReads(attack.guid);
    stack.advanceClock(60_000);
    await stack.poll();
    expect(executionReads(attack.guid)).toBe(reads);
    expect(stack.fake.channel(id).messages()).toEqual([]);
    expect(threadOf(attack.guid).some((line) => line.includes('Halt again'))).toBe(false);
    // Counted once verified, not at every read.
    expect(await counted('halt verified', 'person')).toBe(1);
    expect(await counted('halt progress', 'person')).toBe(0);
  });

  it('carries on after a restart: the halt being verified is kept in the store', async () => {
    const id = 'U0VERIFY2';
    const { attack } = await haltedAttack(id);
    expect(read(await stack.ask(id, `halt ${attack.guid}`, { channel }))).toContain('Halt requested');
    await stack.stopBot();
    await stack.startBot();
    stack.advanceClock(5_000);
    await stack.poll();
    expectVerified(attack.guid);
  });
});

describe('a halt not verified', () => {
  it('shows the target still running a minute after the halt, with Halt again on the card and in the thread, and tells the halter', async () => {
    const id = 'U0VERIFY3';
    const { attack, card } = await haltedAttack(id);
    const deaf = hosts[1]!;
    stack.sim.ignoreHalts(deaf);
    await card.click('Halt');
    await haltReply(id);

    stack.advanceClock(5_000);
    await stack.poll();
    // Two have stopped; within the minute nobody is alarmed yet.
    expect(read(cardOf(attack.guid))).toContain('Halt sent: 2 of 3 targets stopped so far');
    expect(stack.fake.channel(id).messages()).toEqual([]);

    stack.advanceClock(60_000);
    await stack.poll();
    const shown = cardOf(attack.guid);
    expect(read(shown)).toContain(
      `Halt not verified: 2 of 3 targets stopped; still running a minute after the halt: ${deaf}`,
    );
    expect(shown.buttons().map((b) => b.text)).toContain('Halt again');
    const line = await stack.fake.waitFor(
      () => threadOf(attack.guid).find((m) => m.includes('still running a minute after it')),
      'the thread line',
    );
    expect(line).toContain(deaf);
    const dm = stack.fake.channel(id).messages();
    expect(dm).toHaveLength(1);
    expect(read(dm[0])).toContain(`Your halt of the cpu attack ${attack.guid}`);
    expect(read(dm[0])).toContain(deaf);
    expect(dm[0]!.buttons().map((b) => b.text)).toEqual(['Halt again']);

    // Told once: the next pass reads again but says nothing new.
    await stack.poll();
    expect(stack.fake.channel(id).messages()).toHaveLength(1);
    expect(threadOf(attack.guid).filter((m) => m.includes('still running a minute after it'))).toHaveLength(1);

    // The target takes halts again: Halt again from the direct message reaches it, and the halt is verified.
    stack.sim.ignoreHalts(deaf, false);
    await stack.person(id).channel(id).messages()[0]!.click('Halt again');
    await stack.fake.waitFor(
      () => stack.sim.state.attacks.get(attack.guid)!.timeline.holdouts?.get(1) !== undefined,
      'the second halt reaching the target',
    );
    stack.advanceClock(5_000);
    await stack.poll();
    expectVerified(attack.guid);
    expect(threadOf(attack.guid).at(-1)).toContain('Halt verified: 3 of 3 targets stopped');
    expect(stack.sim.state.attacks.get(attack.guid)!.timeline.holdouts).toBeDefined();
  });
});

describe('a halt verified late', () => {
  it('takes Halt again off the warnings once every target has stopped, and the thread says the halt was verified', async () => {
    const id = 'U0VERIFY5';
    const { attack, card } = await haltedAttack(id);
    const deaf = hosts[0]!;
    stack.sim.ignoreHalts(deaf);
    await card.click('Halt');
    await haltReply(id);
    stack.advanceClock(65_000);
    await stack.poll();
    const thread = () => stack.person(id).channel(channel).thread(cardOf(attack.guid).ts);
    const warning = () => thread().find((m) => read(m).includes('still running a minute after it'))!;
    await stack.fake.waitFor(() => warning(), 'the warning in the thread');
    expect(
      warning()
        .buttons()
        .map((b) => b.text),
    ).toEqual(['Halt again']);

    // Set back in the simulator: the target takes the halt sent again from the warning, and the check verifies it.
    stack.sim.ignoreHalts(deaf, false);
    await warning().click('Halt again');
    await stack.fake.waitFor(
      () => stack.sim.state.attacks.get(attack.guid)!.timeline.holdouts?.get(0) !== undefined,
      'the second halt reaching the target',
    );
    stack.advanceClock(5_000);
    await stack.poll();
    await stack.built.services.slack.flush();
    expectVerified(attack.guid);
    expect(warning()).toBeUndefined();
    const updated = thread().find((m) => read(m).includes('not verified at first'))!;
    expect(read(updated)).toContain('It is verified now: 3 of 3 targets stopped');
    expect(updated.buttons()).toEqual([]);
    expect(read(thread().at(-1))).toContain('Halt verified: 3 of 3 targets stopped');
    // The direct message loses its Halt again too.
    const dm = stack.fake.channel(id).messages();
    expect(dm).toHaveLength(1);
    expect(read(dm[0])).toContain('not verified at first');
    expect(dm[0]!.buttons()).toEqual([]);
  });
});

describe('a halt nobody can verify', () => {
  it('tells the halter once, a minute on, when no stored session can read the targets', async () => {
    const id = 'U0VERIFY4';
    const { attack } = await haltedAttack(id);
    expect(read(await stack.ask(id, `halt ${attack.guid}`, { channel }))).toContain('Halt requested');
    expect(read(await stack.ask(id, 'logout', { channel }))).toContain('Logged out');
    await stack.poll();
    expect(stack.fake.channel(id).messages()).toEqual([]);

    stack.advanceClock(61_000);
    await stack.poll();
    await stack.poll();
    const told = stack.fake.channel(id).messages();
    expect(told).toHaveLength(1);
    expect(read(told[0])).toContain(`cannot verify the halt of the cpu attack ${attack.guid}`);
    expect(executionReads(attack.guid)).toBe(0);
  });
});
