import { describe, expect, it } from 'vitest';
import type { StartIntent } from '../../src/attacks/start.ts';
import { StoreUnavailableError } from '../../src/store/errors.ts';
import { Stack, stackForFile } from './harness.ts';

/**
 * What a restarted bot does with a start whose create was sent but never answered: the platform
 * takes no reference, so the attack is looked for in what the platform lists. (Killing the bot
 * itself is test/app/crash.test.ts; here the intent a killed bot leaves is written directly.)
 */

const read = Stack.read;
const channel = 'C0GENERAL';
let stack: Stack;
stackForFile({}, (started) => (stack = started));

let n = 0;
const users = () => stack.sim.seed.users;
const platformTeam = () => stack.sim.seed.teams.platform.id;

/** A start a killed bot left after sending its create: `createSentAt` set, no `guid`. */
async function lostCreate(userId: string, type = 'cpu'): Promise<StartIntent> {
  const intent: StartIntent = {
    id: `lost-${++n}`,
    source: { kind: 'command' },
    actor: { workspaceId: stack.fake.teamId, userId, userName: userId.toLowerCase(), channelId: channel },
    platformUser: users().solo.email,
    teamId: platformTeam(),
    teamName: 'Platform',
    request: { type, args: ['-l', '60'], target: { kind: 'all' }, team: undefined, yes: true, lengthSeconds: 60 },
    channel,
    writtenAt: new Date(stack.built.services.login.now()).toISOString(),
    createSentAt: new Date(stack.built.services.login.now()).toISOString(),
  };
  await stack.built.store.set(`start-intent:${intent.id}`, intent);
  return intent;
}

const messagesTo = (userId: string) => stack.fake.channel(userId).messages().map(read);
const cardOf = (guid: string) =>
  stack.fake
    .channel(channel)
    .messages()
    .find((m) => m.text().includes(guid));
const intentsLeft = async () => {
  let count = 0;
  for await (const _ of stack.built.store.entries('start-intent:')) count++;
  return count;
};

describe('a start whose create was never answered, after a restart', () => {
  it('adopts the one attack the starter’s login created then, of its type, and cards it', async () => {
    const id = 'U0LOST1';
    await stack.login(id, users().solo);
    await lostCreate(id);
    const direct = (options: { createUser?: string; type?: string }) =>
      stack.sim.createAttackDirectly(platformTeam(), { createSource: 'Api', ...options });
    direct({ createUser: users().owner.email });
    direct({ createUser: users().solo.email, type: 'memory' });
    const created = direct({ createUser: users().solo.email });

    expect(await stack.built.services.attacks.recoverStarts(stack.built.services.guardrails.closeAfterRestart)).toBe(1);
    await stack.built.services.slack.flush();
    expect(read(cardOf(created))).toContain(`Started by <@${id}>`);
    expect(messagesTo(id).at(-1)).toContain(`started: ${created}`);
    expect(await intentsLeft()).toBe(0);
    expect(stack.sim.state.attacks.size).toBe(3);
  });

  it('leaves it to the starter, naming the candidates, when the platform lists several', async () => {
    const id = 'U0LOST2';
    await stack.login(id, users().solo);
    await lostCreate(id);
    const first = stack.sim.createAttackDirectly(platformTeam(), { createUser: users().solo.email });
    const second = stack.sim.createAttackDirectly(platformTeam(), { createUser: users().solo.email });

    stack.advanceClock(11_000);
    await stack.built.services.attacks.recoverStarts(stack.built.services.guardrails.closeAfterRestart);
    const told = messagesTo(id).at(-1);
    expect(told).toContain('could not tell whether it started');
    expect(told).toContain(first);
    expect(told).toContain(second);
    expect(cardOf(first)).toBeUndefined();
    expect(cardOf(second)).toBeUndefined();
    expect(await intentsLeft()).toBe(0);
    expect(stack.sim.state.attacks.size).toBe(2);
  });

  it('looks again until the create could no longer be answered, then says it most likely did not start', async () => {
    const id = 'U0LOST3';
    await stack.login(id, users().solo);
    await lostCreate(id);

    expect(await stack.built.services.attacks.recoverStarts(stack.built.services.guardrails.closeAfterRestart)).toBe(0);
    expect(messagesTo(id)).toEqual([]);
    expect(await intentsLeft()).toBe(1);

    stack.advanceClock(11_000);
    expect(await stack.built.services.attacks.recoverStarts(stack.built.services.guardrails.closeAfterRestart)).toBe(1);
    expect(messagesTo(id).at(-1)).toContain('The platform lists no such attack, so it most likely did not start');
    expect(await intentsLeft()).toBe(0);
    expect(stack.sim.requests.some((r) => r.method === 'POST' && r.path.startsWith('/attacks'))).toBe(false);
  });

  it('tells its starter that nothing started when the bot stopped before it sent the create', async () => {
    const id = 'U0LOST7';
    await stack.login(id, users().solo);
    const { createSentAt: _, ...unsent } = await lostCreate(id);
    await stack.built.store.set(`start-intent:${unsent.id}`, unsent);

    expect(await stack.built.services.attacks.recoverStarts(stack.built.services.guardrails.closeAfterRestart)).toBe(1);
    expect(messagesTo(id).at(-1)).toContain('Nothing was started; run the command again');
    expect(await intentsLeft()).toBe(0);
    expect(stack.sim.requests.some((r) => r.method === 'POST' && r.path.startsWith('/attacks'))).toBe(false);
  });

  it('says it could not check, rather than that nothing started, when the starter is logged out', async () => {
    const id = 'U0LOST4';
    await lostCreate(id);
    const created = stack.sim.createAttackDirectly(platformTeam(), { createUser: users().solo.email });

    expect(await stack.built.services.attacks.recoverStarts(stack.built.services.guardrails.closeAfterRestart)).toBe(1);
    const told = messagesTo(id).at(-1);
    expect(told).toContain('could not check whether it started');
    expect(told).not.toContain('most likely did not start');
    expect(cardOf(created)).toBeUndefined();
    expect(await intentsLeft()).toBe(0);
    expect(stack.sim.state.attacks.size).toBe(1);
  });

  it('records the approval of an approved start it finishes, as the live approval does', async () => {
    const id = 'U0LOST5';
    await stack.login(id, users().solo);
    const guid = stack.sim.createAttackDirectly(platformTeam(), { createUser: users().solo.email });
    const intent: StartIntent = {
      ...(await lostCreate(id)),
      source: { kind: 'approval', id: 'no-such-request', approver: { userId: 'U0APPROVER', userName: 'approver' } },
      guid,
    };
    await stack.built.store.set(`start-intent:${intent.id}`, intent);

    expect(await stack.built.services.attacks.recoverStarts(stack.built.services.guardrails.closeAfterRestart)).toBe(1);
    await stack.built.services.slack.flush();
    expect(read(cardOf(guid))).toContain(`Started by <@${id}>`);
    expect(stack.logs.filter((l) => l['audit'] === 'attack_approved')).toEqual([
      expect.objectContaining({ slackUser: 'U0APPROVER', attack: guid, requestedBy: id }),
    ]);
  });

  it('keeps a start whose attack exists but whose card step failed, and finishes it later', async () => {
    const id = 'U0LOST6';
    await stack.login(id, users().solo);
    const { guards } = stack.built.services.guardrails;
    const setForAttack = guards.setForAttack.bind(guards);
    // The store fails for this one write after the create; no real store fails on demand for one key.
    guards.setForAttack = async () => {
      throw new StoreUnavailableError('sqlite', { cause: new Error('disk I/O error') });
    };
    let reply: Awaited<ReturnType<Stack['ask']>>;
    try {
      reply = await stack.ask(id, 'attack cpu -l 60 --yes', { channel });
    } finally {
      guards.setForAttack = setForAttack;
    }
    const [guid] = [...stack.sim.state.attacks.keys()];
    expect(guid).toBeDefined();
    // Told the attack runs, never that nothing was done: a second try would start a second one.
    expect(read(reply)).toContain(`Your attack ${guid} started`);
    expect(read(reply)).not.toContain('nothing was done');
    expect(cardOf(guid!)).toBeUndefined();
    expect(await intentsLeft()).toBe(1);

    expect(await stack.built.services.attacks.recoverStarts(stack.built.services.guardrails.closeAfterRestart)).toBe(1);
    await stack.built.services.slack.flush();
    expect(read(cardOf(guid!))).toContain(`Started by <@${id}>`);
    expect(messagesTo(id).at(-1)).toContain(`started: ${guid}`);
    expect(stack.sim.state.attacks.size).toBe(1);
    expect(await intentsLeft()).toBe(0);
  });
});
