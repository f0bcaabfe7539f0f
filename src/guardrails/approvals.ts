import { mayRunAttacks, requireLogin } from '../attacks/access.ts';
import type { CardRecord, MessageRef } from '../attacks/cards.ts';
import type { PendingAttack } from '../attacks/start.ts';
import type { StartNews } from '../attacks/startIntents.ts';
import type { GuardrailParts } from './service.ts';
import { UserInputError } from '../errors.ts';
import type { Actor } from '../store/sessions.ts';
import { keys } from '../store/keys.ts';
import { closeApproval, decide, expiredApproval } from './approvalClosing.ts';
import type { ApprovalRecord, ApprovalRule } from './approvalRequests.ts';

/** A request for a second person, as posted in the attack's channel. */
export interface ApprovalRequest {
  id: string;
  pending: Omit<PendingAttack, 'id'>;
  teamName: string;
  /** The rule that asked for it. */
  rule: ApprovalRule;
  expiresAt: string;
}

/** The attack a request is about, and the people it was between. */
type About = { request: PendingAttack['request']; teamName: string; requester: string };

/** How a request ended, as its message then says. Kept, so a request answered before its message was saved is closed by the request itself. */
export type ApprovalClosing = About &
  (
    | { kind: 'expired' }
    | { kind: 'requester gone'; approver: string }
    | { kind: 'approved'; approver: string; guid: string; carded: boolean }
    | { kind: 'not started'; approver: string; error: unknown }
    /** Approved, then Faultline restarted during the start and found no attack to show for it. */
    | { kind: 'lost in a restart'; approver: string }
    /** Answered, then Faultline stopped before it began the start: nothing was started. */
    | { kind: 'interrupted' }
    | { kind: 'withdrawn' }
    | { kind: 'rejected'; by: string }
    /** The game-day step that asked was skipped or vetoed while it waited. */
    | { kind: 'step stopped'; how: 'skipped' | 'vetoed'; by: string }
    /** Approved, but the game-day step that asked no longer waited for it. */
    | { kind: 'step not waiting'; approver: string }
  );

/** What an Approve or a Reject did, for the person who clicked. */
export type ApprovalAnswer =
  | { kind: 'not open' }
  | { kind: 'own request' }
  | { kind: 'same platform login' }
  | { kind: 'not allowed'; decision: 'approve' | 'reject'; teamName: string }
  /** Another answer got there first: it says what happened. */
  | { kind: 'already answered' }
  | { kind: 'requester gone' }
  | { kind: 'started'; guid: string; requester: string }
  | { kind: 'not started'; error: unknown }
  | { kind: 'withdrawn' }
  | { kind: 'rejected' };

/** An Approve or Reject button whose value names no request (forged, or from an older Faultline). */
export class NotARequestError extends UserInputError {
  override name = 'NotARequestError';
  constructor() {
    super('The button names no approval request.');
  }
}

/** Where requests are shown; the words and the Slack calls are src/slack/approvalBoard.ts's. */
export interface ApprovalBoard {
  /** Posts the request in its channel, with Approve and Reject. */
  post(request: ApprovalRequest): Promise<MessageRef>;
  /** Takes the buttons off an answered request, ahead of routine card updates, and says how it ended. */
  close(at: MessageRef, closing: ApprovalClosing): void;
}

/** A Workflow Builder step (Run saved attack) waiting on a request, to be completed or failed once it ends. */
export interface WaitingWorkflowStep {
  executionId: string;
  /** Completed only once the attack it starts has ended, with its final stage. */
  waitForEnd: boolean;
}

/**
 * Where Workflow Builder steps are finished after their delivery (src/workflow/service.ts):
 * one waiting on a second person, one waiting for its attack to end.
 */
export interface WorkflowSteps {
  /** A request a step waits on has ended: approved and started, or not. */
  approvalClosed(step: WaitingWorkflowStep, closing: ApprovalClosing): Promise<void>;
  /** Completes the step with the attack's id and final stage once the attack has ended. */
  waitForEnd(executionId: string, guid: string): Promise<void>;
  /** An attack's card shows it has ended: a step waiting on it completes. */
  attackFinished(card: Pick<CardRecord, 'guid' | 'stage'>): Promise<void>;
  /** A start a stopped bot left, run by a step, is finished: the step takes its outcome. */
  startEnded(step: WaitingWorkflowStep, news: StartNews): Promise<void>;
}

/** An open request by the id its button carries; one whose time is over is closed as expired. */
async function openRecord(deps: GuardrailParts, requestId: string | undefined): Promise<ApprovalRecord | undefined> {
  const id = requestId ?? '';
  if (!/^[0-9a-f-]{36}$/.test(id)) throw new NotARequestError();
  const record = await deps.store.get<ApprovalRecord>(keys.approval.key(id));
  return record && !(await expiredApproval(deps, record)) ? record : undefined;
}

const isRequester = (r: ApprovalRecord, a: Actor) =>
  r.pending.actor.userId === a.userId && r.pending.actor.workspaceId === a.workspaceId;
/** The same platform login as the requester's, from any Slack account. */
const samePlatformUser = (a: string | undefined, b: string | undefined) =>
  a !== undefined && b !== undefined && a.toLowerCase() === b.toLowerCase();

/** Whether this person's own session may run attacks in the team (EXPERIMENTS_RUN). */
async function canRun(deps: GuardrailParts, actor: Actor, teamId: string): Promise<boolean> {
  const login = await requireLogin(deps, actor);
  const team = login.session.teams.find((t) => t.identifier === teamId);
  return team !== undefined && mayRunAttacks(team);
}

/**
 * Approve: another person, logged in, with EXPERIMENTS_RUN on the team (from their own session).
 * Starts exactly one attack with the requester's session, recording both people.
 */
export async function approveRequest(
  deps: GuardrailParts,
  actor: Actor,
  requestId: string | undefined,
): Promise<ApprovalAnswer> {
  const record = await openRecord(deps, requestId);
  if (!record) return { kind: 'not open' };
  if (isRequester(record, actor)) return { kind: 'own request' };
  const requesterPlatform =
    record.requestedByPlatform ?? (await deps.sessions.get(record.pending.actor))?.session.identifier;
  if (samePlatformUser(requesterPlatform, (await requireLogin(deps, actor)).session.identifier)) {
    return { kind: 'same platform login' };
  }
  if (!(await canRun(deps, actor, record.pending.teamId))) {
    return { kind: 'not allowed', decision: 'approve', teamName: record.teamName };
  }
  if (!(await decide(deps, record.id))) return { kind: 'already answered' };
  // A step's start: only while that step still waits for this approval.
  if (record.pending.step && !(await deps.planApprovals.approved(record.pending.step))) {
    await closeApproval(deps, record, { kind: 'step not waiting', approver: actor.userId });
    return { kind: 'not open' };
  }
  const requester = record.pending.actor;
  const login = await deps.sessions.get(requester);
  const team = login?.session.teams.find((t) => t.identifier === record.pending.teamId);
  if (!login || !team) {
    await closeApproval(deps, record, { kind: 'requester gone', approver: actor.userId });
    return { kind: 'requester gone' };
  }
  const approver = { userId: actor.userId, userName: actor.userName };
  try {
    const { request, channel, unknownGuards, step, targets } = record.pending;
    const started = await deps.startApproved(
      { actor: requester, login, team, request, channel },
      { kind: 'approval', id: record.id, approver, acknowledgedGuards: unknownGuards, step, targets },
    );
    await deps.events.record({
      kind: 'approval',
      decision: 'approved',
      by: actor,
      platformUser: login.session.identifier,
      teamId: team.identifier,
      attack: started.guid,
      requestedBy: requester.userId,
    });
    await closeApproval(deps, record, {
      kind: 'approved',
      approver: actor.userId,
      guid: started.guid,
      carded: Boolean(started.card),
    });
    return { kind: 'started', guid: started.guid, requester: requester.userId };
  } catch (error) {
    await closeApproval(deps, record, { kind: 'not started', approver: actor.userId, error });
    return { kind: 'not started', error };
  }
}

/** Reject: the requester withdrawing, or anyone who could have approved. Nothing starts. */
export async function rejectRequest(
  deps: GuardrailParts,
  actor: Actor,
  requestId: string | undefined,
): Promise<ApprovalAnswer> {
  const record = await openRecord(deps, requestId);
  if (!record) return { kind: 'not open' };
  const own = isRequester(record, actor);
  if (!own && !(await canRun(deps, actor, record.pending.teamId))) {
    return { kind: 'not allowed', decision: 'reject', teamName: record.teamName };
  }
  if (!(await decide(deps, record.id))) return { kind: 'already answered' };
  await closeApproval(deps, record, own ? { kind: 'withdrawn' } : { kind: 'rejected', by: actor.userId });
  await deps.events.record({
    kind: 'approval',
    decision: 'rejected',
    by: actor,
    teamId: record.pending.teamId,
    requestedBy: record.pending.actor.userId,
  });
  return { kind: own ? 'withdrawn' : 'rejected' };
}
