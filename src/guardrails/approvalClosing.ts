import type { MessageRef } from '../attacks/cards.ts';
import type { StartIntent } from '../attacks/startIntents.ts';
import type { GuardrailParts } from './service.ts';
import type { StepRef } from '../gamedays/plan.ts';
import { keys } from '../store/keys.ts';
import { type ApprovalRecord, approvalTtlMs } from './approvalRequests.ts';
import type { ApprovalClosing } from './approvals.ts';

/**
 * How a request ends, once: expired, answered (approvals.ts), closed because the game-day step
 * that asked stopped, or closed by a restarted bot that finished its start. Nothing follows a close.
 */

/** How a request ended, less what the request itself says (the attack and the people). */
export type Ending = ApprovalClosing extends infer C
  ? C extends unknown
    ? Omit<C, 'request' | 'teamName' | 'requester'>
    : never
  : never;

/** How long past its time an answered request may wait for its start to be written down. */
const interruptedAfterMs = 60_000;

/** Whether a start from this request is written down (startIntents.ts), to be finished by whoever holds it. */
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

/** Whether a request's 15 minutes are over; one that is over is closed as expired unless answered. */
export async function expiredApproval(deps: GuardrailParts, record: ApprovalRecord): Promise<boolean> {
  if (Date.parse(record.requestedAt) + approvalTtlMs > deps.clock.now()) return false;
  await closeUnanswered(deps, record, { kind: 'expired' });
  return true;
}

/**
 * Closes an approved request whose start a restarted bot finished (startIntents.ts): with the
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
