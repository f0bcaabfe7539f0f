import { describe, expect, it } from 'vitest';
import { monitoringEnv, Stack, stackForFile } from './harness.ts';

/**
 * Every way an attack starts meets the same checks in the same order: a freeze, then the guards,
 * then a second person, then the start. A start that needs a second person is refused by a
 * freeze or an unhealthy guard before any request is posted, and the approved start checks both
 * again.
 */
const read = Stack.read;
const channel = 'C0GENERAL';
let stack: Stack;
stackForFile(
  { env: { ATTACK_CHANNELS: channel, APPROVAL_RULES: 'type=memory', ...monitoringEnv } },
  (started) => (stack = started),
);

let n = 0;
const next = () => `U0POLICY${++n}`;
const users = () => stack.sim.seed.users;
const attacksInSim = () => stack.sim.state.attacks.size;
const requests = () =>
  stack.fake
    .channel(channel)
    .messages()
    .filter((m) => read(m).includes('asks to start'));
const lastEphemeral = (id: string) => read(stack.person(id).ephemerals(channel).at(-1));
const countdownOf = (id: string, step: number) =>
  stack
    .person(id)
    .channel(channel)
    .messages()
    .filter((m) => read(m).includes(`Step ${step} of`))
    .at(-1);

async function people() {
  const requester = next();
  const approver = next();
  await stack.login(requester, users().owner, { team: 'Platform' });
  await stack.login(approver, users().solo);
  return { requester, approver };
}

/** A plan step of a memory attack (which needs a second person), counting down. */
async function planStepCountingDown(lead: string, guard = '') {
  await stack.ask(lead, `gameday start Policy drill ${guard}`.trim(), { channel });
  await stack.ask(lead, 'gameday step --attack "memory -l 30 -p 50 --target-tags role=web" it holds', { channel });
  await stack.ask(lead, 'gameday next', { channel });
}

describe('a start that needs a second person', () => {
  it('is refused by a freeze before a request is posted, from a preview made before the freeze', async () => {
    const { requester } = await people();
    const preview = await stack.ask(requester, 'attack memory -l 30 -p 10', { channel });
    expect(preview.buttons().map((b) => b.text)).toEqual(['Request approval', 'Cancel']);
    await stack.ask(requester, 'freeze --reason "checkout incident"', { channel });
    await preview.click('Request approval');
    await stack.fake.waitFor(() => lastEphemeral(requester).includes('are frozen') || undefined, 'the refusal');
    await stack.built.services.slack.flush();
    expect(requests()).toHaveLength(0);
    expect(attacksInSim()).toBe(0);
  });

  it('is refused by a freeze before a request is posted, from a game-day plan step', async () => {
    const { requester } = await people();
    await planStepCountingDown(requester);
    // Frozen after the countdown began, before it reached zero.
    await stack.ask(requester, 'freeze --reason "checkout incident"', { channel });
    stack.advanceClock(61_000);
    await stack.poll();
    await stack.fake.waitFor(
      () => /not started: .*frozen/i.test(read(countdownOf(requester, 1))) || undefined,
      'the refusal on the countdown',
    );
    expect(requests()).toHaveLength(0);
    expect(attacksInSim()).toBe(0);
  });

  it('is refused by an unhealthy guard before a request is posted, typed with --yes', async () => {
    const { requester } = await people();
    stack.sim.setMonitorState(1234567, 'Alert');
    const reply = await stack.ask(requester, 'attack memory -l 30 -p 10 --guard a:1234567 --yes', { channel });
    expect(read(reply)).toMatch(/checkout p99 latency \(1234567\)/);
    expect(read(reply)).toContain('unhealthy');
    expect(requests()).toHaveLength(0);
  });

  it('answers --yes with the preview and Start anyway when a guard cannot be read, before a request is posted', async () => {
    const { requester } = await people();
    const reply = await stack.ask(requester, 'attack memory -l 30 -p 10 --guard a:1234569 --yes', { channel });
    expect(read(reply)).toContain('Start anyway only if you will watch it yourself');
    expect(requests()).toHaveLength(0);
  });

  it('is refused by a guard turned unhealthy after the preview, before a request is posted', async () => {
    const { requester } = await people();
    const preview = await stack.ask(requester, 'attack memory -l 30 -p 10 --guard a:1234567', { channel });
    stack.sim.setMonitorState(1234567, 'Alert');
    await preview.click('Request approval');
    await stack.fake.waitFor(() => lastEphemeral(requester).includes('unhealthy') || undefined, 'the refusal');
    await stack.built.services.slack.flush();
    expect(requests()).toHaveLength(0);
  });

  it("is refused by the game day's unhealthy guard before a request is posted, from a plan step", async () => {
    const { requester } = await people();
    await planStepCountingDown(requester, '--guard a:1234567');
    stack.sim.setMonitorState(1234567, 'Alert');
    stack.advanceClock(61_000);
    await stack.poll();
    await stack.fake.waitFor(
      () => /not started: .*unhealthy/i.test(read(countdownOf(requester, 1))) || undefined,
      'the refusal on the countdown',
    );
    expect(requests()).toHaveLength(0);
  });

  it('is refused by an unhealthy guard before a request is posted, from Run saved attack in Workflow Builder', async () => {
    const { requester } = await people();
    await stack.ask(requester, 'save web-mem memory -l 30 -p 10 --guard a:1234567', { channel });
    stack.sim.setMonitorState(1234567, 'Alert');
    const execution = await stack.fake.runStep('run_saved_attack', { name: 'web-mem', channel }, { usedBy: requester });
    await stack.fake.waitFor(() => execution.state !== 'running' || undefined, 'the step to end');
    expect(execution.state).toBe('failed');
    expect(execution.error).toContain('unhealthy');
    expect(requests()).toHaveLength(0);
  });

  it('requested before a freeze and approved during it starts nothing, and its request says why', async () => {
    const { requester, approver } = await people();
    await stack.ask(requester, 'attack memory -l 30 -p 10 --yes', { channel });
    const request = await stack.fake.waitFor(() => requests()[0], 'the request');
    await stack.ask(requester, 'freeze --reason "checkout incident"', { channel });
    const seen = stack
      .person(approver)
      .channel(channel)
      .messages()
      .find((m) => m.ts === request.ts)!;
    await seen.click('Approve');
    await stack.fake.waitFor(() => lastEphemeral(approver).includes('did not start') || undefined, 'the answer');
    expect(lastEphemeral(approver)).toContain('frozen');
    expect(attacksInSim()).toBe(0);
  });

  it('requested while its guard was healthy and approved once it is not starts nothing', async () => {
    const { requester, approver } = await people();
    await stack.ask(requester, 'attack memory -l 30 -p 10 --guard a:1234567 --yes', { channel });
    const request = await stack.fake.waitFor(() => requests()[0], 'the request');
    stack.sim.setMonitorState(1234567, 'Alert');
    const seen = stack
      .person(approver)
      .channel(channel)
      .messages()
      .find((m) => m.ts === request.ts)!;
    await seen.click('Approve');
    await stack.fake.waitFor(() => lastEphemeral(approver).includes('did not start') || undefined, 'the answer');
    expect(lastEphemeral(approver)).toContain('unhealthy');
    expect(attacksInSim()).toBe(0);
  });
});
