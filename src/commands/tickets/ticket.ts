import { BadRequestError, NoIntegrationError } from '../../client/errors.ts';
import type { IssueMeta } from '../../client/index.ts';
import type { Actor } from '../../store/sessions.ts';
import { parseGameDayRef } from '../../gamedays/gamedayRecord.ts';
import type { Services } from '../../services.ts';
import { ticketFieldsFromInputs, ticketProjectFromInputs } from './ticketForm.ts';
import { parseAttackRef } from '../../views/attacks/attackCard.ts';
import { describeError } from '../../views/errorReply.ts';
import { loadingModal } from '../../views/notice.ts';
import {
  ticketFieldId,
  ticketModal,
  ticketProjectModal,
  TICKET_DESCRIPTION,
  TICKET_LABELS,
  TICKET_SUMMARY,
} from '../../views/tickets/ticket.ts';
import {
  ticketListMessage,
  notACardModal,
  ticketFiledModal,
  ticketFormExpiredModal,
  ticketUnconfirmedModal,
} from '../../views/tickets/ticketReplies.ts';
import { ticketPrefill, gameDayTicketPrefill } from '../../views/tickets/ticketPrefill.ts';
import type { Action, Reply, Submission, SubmissionReply } from '../reply.ts';
import { subcommand } from '../command.ts';
import { contract } from '../contract.ts';
import { ticketInputFields } from '../../tickets/fields.ts';
import { UserInputError } from '../../errors.ts';
import { attackIdWord } from '../arguments.ts';
import { teamName } from '../../attacks/access.ts';
import type { ModalView } from '@slack/types';
import type { TicketForm } from '../../tickets/service.ts';

/** The form a draft shows next: the tracker's fields, or the project and issue type to choose first. */
const formView = ({ draft, fields, projectId, issueTypeId }: TicketForm): ModalView =>
  fields
    ? ticketModal({ summary: draft.summary, description: draft.description, ...fields, privateMetadata: draft.id })
    : ticketProjectModal({ privateMetadata: draft.id, projectId, issueTypeId });

/** The ticket modal for an attack or a game day: it opens at once and fills in from the platform. */
async function openTicket(
  { tickets, appUrl }: Services,
  actor: Actor,
  about: { guid: string; teamId?: string | undefined } | { gameDay: { channel: string; ts: string } },
): Promise<Reply> {
  const subject = await tickets.about(actor, about);
  return {
    kind: 'openModal',
    view: loadingModal('File a ticket'),
    followUp: async () => {
      const read = await subject.read();
      const text =
        'guid' in read
          ? ticketPrefill({
              card: read.card,
              attack: read.attack,
              permalink: read.permalink,
              appUrl,
              names: read.names,
            })
          : gameDayTicketPrefill(read.gameDay, read.outcomes, read.permalink, read.names);
      return formView(await tickets.draft(actor, read, text));
    },
  };
}

export const ticketCommand = subcommand({
  name: 'ticket',
  usage: 'ticket <attack id>',
  summary:
    "Opens a tracker ticket form prefilled from the attack; the ticket's key is posted in the attack card's thread.",
  examples: ['ticket 6f1c2d3e-aaaa-bbbb-cccc-1234567890ab'],
  args: contract({ command: 'ticket', usage: 'ticket <attack id>', words: { id: attackIdWord } }),
  async run(request, { words }, services) {
    return openTicket(services, request.actor, { guid: words.id });
  },
});

export const ticketsCommand = subcommand({
  name: 'tickets',
  usage: 'tickets <attack id>',
  summary: 'Lists the tracker tickets already filed for an attack.',
  examples: ['tickets 6f1c2d3e-aaaa-bbbb-cccc-1234567890ab'],
  args: contract({ command: 'tickets', usage: 'tickets <attack id>', words: { id: attackIdWord } }),
  async run(request, { words }, { tickets }) {
    const { guid, issues } = await tickets.list(request.actor, words.id);
    return { kind: 'message', message: ticketListMessage(guid, issues) };
  },
});

/** File ticket on an attack card. */
export async function fileTicketFromCard(action: Action, services: Services): Promise<Reply> {
  const ref = parseAttackRef(action.value);
  if (!ref) throw new UserInputError('That button no longer points at an attack.');
  return openTicket(services, action.actor, { guid: ref.guid, teamId: ref.teamId });
}

/** The "File tracker ticket" message shortcut: any attack card, by the message it was run on. */
export async function fileTicketFromMessage(
  shortcut: { actor: Actor; channel: string; messageTs: string },
  services: Services,
): Promise<Reply> {
  const card = await services.tickets.cardAt(shortcut.channel, shortcut.messageTs);
  if (!card) return { kind: 'openModal', view: notACardModal(services.command) };
  return openTicket(services, shortcut.actor, { guid: card.guid, teamId: card.teamId });
}

/** File ticket on a game-day summary: one ticket for the whole game day. */
export async function fileTicketForGameDay(action: Action, services: Services): Promise<Reply> {
  const ref = parseGameDayRef(action.value);
  if (!ref) throw new UserInputError('That button no longer points at a game day.');
  return openTicket(services, action.actor, { gameDay: ref });
}

const expired = (command: string): SubmissionReply => ({ kind: 'update', view: ticketFormExpiredModal(command) });

/** First step when no project and issue type are configured. */
export async function submitTicketProject(
  submission: Submission,
  { tickets, command }: Services,
): Promise<SubmissionReply> {
  const draft = await tickets.draftOf(submission.actor, submission.privateMetadata);
  if (!draft) return expired(command);
  const chosen = ticketProjectFromInputs(submission.inputs);
  if ('errors' in chosen) return { kind: 'errors', errors: chosen.errors };
  const form = await tickets.form(submission.actor, draft, chosen.projectId, chosen.issueTypeId);
  return { kind: 'update', view: formView(form) };
}

/** Where the platform's refusal of a field shows: on its input when the form has one. */
function fieldErrorBlock(field: string, meta: IssueMeta): string {
  if (field === 'summary') return TICKET_SUMMARY;
  if (field === 'description') return TICKET_DESCRIPTION;
  if (field === 'labels') return TICKET_LABELS;
  return ticketInputFields(meta).some((f) => f.key === field) ? ticketFieldId(field) : TICKET_SUMMARY;
}

/** Files the ticket once, however often Slack delivers the submission. */
export async function submitTicket(submission: Submission, { tickets, command }: Services): Promise<SubmissionReply> {
  const draft = await tickets.draftOf(submission.actor, submission.privateMetadata);
  if (!draft?.meta || !draft.projectId || !draft.issueTypeId) return expired(command);
  const mapped = ticketFieldsFromInputs(submission.inputs, draft.meta, {
    projectId: draft.projectId,
    issueTypeId: draft.issueTypeId,
    summary: draft.summary,
    description: draft.description,
  });
  if ('errors' in mapped) return { kind: 'errors', errors: mapped.errors };
  const filing = await tickets.file(submission.actor, draft, mapped.fields);
  if (filing.kind === 'taken') return { kind: 'clear' };
  if (filing.kind === 'filed') return { kind: 'update', view: ticketFiledModal(filing.issue) };
  const { error, team } = filing;
  const check = draft.entity.type === 'ATTACK' ? `tickets ${draft.entity.id}` : 'tickets <attack id>';
  if (filing.kind === 'unknown') return { kind: 'update', view: ticketUnconfirmedModal(command, check) };
  if (error instanceof BadRequestError && error.field) {
    const name = draft.meta.fields.find((f) => f.key === error.field)?.name ?? error.field;
    const text = `The tracker did not accept ${name}. Check it and submit again.`;
    return { kind: 'errors', errors: { [fieldErrorBlock(error.field, draft.meta)]: text } };
  }
  if (error instanceof NoIntegrationError) throw error;
  const words = describeError(error, { command, team: teamName(team), doing: 'file the ticket', check });
  return { kind: 'errors', errors: { [TICKET_SUMMARY]: words.text } };
}
