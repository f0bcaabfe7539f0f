import { describe, expect, it } from 'vitest';
import { issueMetaSchema } from '../../src/client/schemas.ts';
import { ticketFieldsFromInputs, ticketProjectFromInputs } from '../../src/commands/tickets/ticket.ts';
import {
  TICKET_DESCRIPTION,
  TICKET_ISSUE_TYPE_ID,
  TICKET_LABELS,
  TICKET_PROJECT_ID,
  TICKET_SUMMARY,
  ticketFieldId,
  ticketModal,
} from '../../src/views/tickets/ticket.ts';
import { issueMeta } from '../support/issue-meta.ts';

/** Besides the shared fields: a required option that lists no choices, and an optional free-text field. */
const meta = issueMetaSchema.parse({
  ...issueMeta,
  fields: [
    ...issueMeta.fields,
    { key: 'customfield_account', name: 'Account', required: true, type: 'option' },
    { key: 'customfield_optional', name: 'Optional', required: false, type: 'string' },
  ],
});

const base = { projectId: '10001', issueTypeId: '10004' };

const complete: Record<string, string | undefined> = {
  [TICKET_SUMMARY]: '  Chaos attack cpu: Successful ',
  [TICKET_DESCRIPTION]: 'Attack: g-1',
  [ticketFieldId('priority')]: '3',
  [ticketFieldId('customfield_account')]: 'acct-9',
  [ticketFieldId('components')]: '7,8',
  [ticketFieldId('customfield_tags')]: 'chaos, web ,, cpu',
  [ticketFieldId('customfield_env')]: 'production',
  [ticketFieldId('customfield_impact')]: 'p99 latency doubled\nfor 3 minutes',
  [ticketFieldId('customfield_points')]: '2.5',
  [ticketFieldId('duedate')]: '2026-12-01',
  [ticketFieldId('assignee')]: '5b10ac8d82e05b22cc7d4ef5',
  [TICKET_LABELS]: 'chaos,gameday',
};

describe('ticketFieldsFromInputs', () => {
  it('maps every field type to what the tracker takes', () => {
    expect(ticketFieldsFromInputs(complete, meta, base)).toEqual({
      fields: {
        summary: 'Chaos attack cpu: Successful',
        description: 'Attack: g-1',
        project: { id: '10001' },
        issuetype: { id: '10004' },
        priority: { id: '3' },
        customfield_account: { id: 'acct-9' },
        components: [{ id: '7' }, { id: '8' }],
        customfield_tags: ['chaos', 'web', 'cpu'],
        customfield_env: 'production',
        customfield_impact: 'p99 latency doubled\nfor 3 minutes',
        customfield_points: 2.5,
        duedate: '2026-12-01',
        assignee: { accountId: '5b10ac8d82e05b22cc7d4ef5' },
        labels: ['chaos', 'gameday'],
      },
    });
  });

  it('maps integers and negative numbers', () => {
    const result = ticketFieldsFromInputs({ ...complete, [ticketFieldId('customfield_points')]: '-3' }, meta, base);
    expect('fields' in result && result.fields['customfield_points']).toBe(-3);
  });

  it('leaves out an empty description and empty labels', () => {
    const result = ticketFieldsFromInputs(
      { ...complete, [TICKET_DESCRIPTION]: undefined, [TICKET_LABELS]: '' },
      meta,
      base,
    );
    if (!('fields' in result)) throw new Error(JSON.stringify(result.errors));
    expect(result.fields).not.toHaveProperty('description');
    expect(result.fields).not.toHaveProperty('labels');
  });

  it('falls back to the base summary and description only when the form has no such input', () => {
    const { [TICKET_SUMMARY]: _summary, [TICKET_DESCRIPTION]: _description, ...rest } = complete;
    const result = ticketFieldsFromInputs(rest, meta, {
      ...base,
      summary: 'From the attack',
      description: 'Prefilled',
    });
    expect('fields' in result && [result.fields.summary, result.fields.description]).toEqual([
      'From the attack',
      'Prefilled',
    ]);
    const cleared = ticketFieldsFromInputs({ ...complete, [TICKET_SUMMARY]: undefined }, meta, {
      ...base,
      summary: 'From the attack',
    });
    expect(cleared).toEqual({ errors: { [TICKET_SUMMARY]: 'A summary is required.' } });
  });

  it('names every missing required value on its own input', () => {
    const result = ticketFieldsFromInputs(
      { [TICKET_SUMMARY]: ' ', [ticketFieldId('components')]: '', [ticketFieldId('customfield_tags')]: ' , ' },
      meta,
      base,
    );
    expect(result).toEqual({
      errors: {
        [TICKET_SUMMARY]: 'A summary is required.',
        [ticketFieldId('priority')]: 'Priority is required.',
        [ticketFieldId('customfield_account')]: 'Account is required.',
        [ticketFieldId('components')]: 'Components is required.',
        [ticketFieldId('customfield_tags')]: 'Tags is required.',
        [ticketFieldId('customfield_env')]: 'Environment is required.',
        [ticketFieldId('customfield_impact')]: 'Impact is required.',
        [ticketFieldId('customfield_points')]: 'Points is required.',
        [ticketFieldId('duedate')]: 'Due date is required.',
        [ticketFieldId('assignee')]: 'Assignee is required.',
      },
    });
  });

  it.each([
    { field: 'customfield_points', value: 'three', error: 'Enter a number, such as 3 or 2.5.' },
    { field: 'customfield_points', value: '1e400', error: 'Enter a number, such as 3 or 2.5.' },
    { field: 'duedate', value: '01/12/2026', error: 'Enter a date as YYYY-MM-DD.' },
    { field: 'duedate', value: '2026-13-45', error: 'Enter a date as YYYY-MM-DD.' },
    { field: 'duedate', value: '2026-02-30', error: 'Enter a date as YYYY-MM-DD.' },
    { field: 'priority', value: '99', error: 'Choose one of the listed values.' },
    { field: 'components', value: '7,9', error: 'Choose from the listed values.' },
  ])('rejects $value for $field', ({ field, value, error }) => {
    expect(ticketFieldsFromInputs({ ...complete, [ticketFieldId(field)]: value }, meta, base)).toEqual({
      errors: { [ticketFieldId(field)]: error },
    });
  });

  it('rejects a summary over 255 characters', () => {
    expect(ticketFieldsFromInputs({ ...complete, [TICKET_SUMMARY]: 'x'.repeat(256) }, meta, base)).toEqual({
      errors: { [TICKET_SUMMARY]: 'At most 255 characters.' },
    });
  });

  it('requires a label when the issue type does', () => {
    const strict = issueMetaSchema.parse({
      fields: [{ key: 'labels', name: 'Labels', required: true, type: 'array' }],
    });
    expect(ticketFieldsFromInputs({ [TICKET_SUMMARY]: 'S', [TICKET_LABELS]: '' }, strict, base)).toEqual({
      errors: { [TICKET_LABELS]: 'Choose at least one label.' },
    });
    expect(ticketFieldsFromInputs({ [TICKET_SUMMARY]: 'S', [TICKET_LABELS]: 'chaos' }, strict, base)).toEqual({
      fields: { summary: 'S', project: { id: '10001' }, issuetype: { id: '10004' }, labels: ['chaos'] },
    });
  });

  it('reports errors only on inputs the modal shows', () => {
    const view = ticketModal({ summary: '', description: '', meta, labels: ['chaos'], privateMetadata: '' });
    const blockIds = new Set(view.blocks.filter((block) => block.type === 'input').map((block) => block.block_id));
    const result = ticketFieldsFromInputs({}, meta, base);
    if (!('errors' in result)) throw new Error('expected errors');
    expect(Object.keys(result.errors).length).toBeGreaterThan(0);
    for (const blockId of Object.keys(result.errors)) expect(blockIds.has(blockId)).toBe(true);
  });
});

describe('ticketProjectFromInputs', () => {
  it('reads the trimmed ids', () => {
    expect(ticketProjectFromInputs({ [TICKET_PROJECT_ID]: ' 10002 ', [TICKET_ISSUE_TYPE_ID]: '10005' })).toEqual({
      projectId: '10002',
      issueTypeId: '10005',
    });
  });

  it('names each missing id', () => {
    expect(ticketProjectFromInputs({ [TICKET_PROJECT_ID]: '' })).toEqual({
      errors: {
        [TICKET_PROJECT_ID]: 'A project id is required.',
        [TICKET_ISSUE_TYPE_ID]: 'An issue type id is required.',
      },
    });
  });
});
