import type { Services } from '../../services.ts';
import { approvalAnswerText } from '../../views/guardrails/approval.ts';
import { type Action, message, type Reply } from '../command.ts';

/** Approve on a request for a second person. */
export async function approve(action: Action, { guardrails, command }: Services): Promise<Reply> {
  const text = approvalAnswerText(await guardrails.approve(action.actor, action.value), command);
  return text === undefined ? { kind: 'none' } : message(text);
}

/** Reject on a request for a second person: the requester withdrawing, or someone who could approve. */
export async function reject(action: Action, { guardrails, command }: Services): Promise<Reply> {
  const text = approvalAnswerText(await guardrails.reject(action.actor, action.value), command);
  return text === undefined ? { kind: 'none' } : message(text);
}
