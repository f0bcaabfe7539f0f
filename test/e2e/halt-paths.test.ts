import { describe, expect, it } from 'vitest';
import { monitoringEnv, Stack, stackForFile } from './harness.ts';

/**
 * A person's halt, a guard's and a freeze's are one halt: each reads what the platform says it
 * stopped, writes one audit line of what it stopped, and says nothing was halted of an attack
 * that had already ended.
 */

const read = Stack.read;
const channel = 'C0HALTS';
let stack: Stack;
stackForFile({ env: { ATTACK_CHANNELS: channel, ...monitoringEnv } }, (started) => (stack = started));

let n = 0;
const nextPerson = () => `U0HALTPATH${++n}`;
const users = () => stack.sim.seed.users;
const haltAudits = (guid: string) => stack.logs.filter((l) => l['audit'] === 'attack_halted' && l['attack'] === guid);
const cardOf = (guid: string) =>
  stack.fake
    .channel(channel)
    .messages()
    .find((m) => m.text().includes(guid));
const threadOf = (guid: string) => stack.fake.channel(channel).thread(cardOf(guid)!.ts).map(read).join('\n');

describe('every halt path', () => {
  it('writes one audit line for each attack it stopped, naming whose session and why', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Payments' });
    const byPerson = (await stack.startAttack(id, 'attack cpu -l 300 -c 1', channel)).attack.guid;
    const byGuard = (await stack.startAttack(id, 'attack cpu -l 300 -c 1 --guard a:1234567', channel)).attack.guid;
    await stack.ask(id, `halt ${byPerson} --reason "too hot"`, { channel });
    stack.sim.setMonitorState(1234567, 'Alert');
    await stack.poll();
    await stack.ask(id, 'freeze --reason "checkout incident"', { channel });
    const byFreeze = stack.sim.createAttackDirectly(stack.sim.seed.teams.payments.id, {
      type: 'cpu',
      args: ['-l', '300'],
    });
    await stack.poll();
    expect(stack.sim.state.attacks.get(byFreeze)!.halt).toBeDefined();

    const who = { slackUser: id, slackUserName: id.toLowerCase() };
    expect(haltAudits(byPerson)).toEqual([expect.objectContaining({ ...who, by: 'person', reason: 'too hot' })]);
    expect(haltAudits(byGuard)).toEqual([
      expect.objectContaining({ ...who, by: 'guard', reason: 'guard checkout p99 latency (1234567) fired' }),
    ]);
    expect(haltAudits(byFreeze)).toEqual([
      expect.objectContaining({ ...who, by: 'freeze', reason: 'frozen: checkout incident' }),
    ]);
  });

  it('says a guard halted nothing of a Kubernetes attack that had already ended, as a person’s halt does', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const started = await stack.ask(
      id,
      'attack cpu -l 30 -c 1 --k8s-target acme-prod/checkout/Deployment/checkout --guard a:1234567 --yes',
      { channel },
    );
    expect(read(started)).toContain('Started');
    const attack = [...stack.sim.state.kubernetesAttacks.values()].at(-1)!;
    await stack.fake.waitFor(() => cardOf(attack.guid), 'the card');
    // It ends on the platform; its card has not heard of it when the guard fires.
    stack.advanceClock(30 * 60_000);
    stack.sim.setMonitorState(1234567, 'Alert');
    await stack.poll();
    await stack.built.services.slack.flush();
    expect(threadOf(attack.guid)).not.toContain('halted this attack');
    expect(haltAudits(attack.guid)).toEqual([]);
    expect(read(await stack.ask(id, `halt ${attack.guid}`, { channel }))).toContain('had already ended');
    expect(haltAudits(attack.guid)).toEqual([]);
  });
});
