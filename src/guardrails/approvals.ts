import { randomUUID } from 'node:crypto';
import type { TeamEntry } from '../client/index.ts';
import { describeTarget } from '../attacks/request.ts';
import { type PendingAttack, startAttack } from '../attacks/start.ts';
import type { Deps } from '../deps.ts';
import { UserInputError } from '../errors.ts';
import { type ApprovalRule, approvalRuleFor, ruleText } from './approvalRules.ts';
import { type Action, message, type Reply } from '../commands/contract.ts';
import type { Actor } from '../store/sessions.ts';
import { approvalClosedMessage, approvalRequestMessage } from '../views/approval.ts';
import { escapeMrkdwn } from '../views/blocks.ts';
import { describeError } from '../views/errorReply.ts';
import { requireLogin, teamName } from '../attacks/access.ts';

/** A request stays open this long; then it ends and nothing starts. */
export const approvalTtlMs = 15 * 60_000;

interface ApprovalRecord {
  id: string;
  pending: Omit<PendingAttack, 'id'>;
  teamName: string;
  why: string;
  requestedAt: string;
  channel: string;
  ts: string;
  /** The requester's platform login: the same login from another Slack account may not approve either. */
  requestedByPlatform?: string | undefined;
}

const key = (id: string) => `approval:${id}`;
/**
 * Where the request was posted, and the closing text once it is answered: kept apart from the
 * request, so saving the message after posting never brings back a request an instant click closed.
 */
const messageKey = (id: string) => `approval-message:${id}`;
const closedKey = (id: string) => `approval-closed:${id}`;
const keptMs = 24 * 3600_000;

/** The rule that makes this start need a second person, if any. */
export function approvalNeeded(
  deps: Deps,
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

function describe(pending: Omit<PendingAttack, 'id'>, team: string): string {
  const args = pending.request.args.length
    ? ` \`${escapeMrkdwn(pending.request.args.join(' ')).replace(/`/g, "'")}\``
    : '';
  const target = describeTarget(pending.request.target, team);
  const where = target.includes(`team ${team}`) ? '' : ` in team *${escapeMrkdwn(team)}*`;
  return `*${escapeMrkdwn(pending.request.type)}* attack${args} on ${escapeMrkdwn(target)}${where}`;
}

/** Posts the request in the attack's channel; it starts nothing until someone else approves. */
export async function requestApproval(
  deps: Deps,
  pending: Omit<PendingAttack, 'id'>,
  team: TeamEntry,
  rule: ApprovalRule,
): Promise<Reply> {
  const id = randomUUID();
  const now = deps.clock.now();
  const name = teamName(team);
  const view = {
    id,
    requester: pending.actor.userId,
    what: describe(pending, name),
    why: ruleText(rule),
    teamName: name,
    expiresAt: new Date(now + approvalTtlMs).toISOString(),
  };
  // Kept before it is posted: an Approve clicked the moment it appears must find it.
  const requestedByPlatform = (await deps.sessions.get(pending.actor))?.session.identifier;
  const record: ApprovalRecord = {
    id,
    pending,
    teamName: name,
    why: view.why,
    requestedAt: new Date(now).toISOString(),
    channel: pending.channel,
    ts: '',
    requestedByPlatform,
  };
  await deps.store.set(key(id), record, keptMs);
  let posted: { channel: string; ts: string };
  try {
    posted = await deps.slack.post(pending.channel, approvalRequestMessage(view));
  } catch (error) {
    await deps.store.delete(key(id)).catch(() => undefined);
    throw error;
  }
  await deps.store.set(messageKey(id), { channel: posted.channel, ts: posted.ts }, keptMs);
  // Answered before the message was saved: the answer could not close it, so close it here.
  const closed = await deps.store.get<string>(closedKey(id));
  if (closed !== undefined) deps.slack.update(posted.channel, posted.ts, approvalClosedMessage(closed), 'urgent');
  await deps.events.record({
    kind: 'approval',
    decision: 'requested',
    by: pending.actor,
    teamId: team.identifier,
    details: { type: pending.request.type, rule: view.why },
  });
  return message(
    `:raised_hand: This start needs a second person because ${view.why}. The request is in <#${posted.channel}>; the attack starts when someone approves it.`,
  );
}

/** Exactly one answer per request: Approve, Reject or expiry. */
const decide = (deps: Deps, id: string) => deps.store.claim(`approval-decided:${id}`, 24 * 3600_000);

/**
 * Ends a request: its buttons go at once (ahead of routine card updates), and the closing text is
 * kept, so a request answered before its message was saved is closed by the request itself.
 */
async function close(deps: Deps, record: ApprovalRecord, text: string): Promise<void> {
  await deps.store.set(closedKey(record.id), text, keptMs);
  const posted = await deps.store.get<{ channel: string; ts: string }>(messageKey(record.id));
  if (posted) deps.slack.update(posted.channel, posted.ts, approvalClosedMessage(text), 'urgent');
  await deps.store.delete(key(record.id));
}

async function openRecord(deps: Deps, action: Action): Promise<ApprovalRecord | undefined> {
  const id = action.value ?? '';
  if (!/^[0-9a-f-]{36}$/.test(id)) throw new UserInputError('That button no longer points at a request.');
  const record = await deps.store.get<ApprovalRecord>(key(id));
  if (record && Date.parse(record.requestedAt) + approvalTtlMs <= deps.clock.now()) {
    if (await decide(deps, record.id)) await close(deps, record, expiredText(record));
    return undefined;
  }
  return record;
}

const expiredText = (r: ApprovalRecord) =>
  `:hourglass: <@${r.pending.actor.userId}>'s request to start a ${describe(r.pending, r.teamName)} ended after 15 minutes without an answer. Nothing was started.`;
const isRequester = (r: ApprovalRecord, a: Actor) =>
  r.pending.actor.userId === a.userId && r.pending.actor.workspaceId === a.workspaceId;
/** The same platform login as the requester's, from any Slack account. */
const samePlatformUser = (a: string | undefined, b: string | undefined) =>
  a !== undefined && b !== undefined && a.toLowerCase() === b.toLowerCase();

/** Whether this person's own session may run attacks in the team (EXPERIMENTS_RUN). */
async function canRun(deps: Deps, actor: Actor, teamId: string): Promise<boolean> {
  const login = await requireLogin(deps, actor);
  const team = login.session.teams.find((t) => t.identifier === teamId);
  return Boolean(team?.privileges?.includes('EXPERIMENTS_RUN'));
}

/**
 * Approve: another person, logged in, with EXPERIMENTS_RUN on the team (from their own session).
 * Starts exactly one attack with the requester's session, recording both people.
 */
export async function approveRequest(action: Action, deps: Deps): Promise<Reply> {
  const record = await openRecord(deps, action);
  if (!record) return message('This request is no longer open; nothing was started.');
  if (isRequester(record, action.actor))
    return message('You asked for this attack, so someone else has to approve it.');
  const requesterPlatform =
    record.requestedByPlatform ?? (await deps.sessions.get(record.pending.actor))?.session.identifier;
  if (samePlatformUser(requesterPlatform, (await requireLogin(deps, action.actor)).session.identifier)) {
    return message(
      'This attack was asked for with your platform login, so someone else has to approve it. Nothing was started.',
    );
  }
  if (!(await canRun(deps, action.actor, record.pending.teamId))) {
    return message(
      `Approving needs EXPERIMENTS_RUN on team *${escapeMrkdwn(record.teamName)}*, which your platform login does not have. Nothing was started.`,
    );
  }
  if (!(await decide(deps, record.id))) return { kind: 'none' };
  const requester = record.pending.actor;
  const what = describe(record.pending, record.teamName);
  const login = await deps.sessions.get(requester);
  const team = login?.session.teams.find((t) => t.identifier === record.pending.teamId);
  if (!login || !team) {
    await close(
      deps,
      record,
      `:warning: <@${action.actor.userId}> approved the ${what}, but <@${requester.userId}> is no longer logged in to that team. Nothing was started; they can log in and ask again.`,
    );
    return message('Approved, but the requester is no longer logged in: nothing was started.');
  }
  const approver = { userId: action.actor.userId, userName: action.actor.userName };
  try {
    const started = await startAttack(deps, requester, login, team, record.pending.request, record.pending.channel, {
      acknowledgedGuards: record.pending.unknownGuards,
      approvedBy: approver,
    });
    await deps.events.record({
      kind: 'approval',
      decision: 'approved',
      by: action.actor,
      platformUser: login.session.identifier,
      teamId: team.identifier,
      attack: started.guid,
      requestedBy: requester.userId,
    });
    await close(
      deps,
      record,
      `:white_check_mark: <@${action.actor.userId}> approved <@${requester.userId}>'s ${what}: started \`${started.guid}\`${started.card ? '; its card shows it live' : ''}.`,
    );
    return message(`Approved: attack \`${started.guid}\` started with <@${requester.userId}>'s session.`);
  } catch (error) {
    const why = describeError(error, { command: deps.config.slack.command }).text ?? 'the start failed';
    await close(
      deps,
      record,
      `:x: <@${action.actor.userId}> approved <@${requester.userId}>'s ${what}, but it did not start: ${why}`,
    );
    return message(`Approved, but it did not start: ${why}`);
  }
}

/** Reject: the requester withdrawing, or anyone who could have approved. Nothing starts. */
export async function rejectRequest(action: Action, deps: Deps): Promise<Reply> {
  const record = await openRecord(deps, action);
  if (!record) return message('This request is no longer open; nothing was started.');
  const own = isRequester(record, action.actor);
  if (!own && !(await canRun(deps, action.actor, record.pending.teamId))) {
    return message(`Rejecting needs EXPERIMENTS_RUN on team *${escapeMrkdwn(record.teamName)}*, as approving does.`);
  }
  if (!(await decide(deps, record.id))) return { kind: 'none' };
  const what = describe(record.pending, record.teamName);
  await close(
    deps,
    record,
    own
      ? `:no_entry: <@${action.actor.userId}> withdrew the request to start a ${what}. Nothing was started.`
      : `:no_entry: <@${action.actor.userId}> rejected <@${record.pending.actor.userId}>'s ${what}. Nothing was started.`,
  );
  await deps.events.record({
    kind: 'approval',
    decision: 'rejected',
    by: action.actor,
    teamId: record.pending.teamId,
    requestedBy: record.pending.actor.userId,
  });
  return message(own ? 'Withdrawn; nothing was started.' : 'Rejected; nothing was started.');
}

/** Once per poll pass: requests left unanswered for 15 minutes end, and say so. Never throws. */
export async function expireApprovals(deps: Deps): Promise<void> {
  try {
    for await (const [, record] of deps.store.entries<ApprovalRecord>('approval:')) {
      if (Date.parse(record.requestedAt) + approvalTtlMs > deps.clock.now()) continue;
      if (await decide(deps, record.id)) await close(deps, record, expiredText(record));
    }
  } catch (error) {
    deps.logger.warn({ err: error }, 'could not end expired approval requests');
  }
}
