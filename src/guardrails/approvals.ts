import type { CardRecord, MessageRef } from '../attacks/cards.ts';
import type { PendingAttack } from '../attacks/start.ts';
import type { StartIntent, StartNews } from '../attacks/start.ts';
import { UserInputError } from '../errors.ts';
import type { StepRef } from '../gamedays/plan.ts';
import { keys } from '../store/keys.ts';
import { type ApprovalRecord, type ApprovalRule, approvalTtlMs } from './approvalRequests.ts';
import type { GuardrailParts } from './service.ts';

/**
 * A request for a second person once posted: what it is, how it is answered (the service decides
 * who may), and how it ends, once: expired, answered, closed because the game-day step that asked
 * stopped, or closed by a restarted bot that finished its start. Nothing follows a close.
 */

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

/** Where requests are shown; the words and the Slack calls are in src/slack/notices.ts. */
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
export async function openRecord(
  deps: GuardrailParts,
  requestId: string | undefined,
): Promise<ApprovalRecord | undefined> {
  const id = requestId ?? '';
  if (!/^[0-9a-f-]{36}$/.test(id)) throw new NotARequestError();
  const record = await deps.store.get<ApprovalRecord>(keys.approval.key(id));
  if (!record || Date.parse(record.requestedAt) + approvalTtlMs > deps.clock.now()) return record;
  await closeUnanswered(deps, record, { kind: 'expired' });
  return undefined;
}

/** How a request ended, less what the request itself says (the attack and the people). */
type Ending = ApprovalClosing extends infer C
  ? C extends unknown
    ? Omit<C, 'request' | 'teamName' | 'requester'>
    : never
  : never;

/** How long past its time an answered request may wait for its start to be written down. */
const interruptedAfterMs = 60_000;

/** Whether a start from this request is written down (src/attacks/start.ts), to be finished by whoever holds it. */
async function startUnderway(deps: GuardrailParts, requestId: string): Promise<boolean> {
  for await (const [, intent] of deps.store.entries<StartIntent>(keys.startIntent.prefix))
    if (intent.source.kind === 'approval' && intent.source.id === requestId) return true;
  return false;
}

/** Exactly one answer per request: Approve, Reject or expiry. True for the one that may answer. */
export const decide = (deps: GuardrailParts, id: string) =>
  deps.store.claim(keys.approvalDecided.key(id), keys.approvalDecided.ttlMs);

/**
 * Ends a request: its buttons go at once, and how it ended is kept, so a request answered before
 * its message was saved is closed by the request itself.
 */
export async function closeApproval(deps: GuardrailParts, record: ApprovalRecord, ending: Ending): Promise<void> {
  const { request } = record.pending;
  const closing = { ...ending, request, teamName: record.teamName, requester: record.pending.actor.userId };
  // Kept without the error: it may hold what the platform answered, and need not survive JSON.
  await deps.store.set(
    keys.approvalClosed.key(record.id),
    'error' in closing ? { ...closing, error: undefined } : closing,
    keys.approvalClosed.ttlMs,
  );
  const posted = await deps.store.get<MessageRef>(keys.approvalMessage.key(record.id));
  if (posted) deps.approvals.close(posted, closing);
  await deps.store.delete(keys.approval.key(record.id));
  // A game-day step waiting for this approval does not wait any more: the plan goes on.
  if (record.pending.step && !['approved', 'step stopped', 'step not waiting'].includes(closing.kind))
    await deps.planApprovals.closed(record.pending.step, closing);
  // A Workflow Builder step that asked is completed (approved and started) or failed.
  if (record.workflowStep)
    await deps.workflow
      .approvalClosed(record.workflowStep, closing)
      .catch((error: unknown) =>
        deps.logger.warn({ err: error, request: record.id }, 'could not finish the step that asked for approval'),
      );
}

/** Ends a request nobody has answered yet; one answered already is left to its answer. */
async function closeUnanswered(deps: GuardrailParts, record: ApprovalRecord, ending: Ending): Promise<void> {
  if (await decide(deps, record.id)) await closeApproval(deps, record, ending);
}

/**
 * Closes an approved request whose start a restarted bot finished (src/attacks/recoverStarts.ts): with the
 * attack it started, or saying there is none to show (never sent, or not found on the platform).
 */
export async function closeApprovalAfterRestart(
  deps: GuardrailParts,
  id: string,
  approver: { userId: string },
  started: { guid: string; carded: boolean } | undefined,
): Promise<void> {
  const record = await deps.store.get<ApprovalRecord>(keys.approval.key(id));
  if (!record) return;
  await closeApproval(
    deps,
    record,
    started
      ? { kind: 'approved', approver: approver.userId, guid: started.guid, carded: started.carded }
      : { kind: 'lost in a restart', approver: approver.userId },
  );
}

/**
 * Closes the open request a game-day step waits on, once the step was skipped or vetoed: nothing
 * starts from it, and its message says why. An Approve that got there first finds the step gone.
 */
export async function closeStepApproval(
  deps: GuardrailParts,
  ref: StepRef,
  stopped: { how: 'skipped' | 'vetoed'; by: string },
): Promise<void> {
  for await (const [, record] of deps.store.entries<ApprovalRecord>(keys.approval.prefix)) {
    if (record.pending.step?.stepId !== ref.stepId || record.pending.step.gameDayId !== ref.gameDayId) continue;
    await closeUnanswered(deps, record, { kind: 'step stopped', ...stopped });
  }
}

/** Once per poll pass: requests left unanswered for 15 minutes end, and say so. Never throws. */
export async function expireApprovals(deps: GuardrailParts): Promise<void> {
  try {
    for await (const [, record] of deps.store.entries<ApprovalRecord>(keys.approval.prefix)) {
      const over = deps.clock.now() - (Date.parse(record.requestedAt) + approvalTtlMs);
      if (over < 0) continue;
      if (await decide(deps, record.id)) await closeApproval(deps, record, { kind: 'expired' });
      // Answered, yet still open a minute past its time with no start under way: the bot that took
      // the answer stopped before it began the start, and nobody else may answer it again.
      else if (over >= interruptedAfterMs && !(await startUnderway(deps, record.id)))
        await closeApproval(deps, record, { kind: 'interrupted' });
    }
  } catch (error) {
    deps.logger.warn({ err: error }, 'could not end expired approval requests');
  }
}
