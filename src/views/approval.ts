import type { Message } from './message.ts';
import { actions, button, context, escapeMrkdwn, section, slackDate } from './blocks.ts';

export const APPROVAL_APPROVE = 'approval_approve';
export const APPROVAL_REJECT = 'approval_reject';

export interface ApprovalView {
  id: string;
  requester: string;
  /** "cpu attack `-l 600` on all hosts tagged role=web in team Payments". */
  what: string;
  why: string;
  teamName: string;
  expiresAt: string;
}

/** The request posted in the channel, with Approve and Reject. */
export function approvalRequestMessage(v: ApprovalView): Message {
  const text = `<@${v.requester}> asks to start a ${v.what}. It needs a second person because ${v.why}.`;
  return {
    text,
    blocks: [
      section(`:raised_hand: ${text}`),
      context(
        `Anyone else with EXPERIMENTS_RUN on team *${escapeMrkdwn(v.teamName)}* can approve. The request ends ${slackDate(new Date(v.expiresAt), '{time}')} without an answer.`,
      ),
      actions('approval_actions', [
        button('Approve', APPROVAL_APPROVE, { style: 'primary', value: v.id }),
        button('Reject', APPROVAL_REJECT, { style: 'danger', value: v.id }),
      ]),
    ],
  };
}

/** The request once answered: no buttons, what happened. */
export function approvalClosedMessage(text: string): Message {
  return { text, blocks: [section(text)] };
}
