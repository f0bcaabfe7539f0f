import type { ModalView } from '@slack/types';
import type { TrackerIssue } from '../../client/schemas.ts';
import { issueLink } from '../gamedays/gameday.ts';
import type { Message } from '../message.ts';
import { noticeModal } from '../notice.ts';
import { context, escapeMrkdwn, header, section, slackDate, truncate, plural } from '../blocks.ts';

/** A notice in place of the ticket form. */
const ticketNotice = (text: string): ModalView => noticeModal('File a ticket', text);

/** The thread reply once a ticket is filed. */
export function ticketFiledText(issue: { key: string; url?: string | undefined }, actorUserId: string): string {
  return `:ticket: <@${actorUserId}> filed ${issueLink(issue)}`;
}

/** Tickets listed, one section each, under Slack's 50 blocks per message. */
const listedTickets = 45;

/** `tickets <guid>`: the tickets filed for an attack. */
export function ticketListMessage(guid: string, issues: TrackerIssue[]): Message {
  const title = `Tickets for attack ${guid}`;
  if (!issues.length) {
    return {
      text: escapeMrkdwn(`No tickets yet for attack ${guid}`),
      blocks: [section(`No tickets yet for attack \`${escapeMrkdwn(guid)}\`.`)],
    };
  }
  const line = (issue: TrackerIssue) => {
    const parts = [issueLink(issue), escapeMrkdwn(truncate(issue.summary ?? 'no summary', 200))];
    if (issue.status) parts.push(escapeMrkdwn(issue.status));
    if (issue.created_at && !Number.isNaN(Date.parse(issue.created_at)))
      parts.push(`created ${slackDate(new Date(issue.created_at))}`);
    return parts.join(' · ');
  };
  const shown = issues.slice(0, listedTickets);
  const more = issues.length > shown.length ? `; the first ${shown.length} are listed here` : '';
  return {
    text: escapeMrkdwn(`${title}: ${plural(issues.length, 'ticket')}`),
    blocks: [
      header(title),
      ...shown.map((issue) => section(line(issue))),
      context(`${plural(issues.length, 'ticket')}${more}.`),
    ],
  };
}

/** The message shortcut, run on a message that is not an attack card. */
export const notACardModal = (command: string): ModalView =>
  ticketNotice(
    `This message is not an attack card. Run the shortcut on a card Faultline posted, or use \`${command} ticket <attack id>\`.`,
  );

/** A ticket form submitted after its draft expired. */
export const ticketFormExpiredModal = (command: string): ModalView =>
  ticketNotice(`This form expired. Open it again from the attack card or with \`${command} ticket <attack id>\`.`);

/** A ticket the platform did not confirm: it may be filed, so `check` is how to find out before filing again. */
export const ticketUnconfirmedModal = (command: string, check: string): ModalView =>
  ticketNotice(
    `The platform did not confirm the ticket, so it is not known whether it was filed. Check with \`${command} ${check}\` before filing it again.`,
  );

/** The form, once the ticket is filed. */
export const ticketFiledModal = (issue: { key: string; url?: string | undefined }): ModalView =>
  noticeModal('Ticket filed', `:ticket: Filed ${issueLink(issue)}.`);
