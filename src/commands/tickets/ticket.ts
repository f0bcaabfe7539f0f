import { BadRequestError, NoIntegrationError } from '../../client/errors.ts';
import type { CreateTrackerIssueRequest } from '../../client/tracker.ts';
import type { IssueField, IssueMeta } from '../../client/schemas.ts';
import type { Actor } from '../../store/sessions.ts';
import { parseGameDayRef } from '../../gamedays/gamedayRecord.ts';
import type { Services } from '../../services.ts';
import { parseAttackRef } from '../../views/attacks/attackCard.ts';
import { describeError } from '../../views/errorReply.ts';
import { loadingModal } from '../../views/notice.ts';
import {
  ticketFieldId,
  ticketModal,
  ticketProjectModal,
  TICKET_DESCRIPTION,
  TICKET_ISSUE_TYPE_ID,
  TICKET_LABELS,
  TICKET_PROJECT_ID,
  TICKET_SUMMARY,
  ticketListMessage,
  notACardModal,
  ticketFiledModal,
  ticketFormExpiredModal,
  ticketUnconfirmedModal,
} from '../../views/tickets/ticket.ts';
import { ticketPrefill, gameDayTicketPrefill } from '../../views/tickets/ticketPrefill.ts';
import { type Action, type Reply, type Submission, type SubmissionReply, subcommand } from '../command.ts';
import { contract } from '../contract.ts';
import { UserInputError } from '../../errors.ts';
import { attackIdWord } from '../arguments.ts';
import { teamName } from '../../attacks/access.ts';
import type { ModalView } from '@slack/types';
import {
  hasChoices,
  labelsRequired,
  summaryMaxLength,
  type TicketForm,
  ticketInputFields,
} from '../../tickets/service.ts';

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

/** The tracker's fields that have an input of their own, whatever the issue type. */
const ownInputs = new Map([
  ['summary', TICKET_SUMMARY],
  ['description', TICKET_DESCRIPTION],
  ['labels', TICKET_LABELS],
]);

/** Where the platform's refusal of a field shows: on its input when the form has one. */
function fieldErrorBlock(field: string, meta: IssueMeta): string {
  const own = ownInputs.get(field);
  if (own) return own;
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

export type TicketFields = CreateTrackerIssueRequest['fields'];

/** Messages for the person, by block id of the input they belong to. */
export type FieldErrors = Record<string, string>;

export interface TicketBase {
  projectId: string;
  issueTypeId: string;
  /** Used only when the submission has no summary input at all. */
  summary?: string | undefined;
  /** Used only when the submission has no description input at all. */
  description?: string | undefined;
}

const commaList = (text: string) =>
  text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
const requiredText = (field: IssueField) => `${field.name ?? field.key} is required.`;
/** A real calendar day as YYYY-MM-DD; `Date.parse` alone lets 2026-02-30 through. */
function isDay(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const day = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(day.getTime()) && day.toISOString().startsWith(text);
}

/** One field's value as the tracker takes it, by the field's type, or why the text will not do. */
function fieldValue(field: IssueField, text: string): { value: unknown } | { error: string } {
  const choice = (id: string) => field.allowedValues.some((allowed) => allowed.id === id);
  switch (field.type) {
    case 'option':
      if (hasChoices(field) && !choice(text)) return { error: 'Choose one of the listed values.' };
      return { value: { id: text } };
    case 'array': {
      const items = commaList(text);
      if (!items.length) return { error: requiredText(field) };
      if (!hasChoices(field)) return { value: items };
      if (!items.every(choice)) return { error: 'Choose from the listed values.' };
      return { value: items.map((id) => ({ id })) };
    }
    case 'number': {
      const number = Number(text);
      return /^-?\d+(\.\d+)?$/.test(text) && Number.isFinite(number)
        ? { value: number }
        : { error: 'Enter a number, such as 3 or 2.5.' };
    }
    case 'date':
      return isDay(text) ? { value: text } : { error: 'Enter a date as YYYY-MM-DD.' };
    case 'user':
      return { value: { accountId: text } };
    default:
      return { value: text };
  }
}

/**
 * The `fields` of a CreateTrackerIssueRequest from a ticket modal's submission (values by action
 * id), or the errors to show on its inputs.
 */
export function ticketFieldsFromInputs(
  inputs: Record<string, string | undefined>,
  meta: IssueMeta,
  base: TicketBase,
): { fields: TicketFields } | { errors: FieldErrors } {
  const errors: FieldErrors = {};
  const summary = (TICKET_SUMMARY in inputs ? inputs[TICKET_SUMMARY] : base.summary)?.trim() ?? '';
  if (!summary) errors[TICKET_SUMMARY] = 'A summary is required.';
  else if (summary.length > summaryMaxLength) errors[TICKET_SUMMARY] = `At most ${summaryMaxLength} characters.`;
  const description = (TICKET_DESCRIPTION in inputs ? inputs[TICKET_DESCRIPTION] : base.description)?.trim();

  const fields: TicketFields = {
    summary,
    project: { id: base.projectId },
    issuetype: { id: base.issueTypeId },
    ...(description ? { description } : {}),
  };
  for (const field of ticketInputFields(meta)) {
    const id = ticketFieldId(field.key);
    const text = inputs[id]?.trim();
    if (!text) {
      errors[id] = requiredText(field);
      continue;
    }
    const result = fieldValue(field, text);
    if ('error' in result) errors[id] = result.error;
    else fields[field.key] = result.value;
  }
  const labels = commaList(inputs[TICKET_LABELS] ?? '');
  if (labels.length) fields.labels = labels;
  else if (labelsRequired(meta)) errors[TICKET_LABELS] = 'Choose at least one label.';

  return Object.keys(errors).length ? { errors } : { fields };
}

/** Project and issue type from the first step of the ticket modal. */
export function ticketProjectFromInputs(
  inputs: Record<string, string | undefined>,
): { projectId: string; issueTypeId: string } | { errors: FieldErrors } {
  const projectId = inputs[TICKET_PROJECT_ID]?.trim() ?? '';
  const issueTypeId = inputs[TICKET_ISSUE_TYPE_ID]?.trim() ?? '';
  const errors: FieldErrors = {};
  if (!projectId) errors[TICKET_PROJECT_ID] = 'A project id is required.';
  if (!issueTypeId) errors[TICKET_ISSUE_TYPE_ID] = 'An issue type id is required.';
  return Object.keys(errors).length ? { errors } : { projectId, issueTypeId };
}
