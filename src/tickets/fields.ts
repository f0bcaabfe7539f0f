// What a tracker's issue type asks of a ticket, as its issue meta says: the form and its reading both follow it.
import type { IssueField, IssueMeta } from '../client/schemas.ts';

/** Trackers cap a summary at 255 characters. */
export const summaryMaxLength = 255;
/** Fields that have their own input (or none, project and issue type coming from the first step). */
const fieldsWithOwnInput = new Set(['summary', 'description', 'project', 'issuetype', 'labels']);

/** The fields of the issue meta that need an input of their own: the required ones. */
export function ticketInputFields(meta: IssueMeta): IssueField[] {
  return meta.fields.filter((field) => field.required && !fieldsWithOwnInput.has(field.key));
}

export function labelsRequired(meta: IssueMeta): boolean {
  return meta.fields.some((field) => field.key === 'labels' && field.required);
}

/** Whether an array field offers a fixed set of choices (components, versions) or takes free words. */
export const hasChoices = (field: IssueField) => field.allowedValues.length > 0;
