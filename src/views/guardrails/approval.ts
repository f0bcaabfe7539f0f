import type { AttackRequest } from '../../attacks/request.ts';
import type { ApprovalRule } from '../../guardrails/approvalRequests.ts';
import type { ApprovalAnswer, ApprovalClosing, ApprovalRequest } from '../../guardrails/approvals.ts';
import { type Message, textMessage } from '../message.ts';
import { actions, button, context, escapeMrkdwn, section, slackDate } from '../blocks.ts';
import { describeError } from '../errorReply.ts';
import { describeTarget } from '../attacks/attackPreview.ts';
import { blastRadiusText } from '../attacks/blastRadius.ts';

export const APPROVAL_APPROVE = 'approval_approve';
export const APPROVAL_REJECT = 'approval_reject';

/** A rule in words, as the request says why it was needed. */
export function ruleText(rule: ApprovalRule): string {
  switch (rule.kind) {
    case 'always':
      return 'every start needs a second person';
    case 'all-targets':
      return 'it hits every client of the team';
    case 'length':
      return `it runs longer than ${rule.seconds} seconds`;
    case 'type':
      return `${rule.type} attacks need a second person`;
    case 'team':
      return `starts in team ${rule.team} need a second person`;
    case 'channel':
      return `starts in <#${rule.channel}> need a second person`;
  }
}

/** "cpu attack `-l 600` on all hosts tagged role=web in team Payments". */
function approvalWhat(request: AttackRequest, team: string): string {
  const args = request.args.length ? ` \`${escapeMrkdwn(request.args.join(' ')).replace(/`/g, "'")}\`` : '';
  const target = describeTarget(request.target, team);
  const where = target.includes(`team ${team}`) ? '' : ` in team *${escapeMrkdwn(team)}*`;
  return `*${escapeMrkdwn(request.type)}* attack${args} on ${escapeMrkdwn(target)}${where}`;
}

/** The request posted in the channel, with Approve and Reject. */
export function approvalRequestMessage(v: ApprovalRequest): Message {
  const what = approvalWhat(v.pending.request, v.teamName);
  const text = `<@${v.pending.actor.userId}> asks to start a ${what}. It needs a second person because ${ruleText(v.rule)}.`;
  return {
    text,
    blocks: [
      section(`:raised_hand: ${text}`),
      ...(v.pending.targets
        ? [
            section(
              `${blastRadiusText(v.pending.targets, v.teamName)}\nApproving covers these, not more: a start that would hit others is refused.`,
            ),
          ]
        : []),
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

/** Said to the person whose start needs a second person. */
export function approvalRequestedText(rule: ApprovalRule, channel: string): string {
  return `:raised_hand: This start needs a second person because ${ruleText(rule)}. The request is in <#${channel}>; the attack starts when someone approves it.`;
}

/** Why an approved start did not start, as a clause. */
const notStartedWhy = (error: unknown, command: string) =>
  (error !== undefined && describeError(error, { command }).text) || 'the start failed';

function closedText(c: ApprovalClosing, command: string): string {
  const what = approvalWhat(c.request, c.teamName);
  switch (c.kind) {
    case 'expired':
      return `:hourglass: <@${c.requester}>'s request to start a ${what} ended after 15 minutes without an answer. Nothing was started.`;
    case 'requester gone':
      return `:warning: <@${c.approver}> approved the ${what}, but <@${c.requester}> is no longer logged in to that team. Nothing was started; they can log in and ask again.`;
    case 'approved':
      return `:white_check_mark: <@${c.approver}> approved <@${c.requester}>'s ${what}: started \`${c.guid}\`${c.carded ? '; its card shows it live' : ''}.`;
    case 'not started':
      return `:x: <@${c.approver}> approved <@${c.requester}>'s ${what}, but it did not start: ${notStartedWhy(c.error, command)}`;
    case 'lost in a restart':
      return `:warning: <@${c.approver}> approved <@${c.requester}>'s ${what}, but Faultline restarted during the start and cannot show an attack for it. Nothing was started again; <@${c.requester}> was told what to check.`;
    case 'interrupted':
      return `:warning: <@${c.requester}>'s request to start a ${what} was answered, but Faultline restarted before it acted on the answer. Nothing was started; ask again if it is still wanted.`;
    case 'withdrawn':
      return `:no_entry: <@${c.requester}> withdrew the request to start a ${what}. Nothing was started.`;
    case 'rejected':
      return `:no_entry: <@${c.by}> rejected <@${c.requester}>'s ${what}. Nothing was started.`;
    case 'step stopped':
      return `:no_entry: <@${c.by}> ${c.how} the game-day step that asked to start <@${c.requester}>'s ${what}, so this request is closed. Nothing was started.`;
    case 'step not waiting':
      return `:no_entry: <@${c.approver}> approved <@${c.requester}>'s ${what}, but its game-day step no longer waited for it (skipped, vetoed or ended). Nothing was started.`;
  }
}

/** The request once answered: no buttons, what happened. */
export function approvalClosedMessage(closing: ApprovalClosing, command: string): Message {
  return textMessage(closedText(closing, command));
}

/** What the person who clicked Approve or Reject is told; nothing when another answer got there first. */
export function approvalAnswerText(answer: ApprovalAnswer, command: string): string | undefined {
  switch (answer.kind) {
    case 'not open':
      return 'This request is no longer open; nothing was started.';
    case 'own request':
      return 'You asked for this attack, so someone else has to approve it.';
    case 'same platform login':
      return 'This attack was asked for with your platform login, so someone else has to approve it. Nothing was started.';
    case 'not allowed':
      return answer.decision === 'approve'
        ? `Approving needs EXPERIMENTS_RUN on team *${escapeMrkdwn(answer.teamName)}*, which your platform login does not have. Nothing was started.`
        : `Rejecting needs EXPERIMENTS_RUN on team *${escapeMrkdwn(answer.teamName)}*, as approving does.`;
    case 'already answered':
      return undefined;
    case 'requester gone':
      return 'Approved, but the requester is no longer logged in: nothing was started.';
    case 'started':
      return `Approved: attack \`${answer.guid}\` started with <@${answer.requester}>'s session.`;
    case 'not started':
      return `Approved, but it did not start: ${notStartedWhy(answer.error, command)}`;
    case 'withdrawn':
      return 'Withdrawn; nothing was started.';
    case 'rejected':
      return 'Rejected; nothing was started.';
  }
}
