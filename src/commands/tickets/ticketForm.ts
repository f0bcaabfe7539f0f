import type { CreateTrackerIssueRequest } from '../../client/tracker.ts';
import type { IssueField, IssueMeta } from '../../client/schemas.ts';
import { hasChoices, labelsRequired, summaryMaxLength, ticketInputFields } from '../../tickets/fields.ts';
import {
  TICKET_DESCRIPTION,
  TICKET_ISSUE_TYPE_ID,
  TICKET_LABELS,
  TICKET_PROJECT_ID,
  TICKET_SUMMARY,
  ticketFieldId,
} from '../../views/tickets/ticket.ts';

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
