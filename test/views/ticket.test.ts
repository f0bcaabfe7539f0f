import { messageViolations, viewViolations } from '@faultline/fake-slack/limits';
import type { AnyBlock, ContextBlock, InputBlock, ModalView, PlainTextOption, SectionBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import type { CardRecord } from '../../src/attacks/cards.ts';
import { attackSchema, issueMetaSchema, type TrackerIssue } from '../../src/client/schemas.ts';
import {
  TICKET_DESCRIPTION,
  TICKET_ISSUE_TYPE_ID,
  TICKET_LABELS,
  TICKET_PROJECT_ID,
  TICKET_PROJECT_VIEW,
  TICKET_SUMMARY,
  TICKET_VIEW,
  ticketFieldId,
  ticketModal,
  ticketProjectModal,
  ticketFiledText,
  ticketListMessage,
} from '../../src/views/tickets/ticket.ts';
import { gameDayTicketPrefill, ticketPrefill } from '../../src/views/tickets/ticketPrefill.ts';
import { issueMeta } from '../support/issue-meta.ts';

const choices = (count: number) =>
  Array.from({ length: count }, (_, index) => ({ id: String(index + 1), name: `Choice ${index + 1}` }));

const open = (options: Partial<Parameters<typeof ticketModal>[0]> = {}) =>
  ticketModal({
    summary: 'Chaos attack cpu',
    description: 'What happened',
    meta: issueMeta,
    labels: ['chaos', 'gameday'],
    privateMetadata: '{"g":"a1"}',
    ...options,
  });

const inputs = (view: ModalView) => view.blocks.filter((block): block is InputBlock => block.type === 'input');
type LooseElement = Record<string, unknown> & { type: string; action_id: string };
function element(view: ModalView, blockId: string): LooseElement {
  const block = inputs(view).find((candidate) => candidate.block_id === blockId);
  if (!block) throw new Error(`no input block ${blockId}`);
  return block.element as unknown as LooseElement;
}
const optionValues = (options: unknown) => (options as PlainTextOption[]).map((option) => option.value);
const contextTexts = (blocks: AnyBlock[]) =>
  blocks
    .filter((block): block is ContextBlock => block.type === 'context')
    .map((block) => (block.elements[0] as { text: string }).text);
const sectionTexts = (blocks: AnyBlock[]) =>
  blocks.filter((block): block is SectionBlock => block.type === 'section').map((block) => block.text?.text ?? '');

function expectValidModal(view: ModalView): void {
  expect(viewViolations(view)).toEqual([]);
  const blockIds = view.blocks.map((block) => block.block_id).filter((id) => id !== undefined);
  expect(new Set(blockIds).size).toBe(blockIds.length);
  for (const block of inputs(view)) expect((block.element as { action_id?: string }).action_id).toBe(block.block_id);
}

describe('ticket project modal', () => {
  it('asks project and issue type, both required, and continues', () => {
    const view = ticketProjectModal({ privateMetadata: 'meta', projectId: '10002' });
    expectValidModal(view);
    expect(view.callback_id).toBe(TICKET_PROJECT_VIEW);
    expect(view.submit?.text).toBe('Continue');
    expect(view.private_metadata).toBe('meta');
    expect(inputs(view).map((block) => [block.block_id, block.optional ?? false])).toEqual([
      [TICKET_PROJECT_ID, false],
      [TICKET_ISSUE_TYPE_ID, false],
    ]);
    expect(element(view, TICKET_PROJECT_ID)).toMatchObject({ type: 'plain_text_input', initial_value: '10002' });
    expect(element(view, TICKET_ISSUE_TYPE_ID).initial_value).toBeUndefined();
  });
});

describe('ticket modal', () => {
  it('is titled, within Slack limits, and carries its metadata', () => {
    const view = open();
    expectValidModal(view);
    expect(view.callback_id).toBe(TICKET_VIEW);
    expect(view.title.text).toBe('File a ticket');
    expect(view.private_metadata).toBe('{"g":"a1"}');
  });

  it('prefills a required summary of at most 255 characters and an optional description', () => {
    const view = open({ summary: 's'.repeat(400), description: 'd'.repeat(5000) });
    expect(element(view, TICKET_SUMMARY)).toMatchObject({ type: 'plain_text_input', max_length: 255 });
    expect((element(view, TICKET_SUMMARY).initial_value as string).length).toBe(255);
    expect(element(view, TICKET_DESCRIPTION)).toMatchObject({
      type: 'plain_text_input',
      multiline: true,
      max_length: 3000,
    });
    expect((element(view, TICKET_DESCRIPTION).initial_value as string).length).toBe(3000);
    const byId = new Map(inputs(view).map((block) => [block.block_id, block]));
    expect(byId.get(TICKET_SUMMARY)?.optional).toBeUndefined();
    expect(byId.get(TICKET_DESCRIPTION)?.optional).toBe(true);
  });

  it('leaves an empty prefill out rather than setting an empty value', () => {
    const view = open({ summary: '', description: '' });
    expect(element(view, TICKET_SUMMARY).initial_value).toBeUndefined();
    expect(element(view, TICKET_DESCRIPTION).initial_value).toBeUndefined();
  });

  it("adds one input per required field that has no input of its own, in the meta's order", () => {
    const ids = inputs(open()).map((block) => block.block_id);
    expect(ids).toEqual([
      TICKET_SUMMARY,
      TICKET_DESCRIPTION,
      ...[
        'priority',
        'components',
        'customfield_tags',
        'customfield_env',
        'customfield_impact',
        'customfield_points',
        'duedate',
        'assignee',
      ].map(ticketFieldId),
      TICKET_LABELS,
    ]);
  });

  it('gives each field type the element it needs', () => {
    const view = open();
    expect(element(view, ticketFieldId('priority'))).toMatchObject({ type: 'static_select' });
    expect(optionValues(element(view, ticketFieldId('priority')).options)).toEqual(['2', '3']);
    expect(element(view, ticketFieldId('components'))).toMatchObject({ type: 'multi_static_select' });
    expect(optionValues(element(view, ticketFieldId('components')).options)).toEqual(['7', '8']);
    expect(element(view, ticketFieldId('customfield_tags')).type).toBe('plain_text_input');
    expect(element(view, ticketFieldId('customfield_env'))).toMatchObject({ type: 'plain_text_input' });
    expect(element(view, ticketFieldId('customfield_env')).multiline).toBeUndefined();
    expect(element(view, ticketFieldId('customfield_impact'))).toMatchObject({
      type: 'plain_text_input',
      multiline: true,
    });
    expect(element(view, ticketFieldId('customfield_points'))).toMatchObject({
      type: 'number_input',
      is_decimal_allowed: true,
    });
    expect(element(view, ticketFieldId('duedate')).type).toBe('datepicker');
    expect(element(view, ticketFieldId('assignee'))).toMatchObject({
      type: 'plain_text_input',
      placeholder: { text: 'account id' },
    });
    const tagsBlock = inputs(view).find((block) => block.block_id === ticketFieldId('customfield_tags'));
    expect(tagsBlock?.hint?.text).toContain('commas');
  });

  it('offers the tracker labels as an optional multi-select, and none without labels', () => {
    const view = open();
    expect(element(view, TICKET_LABELS)).toMatchObject({ type: 'multi_static_select' });
    expect(optionValues(element(view, TICKET_LABELS).options)).toEqual(['chaos', 'gameday']);
    expect(inputs(view).find((block) => block.block_id === TICKET_LABELS)?.optional).toBe(true);
    expect(inputs(open({ labels: [] })).some((block) => block.block_id === TICKET_LABELS)).toBe(false);
  });

  it('asks labels as words when they are required and the tracker lists none', () => {
    const strict = issueMetaSchema.parse({
      ...issueMeta,
      fields: [{ key: 'labels', name: 'Labels', required: true, type: 'array' }],
    });
    const withList = open({ meta: strict });
    expect(inputs(withList).find((block) => block.block_id === TICKET_LABELS)?.optional).toBeUndefined();
    const view = open({ meta: strict, labels: [] });
    expect(element(view, TICKET_LABELS).type).toBe('plain_text_input');
    expectValidModal(view);
  });

  it('names the project and issue type', () => {
    expect(contextTexts(open().blocks)[0]).toBe('Filed in *Operations* (OPS) as *Incident*.');
  });

  it('lists the first 100 of a longer list of choices, and says so', () => {
    const long = issueMetaSchema.parse({
      ...issueMeta,
      fields: [{ key: 'customer', name: 'Customer', required: true, type: 'option', allowedValues: choices(250) }],
    });
    const view = open({ meta: long, labels: Array.from({ length: 150 }, (_, index) => `label-${index}`) });
    expectValidModal(view);
    const select = element(view, ticketFieldId('customer'));
    expect((select.options as unknown[]).length).toBe(100);
    expect(inputs(view).find((block) => block.block_id === ticketFieldId('customer'))?.hint?.text).toContain(
      'first 100 of 250',
    );
    expect((element(view, TICKET_LABELS).options as unknown[]).length).toBe(100);
  });

  it('stays within 100 blocks when the meta requires more fields than fit', () => {
    const many = issueMetaSchema.parse({
      ...issueMeta,
      fields: Array.from({ length: 120 }, (_, index) => ({
        key: `customfield_${index}`,
        name: `Field ${index}`,
        required: true,
        type: 'string',
      })),
    });
    const view = open({ meta: many });
    expectValidModal(view);
    expect(view.blocks.some((block) => block.block_id === TICKET_LABELS)).toBe(true);
    expect(contextTexts(view.blocks).some((text) => text.includes('more required fields do not fit'))).toBe(true);
  });

  it('shows given values again in each kind of element', () => {
    const view = open({
      values: {
        [TICKET_SUMMARY]: 'Edited summary',
        [ticketFieldId('priority')]: '3',
        [ticketFieldId('components')]: '8,7',
        [ticketFieldId('customfield_env')]: 'prod',
        [ticketFieldId('customfield_points')]: '2.5',
        [ticketFieldId('duedate')]: '2026-12-01',
        [TICKET_LABELS]: 'gameday',
      },
    });
    expect(element(view, TICKET_SUMMARY).initial_value).toBe('Edited summary');
    expect((element(view, ticketFieldId('priority')).initial_option as PlainTextOption).value).toBe('3');
    expect(optionValues(element(view, ticketFieldId('components')).initial_options)).toEqual(['7', '8']);
    expect(element(view, ticketFieldId('customfield_env')).initial_value).toBe('prod');
    expect(element(view, ticketFieldId('customfield_points')).initial_value).toBe('2.5');
    expect(element(view, ticketFieldId('duedate')).initial_date).toBe('2026-12-01');
    expect(optionValues(element(view, TICKET_LABELS).initial_options)).toEqual(['gameday']);
    const bad = open({
      values: {
        [ticketFieldId('customfield_points')]: 'many',
        [ticketFieldId('duedate')]: 'soon',
        [ticketFieldId('priority')]: '99',
      },
    });
    expect(element(bad, ticketFieldId('customfield_points')).initial_value).toBeUndefined();
    expect(element(bad, ticketFieldId('duedate')).initial_date).toBeUndefined();
    expect(element(bad, ticketFieldId('priority')).initial_option).toBeUndefined();
  });
});

const card: CardRecord = {
  guid: '6f1c2a4e-0000-4000-8000-000000000001',
  kind: 'attack',
  teamId: 'team-1',
  teamName: 'Payments',
  channel: 'C1',
  ts: '1700000000.000100',
  type: 'cpu',
  args: ['-l', '60', '-c', '1'],
  targetWords: '2 hosts tagged role=web',
  startedBy: { workspaceId: 'T1', userId: 'U1', userName: 'alice' },
  startedByPlatform: 'alice@example.com',
  stage: 'UserHalted',
  lifecycle: 'Complete',
  totalClients: 2,
  createdAt: '2026-11-20T18:13:49.593Z',
  startTime: '2026-11-20T18:13:50.000Z',
  endTime: '2026-11-20T18:14:30.000Z',
  lengthSeconds: 60,
  annotations: { n1: 'latency rose on web-1' },
  haltedBy: [{ userId: 'U2', at: '2026-11-20T18:14:20.000Z' }],
};

describe('ticket prefill', () => {
  it('summarises the attack in one line', () => {
    expect(ticketPrefill({ card: { ...card, stage: 'Successful', haltedBy: [] } }).summary).toBe(
      'Chaos attack cpu on 2 hosts tagged role=web: Successful',
    );
  });

  it('describes guid, type, args, targets, stage, people, times and links in plain text', () => {
    const attack = attackSchema.parse({
      guid: card.guid,
      stage: 'UserHalted',
      stage_lifecycle: 'Complete',
      targets: ['web-1', 'web-2'],
      create_user: 'alice@example.com',
    });
    const { description } = ticketPrefill({
      card,
      attack,
      permalink: 'https://slack.example/archives/C1/p1',
      appUrl: 'https://app.example',
      names: { U1: 'Alice Moreau', U2: 'Bob Okafor' },
    });
    const lines = description.split('\n');
    expect(lines).toContain(`Attack: ${card.guid}`);
    expect(lines).toContain('Type: cpu');
    expect(lines).toContain('Arguments: -l 60 -c 1');
    expect(lines).toContain('Target: 2 hosts tagged role=web');
    expect(lines).toContain('Resolved targets (2): web-1, web-2');
    expect(lines).toContain('Team: Payments');
    expect(lines).toContain('Stage: User Halted (Complete)');
    expect(lines).toContain('Started by: Alice Moreau in Slack, alice@example.com on the platform');
    expect(lines).toContain('Halted by: Bob Okafor at 2026-11-20T18:14:20.000Z');
    expect(lines).toContain('Started: 2026-11-20T18:13:50.000Z');
    expect(lines).toContain('Ended: 2026-11-20T18:14:30.000Z');
    expect(lines).toContain('- latency rose on web-1');
    expect(lines).toContain('Slack card: https://slack.example/archives/C1/p1');
    expect(lines).toContain(`Platform: https://app.example/attacks/${card.guid}`);
    expect(description).not.toMatch(/<@|<http|\*/);
  });

  it('names people it has no name for by Slack user id, and leaves out links it lacks', () => {
    const { description } = ticketPrefill({ card });
    expect(description).toContain('Started by: U1 in Slack');
    expect(description).toContain('Halted by: U2 at 2026-11-20T18:14:20.000Z');
    expect(description).not.toContain('Slack card:');
    expect(description).not.toContain('Platform:');
  });

  it("works from the platform's attack alone, and counts targets beyond 50", () => {
    const targets = Array.from({ length: 60 }, (_, index) => `host-${index}`);
    const attack = attackSchema.parse({
      guid: 'g-2',
      stage: 'Running',
      stage_lifecycle: 'Active',
      args: ['-l', '30'],
      infra_command: { type: 'memory', args: [] },
      target_type: 'Host',
      targets,
      total_clients: 60,
      create_user: 'carol@example.com',
      start_time: '2026-11-20T10:00:00.000Z',
    });
    const { summary, description } = ticketPrefill({ attack });
    expect(summary).toBe('Chaos attack memory on 60 hosts: Running');
    expect(description).toContain('Resolved targets (60): host-0, host-1');
    expect(description).toContain('host-49, and 10 more');
    expect(description).not.toContain('host-50');
    expect(description).toContain('Started by: carol@example.com on the platform');
    expect(description).toContain('Ended: still running');
  });

  it('keeps the summary within 255 characters and the description within 3,000', () => {
    const long = {
      ...card,
      targetWords: 'x'.repeat(400),
      annotations: Object.fromEntries(Array.from({ length: 20 }, (_, index) => [`n${index}`, 'y'.repeat(280)])),
    };
    const { summary, description } = ticketPrefill({ card: long });
    expect(summary.length).toBe(255);
    expect(description.length).toBeLessThanOrEqual(3000);
  });
});

describe('ticket replies', () => {
  it('announces a filed ticket with its link, or its key alone', () => {
    expect(ticketFiledText({ key: 'OPS-42', url: 'https://tracker.example/browse/OPS-42' }, 'U1')).toBe(
      ':ticket: <@U1> filed <https://tracker.example/browse/OPS-42|OPS-42>',
    );
    expect(ticketFiledText({ key: 'OPS-43' }, 'U1')).toBe(':ticket: <@U1> filed *OPS-43*');
  });

  const issue = (index: number): TrackerIssue => ({
    key: `OPS-${index}`,
    url: `https://tracker.example/browse/OPS-${index}`,
    summary: `CPU <spike> ${index}`,
    status: 'Open',
    created_at: '2026-11-20T18:13:49.593Z',
  });

  it('says when there are no tickets yet', () => {
    const message = ticketListMessage('g-1', []);
    expect(message.text).toContain('No tickets yet');
    expect(sectionTexts(message.blocks!)).toEqual(['No tickets yet for attack `g-1`.']);
  });

  it('lists key as link, summary, status and creation date', () => {
    const message = ticketListMessage('g-1', [issue(1), { key: 'OPS-2' }]);
    expect(messageViolations(message.blocks)).toEqual([]);
    const [first, second] = sectionTexts(message.blocks!);
    expect(first).toMatch(
      /^<https:\/\/tracker\.example\/browse\/OPS-1\|OPS-1> · CPU &lt;spike&gt; 1 · Open · created <!date\^\d+\^/,
    );
    expect(second).toBe('*OPS-2* · no summary');
  });

  it('stays within 50 blocks with many tickets and counts them all', () => {
    const message = ticketListMessage(
      'g-1',
      Array.from({ length: 80 }, (_, index) => issue(index)),
    );
    expect(messageViolations(message.blocks)).toEqual([]);
    expect(contextTexts(message.blocks!)).toEqual(['80 tickets; the first 45 are listed here.']);
  });
});

describe('the ticket about a whole game day', () => {
  const cpu = {
    guid: 'g-1',
    type: 'cpu',
    args: ['-l', '60'],
    targetWords: 'all hosts tagged role=web',
    teamId: 't-1',
    teamName: 'Platform',
    startedBy: 'U1',
  };
  const planned = {
    request: {
      type: 'cpu',
      args: ['-l', '60'],
      team: undefined,
      yes: false,
      lengthSeconds: 60,
      target: { kind: 'all' as const },
    },
    teamId: 't-1',
    teamName: 'Platform',
    addedBy: 'U1',
    addedAt: '2026-03-02T09:00:00.000Z',
  };
  const record = {
    channel: 'C1',
    ts: '1.1',
    title: 'Checkout drill',
    facilitator: 'U1',
    startedAt: '2026-03-02T10:00:00.000Z',
    endedAt: '2026-03-02T11:30:00.000Z',
    attacks: [cpu],
    halts: [],
    notes: [{ guid: 'g-1', text: 'p99 flat', by: 'U2', at: '2026-03-02T10:06:30.000Z' }],
    tickets: [],
    plan: {
      steps: [
        {
          ...planned,
          id: 's-1',
          source: { kind: 'saved' as const, name: 'web-cpu' },
          hypothesis: 'checkout stays under 500 ms p99',
          state: 'ended' as const,
          guid: 'g-1',
          ended: { at: '2026-03-02T10:06:00.000Z', stage: 'Successful', lifecycle: 'Complete' },
          answer: {
            answer: 'held' as const,
            by: 'U2',
            at: '2026-03-02T10:07:00.000Z',
            observation: 'p99 peaked at 310 ms',
          },
        },
        {
          ...planned,
          id: 's-2',
          source: { kind: 'typed' as const },
          hypothesis: 'retries hide the latency',
          state: 'vetoed' as const,
          vetoed: { by: 'U2', reason: 'payments is deploying', at: '2026-03-02T10:20:00.000Z' },
        },
      ],
    },
  };
  const names = { U1: 'Lena Park', U2: 'Sam Reyes' };
  const outcomes = { 'g-1': { stage: 'Successful', lifecycle: 'Complete', haltedBy: [] } };

  it('has the plan, each step with its hypothesis and verdict, and times people read', () => {
    const { description } = gameDayTicketPrefill(record, outcomes, undefined, names);
    expect(description).toContain('Plan (2 steps):');
    expect(description).toContain(
      '1. web-cpu: checkout stays under 500 ms p99 · Successful · held, said Sam Reyes: p99 peaked at 310 ms',
    );
    expect(description).toContain('2. cpu: retries hide the latency · vetoed by Sam Reyes: payments is deploying');
    expect(description).toContain('Started: 2026-03-02 10:00 UTC, ended 2026-03-02 11:30 UTC (1 h 30 min)');
    expect(description).toContain('- p99 flat (Sam Reyes, 10:06 UTC) [g-1]');
    expect(description).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:/);
  });
});
