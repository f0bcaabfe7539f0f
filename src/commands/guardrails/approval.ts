import type { Deps } from '../../deps.ts';
import { approveRequest, rejectRequest } from '../../guardrails/approvals.ts';
import { approvalAnswerText } from '../../views/guardrails/approval.ts';
import { type Action, message, type Reply } from '../reply.ts';

/** Approve on a request for a second person. */
export async function approve(action: Action, deps: Deps): Promise<Reply> {
  const text = approvalAnswerText(await approveRequest(deps, action.actor, action.value), deps.config.slack.command);
  return text === undefined ? { kind: 'none' } : message(text);
}

/** Reject on a request for a second person: the requester withdrawing, or someone who could approve. */
export async function reject(action: Action, deps: Deps): Promise<Reply> {
  const text = approvalAnswerText(await rejectRequest(deps, action.actor, action.value), deps.config.slack.command);
  return text === undefined ? { kind: 'none' } : message(text);
}
