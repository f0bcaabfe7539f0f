import type { InputBlock, KnownBlock, ModalView, PlainTextOption } from '@slack/types';
import type { IssueField, IssueMeta } from '../../client/schemas.ts';
import { hasChoices, labelsRequired, summaryMaxLength, ticketInputFields } from '../../tickets/service.ts';
import type { TrackerIssue } from '../../client/schemas.ts';
import { issueLink } from '../gamedays/gameday.ts';
import type { Message } from '../message.ts';
import { noticeModal } from '../notice.ts';
import {
  context,
  escapeMrkdwn,
  header,
  input,
  isNumber,
  limits,
  modal,
  plain,
  section,
  slackDate,
  textInput,
  truncate,
  agree,
  plural,
} from '../blocks.ts';

export const TICKET_VIEW = 'ticket';
/** The first step, asked when the configuration names no project or issue type. */
export const TICKET_PROJECT_VIEW = 'ticket_project';

/**
 * Block and action ids of the ticket forms; each input uses the same id for both, so a
 * submission's value (by action id) and a field error (by block id) name the same field.
 */
export const TICKET_SUMMARY = 'ticket_summary';
export const TICKET_DESCRIPTION = 'ticket_description';
export const TICKET_PROJECT_ID = 'ticket_project_id';
export const TICKET_ISSUE_TYPE_ID = 'ticket_issue_type_id';
export const TICKET_LABELS = 'ticket_labels';
export const TICKET_FIELD_PREFIX = 'ticket_field:';

/** The block and action id of the input for one field of the issue meta. */
export function ticketFieldId(key: string): string {
  return `${TICKET_FIELD_PREFIX}${key}`;
}

/** Slack caps what a plain-text input holds, and so the description. */
export const descriptionMaxLength = limits.plainInput;

export function ticketProjectModal(options: {
  privateMetadata: string;
  projectId?: string | undefined;
  issueTypeId?: string | undefined;
}): ModalView {
  return modal(
    TICKET_PROJECT_VIEW,
    'File a ticket',
    [
      section('Which tracker project and issue type should the ticket go to? Their fields come next.'),
      input(
        TICKET_PROJECT_ID,
        'Project id',
        textInput(TICKET_PROJECT_ID, options.projectId, { placeholder: '10001' }),
        {
          hint: 'The numeric id of the tracker project. Set TRACKER_PROJECT_ID to skip this step.',
        },
      ),
      input(
        TICKET_ISSUE_TYPE_ID,
        'Issue type id',
        textInput(TICKET_ISSUE_TYPE_ID, options.issueTypeId, { placeholder: '10004' }),
        {
          hint: 'The numeric id of the issue type. Set TRACKER_ISSUE_TYPE_ID to skip this step.',
        },
      ),
    ],
    { submit: 'Continue', close: 'Cancel', privateMetadata: options.privateMetadata },
  );
}

const optionName = (value: IssueField['allowedValues'][number]) => value.name ?? value.value ?? value.id;

function choiceOptions(field: IssueField): PlainTextOption[] {
  return field.allowedValues
    .slice(0, limits.selectOptions)
    .map((value) => ({ text: plain(optionName(value), limits.optionText), value: value.id }));
}

function choicesHint(field: IssueField): string | undefined {
  const count = field.allowedValues.length;
  return count > limits.selectOptions
    ? `Slack lists at most ${limits.selectOptions} choices: these are the first ${limits.selectOptions} of ${count}.`
    : undefined;
}

const isDate = (text: string | undefined): text is string => text !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(text);

/** A select of several, with the comma-separated `value` chosen already. */
function multiSelect(
  id: string,
  label: string,
  options: PlainTextOption[],
  value: string | undefined,
  placeholder: string,
) {
  const chosen = new Set((value ?? '').split(','));
  const initial = options.filter((option) => chosen.has(option.value ?? ''));
  const element = { type: 'multi_static_select' as const, action_id: id, placeholder: plain(placeholder), options };
  return (extra: Parameters<typeof input>[3]) =>
    input(id, label, { ...element, ...(initial.length ? { initial_options: initial } : {}) }, extra);
}

/** One input for a required field of the issue meta, of the kind its type needs. */
function fieldInput(field: IssueField, value: string | undefined): InputBlock {
  const id = ticketFieldId(field.key);
  const label = field.name ?? field.key;
  const text = (extra: Parameters<typeof textInput>[2] = {}, hint?: string) =>
    input(id, label, textInput(id, value, extra), hint ? { hint } : {});
  if ((field.type === 'option' || field.type === 'array') && hasChoices(field)) {
    const options = choiceOptions(field);
    const hint = choicesHint(field);
    const hintOption = hint ? { hint } : {};
    if (field.type === 'array') return multiSelect(id, label, options, value, 'Choose one or more')(hintOption);
    const initial = options.find((option) => option.value === value);
    const select = { type: 'static_select' as const, action_id: id, placeholder: plain('Choose one'), options };
    return input(id, label, { ...select, ...(initial ? { initial_option: initial } : {}) }, hintOption);
  }
  switch (field.type) {
    case 'option':
      return text({}, 'The id of the value: the tracker lists no choices for this field.');
    case 'array':
      return text({}, 'Separate several with commas.');
    case 'text':
      return text({ multiline: true });
    case 'number':
      return input(id, label, {
        type: 'number_input',
        action_id: id,
        is_decimal_allowed: true,
        ...(isNumber(value) ? { initial_value: value } : {}),
      });
    case 'date':
      return input(id, label, { type: 'datepicker', action_id: id, ...(isDate(value) ? { initial_date: value } : {}) });
    case 'user':
      return text({ placeholder: 'account id' }, "The person's account id in the tracker.");
    default:
      return text();
  }
}

function labelsInput(labels: string[], required: boolean, value: string | undefined): InputBlock | undefined {
  if (!labels.length) {
    // The tracker lists no labels to choose from, but the issue type cannot do without one.
    return required
      ? input(TICKET_LABELS, 'Labels', textInput(TICKET_LABELS, value), { hint: 'Separate several with commas.' })
      : undefined;
  }
  const options = labels
    .slice(0, limits.selectOptions)
    .map((label): PlainTextOption => ({ text: plain(label, limits.optionText), value: label }));
  return multiSelect(
    TICKET_LABELS,
    'Labels',
    options,
    value,
    'Choose labels',
  )({
    optional: !required,
    ...(labels.length > limits.selectOptions
      ? { hint: `The first ${limits.selectOptions} of ${labels.length} labels.` }
      : {}),
  });
}

function destination(meta: IssueMeta): string {
  const project = meta.project;
  const projectName = project?.name ?? project?.key ?? project?.id ?? 'the configured project';
  const projectKey = project?.key && project.key !== projectName ? ` (${project.key})` : '';
  return `Filed in *${escapeMrkdwn(projectName)}*${escapeMrkdwn(projectKey)} as *${escapeMrkdwn(meta.issuetype?.name ?? meta.issuetype?.id ?? 'the configured issue type')}*.`;
}

/**
 * The ticket form: summary and description prefilled, one input per required field of the
 * issue meta, then the tracker's labels.
 */
export function ticketModal(options: {
  summary: string;
  description: string;
  meta: IssueMeta;
  labels: string[];
  privateMetadata: string;
  /** Values to show again, by action id (as a submission carries them). */
  values?: Record<string, string | undefined> | undefined;
}): ModalView {
  const values = options.values ?? {};
  const labels = labelsInput(options.labels, labelsRequired(options.meta), values[TICKET_LABELS]);
  const prefilled = (id: string, prefill: string, maxLength: number, multiline = false) =>
    textInput(id, truncate(values[id] ?? prefill, maxLength), { maxLength, multiline });
  const fixed: KnownBlock[] = [
    input(TICKET_SUMMARY, 'Summary', prefilled(TICKET_SUMMARY, options.summary, summaryMaxLength)),
    input(
      TICKET_DESCRIPTION,
      'Description',
      prefilled(TICKET_DESCRIPTION, options.description, descriptionMaxLength, true),
      { optional: true },
    ),
  ];
  const all = ticketInputFields(options.meta);
  // Room for the fixed inputs, the labels, the destination line and a note on what was left out.
  const room = limits.viewBlocks - fixed.length - 3;
  const shown = all.slice(0, room).map((field) => fieldInput(field, values[ticketFieldId(field.key)]));
  const blocks: KnownBlock[] = [context(destination(options.meta)), ...fixed, ...shown];
  if (all.length > shown.length)
    blocks.push(
      context(
        `${plural(all.length - shown.length, 'more required field')} ${agree(all.length - shown.length, 'does', 'do')} not fit here: the tracker may refuse the ticket without ${agree(all.length - shown.length, 'it', 'them')}.`,
      ),
    );
  if (labels) blocks.push(labels);
  return modal(TICKET_VIEW, 'File a ticket', blocks, {
    submit: 'File ticket',
    close: 'Cancel',
    privateMetadata: options.privateMetadata,
  });
}

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
