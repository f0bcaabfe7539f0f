import { messageViolations, viewViolations } from '@faultline/fake-slack/limits';
import type { Button, KnownBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import type { GameDayRecord } from '../../src/gamedays/gamedayRecord.ts';
import type { GameDayPlan, PlanStep } from '../../src/gamedays/plan.ts';
import { addStepModal, answerModal } from '../../src/views/gamedays/stepForms.ts';
import { countdownMessage, hypothesisQuestion } from '../../src/views/gamedays/countdown.ts';
import { parsePlanPlace, parseStepRef, planMessage, stepRefValue } from '../../src/views/gamedays/plan.ts';
import { stepTimelineLine, summaryStepLines } from '../../src/views/gamedays/planWords.ts';
import { gameDayCard } from '../../src/views/gamedays/gameday.ts';
import { gameDayReportMarkdown } from '../../src/views/gamedays/report.ts';

const request = { type: 'cpu', args: ['-l', '60'], team: undefined, yes: false, lengthSeconds: 60 };

function step(n: number, fields: Partial<PlanStep> = {}): PlanStep {
  return {
    id: `step-${n}`,
    source: { kind: 'saved', name: `saved-${n}` },
    request: { ...request, target: { kind: 'tags', tags: { role: 'web' } } },
    teamId: 'team-1',
    teamName: 'Platform',
    hypothesis: `hypothesis ${n} <!channel> | with a pipe`,
    addedBy: 'U1',
    addedAt: '2026-01-01T10:00:00.000Z',
    state: 'planned',
    ...fields,
  };
}

const countingDown = step(2, {
  state: 'counting down',
  countdown: {
    startsAt: '2026-01-01T10:01:00.000Z',
    runBy: { workspaceId: 'T1', userId: 'U1', userName: 'u1' },
    channel: 'C1',
    ts: '1.2',
  },
});
const plan: GameDayPlan = {
  steps: [
    step(1, {
      state: 'ended',
      guid: 'g-1',
      ended: { at: '2026-01-01T10:02:00.000Z', stage: 'Successful', lifecycle: 'Complete' },
      answer: { answer: 'not held', by: 'U2', at: '2026-01-01T10:03:00.000Z', observation: 'errors | rose' },
    }),
    countingDown,
    step(3, { state: 'vetoed', vetoed: { by: 'U3', reason: 'deploy <@U9>', at: '2026-01-01T10:04:00.000Z' } }),
    ...Array.from({ length: 30 }, (_, i) => step(i + 4)),
  ],
};
const record: GameDayRecord & { id: string } = {
  id: 'day-1',
  channel: 'C1',
  ts: '1.1',
  title: 'Drill',
  facilitator: 'U1',
  startedAt: '2026-01-01T10:00:00.000Z',
  attacks: [],
  halts: [],
  notes: [],
  tickets: [{ guid: 'g-1', key: 'OPS-1', by: 'U2', at: '2026-01-01T10:05:00.000Z' }],
  plan,
};
const buttons = (blocks: KnownBlock[] | undefined) =>
  (blocks ?? []).flatMap((b) => (b.type === 'actions' ? (b.elements as Button[]) : []));

describe('the plan on Slack surfaces', () => {
  it('keeps the card, the plan, the countdown and the question within Slack limits, with a long plan', () => {
    expect(messageViolations(gameDayCard(record).blocks)).toEqual([]);
    expect(
      messageViolations(
        planMessage({ place: { channel: 'C1', gameDayId: 'day-1' }, plan, running: true, command: '/chaos' }).blocks,
      ),
    ).toEqual([]);
    expect(
      messageViolations(countdownMessage(record, countingDown, Date.parse('2026-01-01T10:00:00.000Z')).blocks),
    ).toEqual([]);
    expect(messageViolations(hypothesisQuestion(record, plan.steps[0]!).blocks)).toEqual([]);
    expect(
      viewViolations(addStepModal({ saved: [], teamName: 'Platform', askGuards: true, privateMetadata: '{}' })),
    ).toEqual([]);
  });

  it('counts down in words with Start now, Delay 5 min, Skip and Veto, and names the step', () => {
    const { text, blocks } = countdownMessage(record, countingDown, Date.parse('2026-01-01T10:00:00.000Z'));
    expect(text).toBe('Step 2 of 33: saved-2: cpu on all hosts tagged role=web, starts in 60 s');
    expect(buttons(blocks).map((b) => b.text.text)).toEqual(['Start now', 'Delay 5 min', 'Skip', 'Veto']);
    expect(parseStepRef(buttons(blocks)[0]!.value)).toEqual({ channel: 'C1', gameDayId: 'day-1', stepId: 'step-2' });
  });

  it('says a countdown of minutes in minutes', () => {
    const delayed = step(2, {
      ...countingDown,
      countdown: { ...countingDown.countdown!, startsAt: '2026-01-01T10:05:10.000Z' },
    });
    const { text, blocks } = countdownMessage(record, delayed, Date.parse('2026-01-01T10:00:00.000Z'));
    expect(text).toMatch(/, starts in 5 min 10 s$/);
    expect(JSON.stringify(blocks)).toContain('starts in 5 min 10 s');
    expect(JSON.stringify(blocks)).not.toContain('310 s');
  });

  it('offers Move up only to a step that can move up', () => {
    const ran = step(1, {
      state: 'ended',
      guid: 'g-1',
      ended: { at: '2026-01-01T10:02:00.000Z', stage: 'Successful', lifecycle: 'Complete' },
    });
    const three: GameDayPlan = { steps: [ran, step(2), step(3)] };
    const { blocks } = planMessage({
      place: { channel: 'C1', gameDayId: 'day-1' },
      plan: three,
      running: true,
      command: '/chaos',
    });
    const perStep = (blocks ?? []).filter((b) => b.type === 'actions' && b.block_id?.startsWith('plan_step:'));
    expect(perStep.map((b) => [b.block_id, buttons([b]).map((x) => x.text.text)])).toEqual([
      ['plan_step:step-2', ['Remove']],
      ['plan_step:step-3', ['Move up', 'Remove']],
    ]);
  });

  it('says who was unsure, never that the hypothesis is', () => {
    const unsure = step(1, {
      state: 'ended',
      ended: { at: '2026-01-01T10:02:00.000Z', stage: 'Successful', lifecycle: 'Complete' },
      answer: { answer: 'unsure', by: 'U2', at: '2026-01-01T10:03:00.000Z' },
    });
    const question = hypothesisQuestion({ ...record, plan: { steps: [unsure] } }, unsure);
    const line = stepTimelineLine({
      what: 'answered',
      position: 1,
      title: 'cpu',
      by: 'U2',
      answer: 'unsure',
      at: '2026-01-01T10:03:00.000Z',
    });
    const form = JSON.stringify(answerModal('{}', unsure, 1, 'unsure'));
    expect(form).toContain('*unsure* whether the hypothesis held');
    for (const words of [question.text, JSON.stringify(question.blocks), line, form])
      expect(words).not.toMatch(/hypothesis is unsure/);
    expect(question.text).toBe('Step 1: unsure whether the hypothesis held');
    expect(line).toBe(':microscope: <@U2> on step 1 (*cpu*): unsure whether the hypothesis held');
  });

  it('says when the automatic mode has no planned step left to run', () => {
    const ran = step(1, {
      state: 'ended',
      ended: { at: '2026-01-01T10:02:00.000Z', stage: 'Successful', lifecycle: 'Complete' },
      answer: { answer: 'held', by: 'U2', at: '2026-01-01T10:03:00.000Z' },
    });
    const auto = { by: { workspaceId: 'T1', userId: 'U1', userName: 'u1' }, since: '2026-01-01T10:00:00.000Z' };
    const text = planMessage({
      place: { channel: 'C1', gameDayId: 'day-1' },
      plan: { steps: [ran], auto },
      running: true,
      command: '/chaos',
    });
    const words = JSON.stringify(text.blocks);
    expect(words).toContain('no planned step is left');
    expect(words).not.toContain('the next step counts down');
  });

  it("escapes a saved attack's name and target in the countdown's fallback text", () => {
    const hostile = step(2, {
      ...countingDown,
      source: { kind: 'saved', name: 'drill<!here>' },
      request: { ...request, target: { kind: 'tags', tags: { role: '<!channel> <https://evil.example|x> &' } } },
    });
    const { text } = countdownMessage(record, hostile, Date.parse('2026-01-01T10:00:00.000Z'));
    expect(text).toBe(
      'Step 2 of 33: drill&lt;!here&gt;: cpu on all hosts tagged role=&lt;!channel&gt; &lt;https://evil.example|x&gt; &amp;, starts in 60 s',
    );
  });

  it('escapes what people typed: a hypothesis or a veto never mentions anyone', () => {
    const words = JSON.stringify(planMessage({ place: { channel: 'C1' }, plan, running: false, command: '/chaos' }));
    expect(words).not.toContain('<!channel>');
    expect(words).not.toContain('<@U9>');
    expect(summaryStepLines(record).join('\n')).not.toContain('<!channel>');
  });

  it('lists the steps in the summary and as a table in the report, a pipe kept inside its cell', () => {
    const lines = summaryStepLines(record);
    expect(lines[0]).toContain(':x: did not hold');
    expect(lines[0]).toContain('tickets OPS-1');
    expect(lines[2]).toContain('vetoed by <@U3>');
    const markdown = gameDayReportMarkdown({
      record,
      teams: [],
      madeAt: '2026-01-01T11:00:00.000Z',
      madeBy: 'U1',
      window: { start: record.startedAt, end: '2026-01-01T11:00:00.000Z' },
    });
    const row = markdown.split('\n').find((line) => line.startsWith('| 1 |'))!;
    expect(row.split(/(?<!\\)\|/).length).toBe(9);
    expect(row).toContain('errors \\| rose');
    expect(row).toContain('OPS-1');
  });

  it('reads back only the buttons it made', () => {
    expect(parseStepRef(stepRefValue({ channel: 'C1', gameDayId: 'day-1', stepId: 'step-1' }))).toBeDefined();
    for (const forged of ['', '{}', '{"c":"C1","g":"../x","s":"a"}', '{"c":"x","g":"d","s":"s"}', 'null'])
      expect(parseStepRef(forged)).toBeUndefined();
    expect(parsePlanPlace('{"c":"C1"}')).toEqual({ channel: 'C1' });
    expect(parsePlanPlace('{"c":"C1","g":"<x>"}')).toBeUndefined();
  });
});
