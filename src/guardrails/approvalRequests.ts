import { randomUUID } from 'node:crypto';
import type { MessageRef } from '../attacks/cards.ts';
import type { PendingAttack, StartParts } from '../attacks/start.ts';
import { teamName } from '../attacks/access.ts';
import type { TeamEntry } from '../client/index.ts';
import { keys } from '../store/keys.ts';
import type { ApprovalClosing, ApprovalRequest, WaitingWorkflowStep } from './approvals.ts';

/**
 * Asking for a second person: which rule asks for one, and the request posted in the channel.
 * Only the start policy (src/attacks/startPolicy.ts) asks; who may answer is the guardrail
 * service's, and how a request ends is approvals.ts's.
 */

/**
 * When a start needs a second person (`APPROVAL_RULES`): `always`, `all-targets` (no target flag:
 * every client of the team), `length>SECONDS`, `type=<attack type>`, `team=<name or id>`,
 * `channel=<id>`, separated by commas. Any one rule that matches is enough.
 */
export type ApprovalRule =
  | { kind: 'always' }
  | { kind: 'all-targets' }
  | { kind: 'length'; seconds: number }
  | { kind: 'type'; type: string }
  | { kind: 'team'; team: string }
  | { kind: 'channel'; channel: string };

/** The rules, or the first entry that is not one (for the configuration error). */
export function parseApprovalRules(text: string): { rules: ApprovalRule[] } | { wrong: string } {
  const rules: ApprovalRule[] = [];
  for (const raw of text
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean)) {
    const rule = parseRule(raw);
    if (!rule) return { wrong: raw };
    rules.push(rule);
  }
  return { rules };
}

function parseRule(raw: string): ApprovalRule | undefined {
  if (raw === 'always') return { kind: 'always' };
  if (raw === 'all-targets') return { kind: 'all-targets' };
  let match = /^length\s*>\s*(\d{1,7})$/.exec(raw);
  if (match) return { kind: 'length', seconds: Number(match[1]) };
  match = /^(type|team|channel)\s*=\s*(\S(?:.*\S)?)$/.exec(raw);
  if (!match) return undefined;
  const [, key, value] = match as unknown as [string, 'type' | 'team' | 'channel', string];
  if (key === 'channel') return /^[CGD][A-Z0-9]{2,}$/.test(value) ? { kind: 'channel', channel: value } : undefined;
  return key === 'type' ? { kind: 'type', type: value } : { kind: 'team', team: value };
}

export interface ApprovalSubject {
  type: string;
  /** Undefined when the attack runs until it completes. */
  lengthSeconds: number | undefined;
  everyClient: boolean;
  team: { id: string; name: string };
  channel: string;
}

/** The first rule a start matches, if any. */
export function approvalRuleFor(rules: readonly ApprovalRule[], s: ApprovalSubject): ApprovalRule | undefined {
  return rules.find((rule) => {
    switch (rule.kind) {
      case 'always':
        return true;
      case 'all-targets':
        return s.everyClient;
      case 'length':
        return s.lengthSeconds === undefined || s.lengthSeconds > rule.seconds;
      case 'type':
        return s.type.toLowerCase() === rule.type.toLowerCase();
      case 'team':
        return [s.team.id, s.team.name].some((t) => t.toLowerCase() === rule.team.toLowerCase());
      case 'channel':
        return s.channel === rule.channel;
    }
  });
}

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
