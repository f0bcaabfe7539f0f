import { randomUUID } from 'node:crypto';
import type { MessageRef } from '../attacks/cards.ts';
import type { PendingAttack, StartParts } from '../attacks/start.ts';
import { teamName } from '../attacks/access.ts';
import type { TeamEntry } from '../client/index.ts';
import { keys } from '../store/keys.ts';
import type { ApprovalClosing, ApprovalRequest, WaitingWorkflowStep } from './approvals.ts';
import { type ApprovalRule, approvalRuleFor } from './approvalRules.ts';

/**
 * Asking for a second person: which rule asks for one, and the request posted in the channel.
 * Only the start policy (src/attacks/startPolicy.ts) asks; answering is approvals.ts's.
 */

/** A request stays open this long; then it ends and nothing starts. */
export const approvalTtlMs = 15 * 60_000;

/** A request as kept until it is answered or ends. */
export interface ApprovalRecord {
  id: string;
  pending: Omit<PendingAttack, 'id'>;
  teamName: string;
  rule: ApprovalRule;
  requestedAt: string;
  channel: string;
  ts: string;
  /** The requester's platform login: the same login from another Slack account may not approve either. */
  requestedByPlatform?: string | undefined;
  /** The Workflow Builder step that asked, when one did. */
  workflowStep?: WaitingWorkflowStep | undefined;
}

/** The rule that makes this start need a second person, if any. */
export function approvalNeeded(
  deps: StartParts,
  pending: Omit<PendingAttack, 'id'>,
  team: TeamEntry,
): ApprovalRule | undefined {
  const { request, channel } = pending;
  return approvalRuleFor(deps.config.approvalRules, {
    type: request.type,
    lengthSeconds: request.lengthSeconds,
    everyClient: request.target.kind === 'all',
    team: { id: team.identifier, name: teamName(team) },
    channel,
  });
}

/** Posts the request in the attack's channel; it starts nothing until someone else approves. */
export async function requestApproval(
  deps: StartParts,
  pending: Omit<PendingAttack, 'id'>,
  team: TeamEntry,
  rule: ApprovalRule,
  workflowStep?: WaitingWorkflowStep,
): Promise<{ channel: string; rule: ApprovalRule }> {
  const id = randomUUID();
  const now = deps.clock.now();
  const name = teamName(team);
  const view: ApprovalRequest = {
    id,
    pending,
    rule,
    teamName: name,
    expiresAt: new Date(now + approvalTtlMs).toISOString(),
  };
  // Kept before it is posted: an Approve clicked the moment it appears must find it.
  const requestedByPlatform = (await deps.sessions.get(pending.actor))?.session.identifier;
  const record: ApprovalRecord = {
    id,
    pending,
    teamName: name,
    rule,
    requestedAt: new Date(now).toISOString(),
    channel: pending.channel,
    ts: '',
    requestedByPlatform,
    ...(workflowStep ? { workflowStep } : {}),
  };
  await deps.store.set(keys.approval.key(id), record, keys.approval.ttlMs);
  let posted: MessageRef;
  try {
    posted = await deps.approvals.post(view);
  } catch (error) {
    await deps.store.delete(keys.approval.key(id)).catch(() => undefined);
    throw error;
  }
  await deps.store.set(
    keys.approvalMessage.key(id),
    { channel: posted.channel, ts: posted.ts },
    keys.approvalMessage.ttlMs,
  );
  // Answered before the message was saved: the answer could not close it, so close it here.
  const closed = await deps.store.get<ApprovalClosing>(keys.approvalClosed.key(id));
  if (closed !== undefined) deps.approvals.close(posted, closed);
  await deps.events.record({
    kind: 'approval',
    decision: 'requested',
    by: pending.actor,
    teamId: team.identifier,
    details: { type: pending.request.type },
    rule,
  });
  return { channel: posted.channel, rule };
}
