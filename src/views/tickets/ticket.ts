import type { InputBlock, KnownBlock, ModalView, PlainTextOption } from '@slack/types';
import type { IssueField, IssueMeta } from '../../client/schemas.ts';
import { hasChoices, labelsRequired, summaryMaxLength, ticketInputFields } from '../../tickets/service.ts';
import { context, escapeMrkdwn, input, isNumber, limits, modal, plain, section, truncate } from '../blocks.ts';
import { agree, plural } from '../plural.ts';

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
  const textInput = (id: string, value: string | undefined, placeholder: string) => ({
    type: 'plain_text_input' as const,
    action_id: id,
    placeholder: plain(placeholder, 150),
    ...(value ? { initial_value: value } : {}),
  });
  return modal(
    TICKET_PROJECT_VIEW,
    'File a ticket',
    [
      section('Which tracker project and issue type should the ticket go to? Their fields come next.'),
      input(TICKET_PROJECT_ID, 'Project id', textInput(TICKET_PROJECT_ID, options.projectId, '10001'), {
        hint: 'The numeric id of the tracker project. Set TRACKER_PROJECT_ID to skip this step.',
      }),
      input(TICKET_ISSUE_TYPE_ID, 'Issue type id', textInput(TICKET_ISSUE_TYPE_ID, options.issueTypeId, '10004'), {
        hint: 'The numeric id of the issue type. Set TRACKER_ISSUE_TYPE_ID to skip this step.',
      }),
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

/** One input for a required field of the issue meta, of the kind its type needs. */
function fieldInput(field: IssueField, value: string | undefined): InputBlock {
  const id = ticketFieldId(field.key);
  const label = field.name ?? field.key;
  const initialText = value ? { initial_value: value } : {};
  if ((field.type === 'option' || field.type === 'array') && hasChoices(field)) {
    const options = choiceOptions(field);
    const hint = choicesHint(field);
    const hintOption = hint ? { hint } : {};
    if (field.type === 'option') {
      const initial = options.find((option) => option.value === value);
      return input(
        id,
        label,
        {
          type: 'static_select',
          action_id: id,
          placeholder: plain('Choose one'),
          options,
          ...(initial ? { initial_option: initial } : {}),
        },
        hintOption,
      );
    }
    const chosen = new Set((value ?? '').split(','));
    const initial = options.filter((option) => chosen.has(option.value ?? ''));
    return input(
      id,
      label,
      {
        type: 'multi_static_select',
        action_id: id,
        placeholder: plain('Choose one or more'),
        options,
        ...(initial.length ? { initial_options: initial } : {}),
      },
      hintOption,
    );
  }
  switch (field.type) {
    case 'option':
      return input(
        id,
        label,
        { type: 'plain_text_input', action_id: id, ...initialText },
        { hint: 'The id of the value: the tracker lists no choices for this field.' },
      );
    case 'array':
      return input(
        id,
        label,
        { type: 'plain_text_input', action_id: id, ...initialText },
        { hint: 'Separate several with commas.' },
      );
    case 'text':
      return input(id, label, { type: 'plain_text_input', action_id: id, multiline: true, ...initialText });
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
      return input(
        id,
        label,
        { type: 'plain_text_input', action_id: id, placeholder: plain('account id'), ...initialText },
        { hint: "The person's account id in the tracker." },
      );
    default:
      return input(id, label, { type: 'plain_text_input', action_id: id, ...initialText });
  }
}

function labelsInput(labels: string[], required: boolean, value: string | undefined): InputBlock | undefined {
  if (!labels.length) {
    // The tracker lists no labels to choose from, but the issue type cannot do without one.
    return required
      ? input(
          TICKET_LABELS,
          'Labels',
          { type: 'plain_text_input', action_id: TICKET_LABELS, ...(value ? { initial_value: value } : {}) },
          { hint: 'Separate several with commas.' },
        )
      : undefined;
  }
  const options = labels
    .slice(0, limits.selectOptions)
    .map((label): PlainTextOption => ({ text: plain(label, limits.optionText), value: label }));
  const chosen = new Set((value ?? '').split(','));
  const initial = options.filter((option) => chosen.has(option.value ?? ''));
  return input(
    TICKET_LABELS,
    'Labels',
    {
      type: 'multi_static_select',
      action_id: TICKET_LABELS,
      placeholder: plain('Choose labels'),
      options,
      ...(initial.length ? { initial_options: initial } : {}),
    },
    {
      optional: !required,
      ...(labels.length > limits.selectOptions
        ? { hint: `The first ${limits.selectOptions} of ${labels.length} labels.` }
        : {}),
    },
  );
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
  const initial = (id: string, prefill: string, max: number) => {
    const text = truncate(values[id] ?? prefill, max);
    return text ? { initial_value: text } : {};
  };
  const fixed: KnownBlock[] = [
    input(TICKET_SUMMARY, 'Summary', {
      type: 'plain_text_input',
      action_id: TICKET_SUMMARY,
      max_length: summaryMaxLength,
      ...initial(TICKET_SUMMARY, options.summary, summaryMaxLength),
    }),
    input(
      TICKET_DESCRIPTION,
      'Description',
      {
        type: 'plain_text_input',
        action_id: TICKET_DESCRIPTION,
        multiline: true,
        max_length: descriptionMaxLength,
        ...initial(TICKET_DESCRIPTION, options.description, descriptionMaxLength),
      },
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
