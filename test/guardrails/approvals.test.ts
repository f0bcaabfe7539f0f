/**
 * Answering a request for a second person: who may approve or reject (from their own session),
 * and how a request ends, once: approved, rejected, withdrawn, expired, or closed because the
 * game-day step that asked stopped. Nothing answers a closed request.
 */
import { describe, expect, it } from 'vitest';
import type { DemoUser } from '@faultline/platform-sim';
import { startPolicy, type StartWay } from '../../src/attacks/startPolicy.ts';
import { builtInCatalogue } from '../../src/client/catalogue.ts';
import { parseAttackCommand } from '../../src/commands/attacks/parse.ts';
import { approvalTtlMs } from '../../src/guardrails/approvalRequests.ts';
import { NotLoggedInError } from '../../src/errors.ts';
import { closeStepApproval, expireApprovals, NotARequestError } from '../../src/guardrails/approvals.ts';
import type { Actor } from '../../src/store/sessions.ts';
import { keys } from '../../src/store/keys.ts';
import { channel, monitoring, useGuardrails } from './parts.ts';

const t = useGuardrails();

/** The owner, as U0ASKER, asks to start a memory attack in the Platform team (`type=memory` asks a second person). */
async function requested(way: StartWay = { kind: 'command' }): Promise<{ id: string; requester: Actor }> {
  const requester = await t.login('U0ASKER');
  const login = (await t.deps.sessions.get(requester))!;
  const team = login.session.teams.find((team) => team.identifier === t.sim.seed.teams.platform.id)!;
  const request = parseAttackCommand('memory -l 30 -p 10', builtInCatalogue, { maxAttackSeconds: 3600, monitoring });
  const outcome = await startPolicy(t.deps, { actor: requester, login, team, request, channel }, way);
  expect(outcome.kind).toBe('approval requested');
  return { id: t.posted.at(-1)!.id, requester };
}

const approvals = () => t.events.filter((e) => e.kind === 'approval').map((e) => e.decision);
const open = async (id: string) => (await t.store.get(keys.approval.key(id))) !== undefined;

describe('who may approve', () => {
  it('starts exactly one attack when another person with EXPERIMENTS_RUN approves, in the requester’s name', async () => {
    const { id } = await requested();
    const approver = await t.login('U0SOLO', t.sim.seed.users.solo);
    const answer = await t.service.approve(approver, id);
    expect(answer).toEqual({ kind: 'started', guid: expect.any(String), requester: 'U0ASKER' });
    expect(t.creates()).toBe(1);
    expect(t.closings).toEqual([
      expect.objectContaining({ kind: 'approved', approver: 'U0SOLO', requester: 'U0ASKER', teamName: 'Platform' }),
    ]);
    expect(approvals()).toEqual(['requested', 'approved']);
    expect(await open(id)).toBe(false);
  });

  it('refuses the requester, and the same platform login from another Slack account', async () => {
    const { id, requester } = await requested();
    expect(await t.service.approve(requester, id)).toEqual({ kind: 'own request' });
    const twin = await t.login('U0TWIN');
    expect(await t.service.approve(twin, id)).toEqual({ kind: 'same platform login' });
    expect(t.creates()).toBe(0);
    expect(t.closings).toEqual([]);
    expect(await open(id)).toBe(true);
  });

  it('refuses someone whose own session lacks EXPERIMENTS_RUN on the team, and another company', async () => {
    const { id } = await requested();
    for (const [userId, user] of [
      ['U0OBSERVER', t.sim.seed.users.observer],
      ['U0GLOBEX', t.sim.seed.users.globex],
    ] as [string, DemoUser][]) {
      const person = await t.login(userId, user);
      expect(await t.service.approve(person, id)).toEqual({
        kind: 'not allowed',
        decision: 'approve',
        teamName: 'Platform',
      });
      expect(await t.service.reject(person, id)).toEqual({
        kind: 'not allowed',
        decision: 'reject',
        teamName: 'Platform',
      });
    }
    expect(t.creates()).toBe(0);
    expect(await open(id)).toBe(true);
  });

  it('asks an approver who is not logged in to log in, and names no request for a forged button', async () => {
    const { id } = await requested();
    const stranger = { workspaceId: 'T0GUARDS', userId: 'U0NOBODY', userName: 'nobody', channelId: channel };
    await expect(t.service.approve(stranger, id)).rejects.toBeInstanceOf(NotLoggedInError);
    await expect(t.service.approve(stranger, 'not-a-request')).rejects.toBeInstanceOf(NotARequestError);
    await expect(t.service.reject(stranger, undefined)).rejects.toBeInstanceOf(NotARequestError);
    expect(await open(id)).toBe(true);
  });
});

describe('an approval’s state', () => {
  it('is rejected by another person who could approve, or withdrawn by the requester; nothing starts', async () => {
    const first = await requested();
    const other = await t.login('U0SOLO', t.sim.seed.users.solo);
    expect(await t.service.reject(other, first.id)).toEqual({ kind: 'rejected' });
    const second = await requested();
    expect(await t.service.reject(second.requester, second.id)).toEqual({ kind: 'withdrawn' });
    expect(t.closings.map((c) => c.kind)).toEqual(['rejected', 'withdrawn']);
    expect(t.closings[0]).toEqual(expect.objectContaining({ by: 'U0SOLO' }));
    expect(t.creates()).toBe(0);
  });

  it('takes nothing after a close: a second Approve or a Reject finds it not open', async () => {
    const { id } = await requested();
    const approver = await t.login('U0SOLO', t.sim.seed.users.solo);
    await t.service.approve(approver, id);
    expect(await t.service.approve(approver, id)).toEqual({ kind: 'not open' });
    expect(await t.service.reject(approver, id)).toEqual({ kind: 'not open' });
    await expireApprovals(t.deps);
    expect(t.creates()).toBe(1);
    expect(t.closings.map((c) => c.kind)).toEqual(['approved']);
  });

  it('expires after 15 minutes: an Approve then finds it closed, and the pass closes the others', async () => {
    const first = await requested();
    const second = await requested();
    t.later(approvalTtlMs);
    const approver = await t.login('U0SOLO', t.sim.seed.users.solo);
    expect(await t.service.approve(approver, first.id)).toEqual({ kind: 'not open' });
    await expireApprovals(t.deps);
    await expireApprovals(t.deps);
    expect(t.closings.map((c) => c.kind)).toEqual(['expired', 'expired']);
    expect([await open(first.id), await open(second.id)]).toEqual([false, false]);
    expect(t.creates()).toBe(0);
  });

  it('stays open before its time, and a pass leaves it alone', async () => {
    const { id } = await requested();
    t.later(approvalTtlMs - 1000);
    await expireApprovals(t.deps);
    expect(t.closings).toEqual([]);
    expect(await open(id)).toBe(true);
  });

  it('closes when the game-day step that asked is skipped, and an Approve then starts nothing', async () => {
    const step = { gameDayId: 'day-1', stepId: 'step-1', channel };
    const { id } = await requested({ kind: 'plan step', step, awaitApproval: async () => undefined });
    await closeStepApproval(t.deps, { ...step, stepId: 'step-2' }, { how: 'skipped', by: 'U0LEAD' });
    expect(await open(id)).toBe(true);
    await closeStepApproval(t.deps, step, { how: 'skipped', by: 'U0LEAD' });
    expect(t.closings).toEqual([expect.objectContaining({ kind: 'step stopped', how: 'skipped', by: 'U0LEAD' })]);
    const approver = await t.login('U0SOLO', t.sim.seed.users.solo);
    expect(await t.service.approve(approver, id)).toEqual({ kind: 'not open' });
    await closeStepApproval(t.deps, step, { how: 'vetoed', by: 'U0LEAD' });
    expect(t.closings).toHaveLength(1);
    expect(t.creates()).toBe(0);
  });
});
