import { PLAN_ADD_STEP } from '../../src/views/gamedays/plan.ts';
import { messageViolations } from '@faultline/fake-slack/limits';
import type { ActionsBlock, Button, KnownBlock, SectionBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import {
  durationText,
  GAMEDAY_END,
  GAMEDAY_END_ANYWAY,
  GAMEDAY_END_CANCEL,
  GAMEDAY_FILE_TICKET,
  GAMEDAY_HALT_AND_END,
  gameDayCard,
  gameDayFailureLine,
  gameDayTimelineLine,
} from '../../src/views/gamedays/gameday.ts';
import { gameDayEndWarning, gameDayStatusMessage, gameDaySummary } from '../../src/views/gamedays/gamedaySummary.ts';
import {
  parseGameDayRef,
  type GameDayAttack,
  type GameDayOutcomes,
  type GameDayRecord,
  type GameDayRefusal,
} from '../../src/gamedays/gamedayRecord.ts';
import { HALT_ALL_CONFIRMED } from '../../src/views/attacks/halt.ts';

const cpu: GameDayAttack = {
  guid: 'g-cpu',
  type: 'cpu',
  args: ['-l', '60'],
  targetWords: '2 hosts tagged role=web',
  startedBy: 'U1',
  teamId: 'team-1',
  teamName: 'Payments',
};
const latency: GameDayAttack = {
  guid: 'g-lat',
  type: 'latency',
  args: ['-m', '200'],
  targetWords: 'host web-1',
  startedBy: 'U2',
  teamId: 'team-1',
  teamName: 'Payments',
};

const running: GameDayRecord = {
  channel: 'C1',
  ts: '1700000000.000100',
  title: 'Q4 <resilience>',
  facilitator: 'U9',
  startedAt: '2026-11-20T17:00:00.000Z',
  attacks: [cpu, latency],
  halts: [{ guid: 'g-lat', by: 'U3', at: '2026-11-20T17:10:00.000Z', scope: 'attack' }],
  notes: [{ guid: 'g-cpu', by: 'U4', text: 'p99 went to 900 ms', at: '2026-11-20T17:05:00.000Z' }],
  tickets: [
    {
      guid: 'g-lat',
      key: 'OPS-42',
      url: 'https://tracker.example/browse/OPS-42',
      by: 'U5',
      at: '2026-11-20T17:20:00.000Z',
    },
  ],
};
const ended: GameDayRecord = { ...running, endedAt: '2026-11-20T18:05:30.000Z' };

const outcomes: GameDayOutcomes = {
  'g-cpu': { stage: 'Successful', lifecycle: 'Complete', haltedBy: [] },
  'g-lat': { stage: 'UserHalted', lifecycle: 'Complete', haltedBy: ['U3'] },
};

const sectionTexts = (blocks: KnownBlock[] = []) =>
  blocks.filter((block): block is SectionBlock => block.type === 'section').map((block) => block.text?.text ?? '');
const fieldTexts = (blocks: KnownBlock[] = []) =>
  blocks
    .filter((block): block is SectionBlock => block.type === 'section' && block.fields !== undefined)
    .flatMap((block) => block.fields!.map((field) => field.text));
const buttons = (blocks: KnownBlock[] = []) =>
  blocks
    .filter((block): block is ActionsBlock => block.type === 'actions')
    .flatMap((block) => block.elements as Button[]);

function manyAttacks(count: number, argLength = 10): GameDayRecord {
  const attacks = Array.from(
    { length: count },
    (_, index): GameDayAttack => ({
      ...cpu,
      guid: `g-${index}`,
      args: ['-p', 'x'.repeat(argLength)],
      startedBy: `U${index}`,
    }),
  );
  return {
    ...ended,
    attacks,
    halts: attacks.map((a) => ({ guid: a.guid, by: 'U3', at: ended.startedAt, scope: 'attack' as const })),
    notes: attacks.map((a) => ({ guid: a.guid, by: 'U4', text: 'n'.repeat(400), at: ended.startedAt })),
    tickets: attacks.map((a, index) => ({
      guid: a.guid,
      key: `OPS-${index}`,
      url: `https://tracker.example/browse/OPS-${index}`,
      by: 'U5',
      at: ended.startedAt,
    })),
  };
}

describe('game-day card', () => {
  it('running: title, facilitator, start, counters, Halt all and End behind confirms', () => {
    const { text, blocks } = gameDayCard(running);
    expect(messageViolations(blocks)).toEqual([]);
    expect(text).toBe('Game day Q4 &lt;resilience&gt;: running');
    expect(sectionTexts(blocks)[0]).toMatch(
      /^Facilitated by <@U9> · started <!date\^\d+\^.*\n:large_green_circle: Running$/,
    );
    expect(fieldTexts(blocks)).toEqual(['*Attacks*\n2', '*Halts*\n1', '*Notes*\n1', '*Tickets*\n1']);
    const [haltAll, addStep, end] = buttons(blocks);
    // A game day without a plan offers to start one.
    expect(addStep).toMatchObject({ action_id: PLAN_ADD_STEP, text: { text: 'Add step' } });
    expect(haltAll).toMatchObject({
      action_id: HALT_ALL_CONFIRMED,
      value: 'attacks',
      style: 'danger',
      confirm: { title: { text: 'Halt all attacks?' } },
    });
    expect(end).toMatchObject({ action_id: GAMEDAY_END, confirm: { title: { text: 'End the game day?' } } });
    expect(parseGameDayRef(end?.value)).toEqual({ channel: 'C1', ts: '1700000000.000100' });
  });

  it('ended: the status says when and how long, and the buttons are gone', () => {
    const { text, blocks } = gameDayCard(ended);
    expect(messageViolations(blocks)).toEqual([]);
    expect(text).toBe('Game day Q4 &lt;resilience&gt;: ended');
    expect(sectionTexts(blocks)[0]).toMatch(/:checkered_flag: Ended <!date\^\d+\^[^>]*>, after 1 h 5 min$/);
    expect(buttons(blocks)).toEqual([]);
  });
});

describe('game-day references', () => {
  it('reads back only well-formed values', () => {
    expect(parseGameDayRef(undefined)).toBeUndefined();
    expect(parseGameDayRef('not json')).toBeUndefined();
    expect(parseGameDayRef('{"c":"C1"}')).toBeUndefined();
  });
});

describe('durationText', () => {
  it.each([
    ['2026-11-20T17:00:00Z', '2026-11-20T17:00:40Z', '40 s'],
    ['2026-11-20T17:00:00Z', '2026-11-20T17:12:59Z', '12 min'],
    ['2026-11-20T17:00:00Z', '2026-11-20T19:00:00Z', '2 h'],
    ['2026-11-20T17:00:00Z', '2026-11-20T18:05:30Z', '1 h 5 min'],
    ['nonsense', '2026-11-20T18:05:30Z', 'unknown'],
  ])('%s to %s is %s', (start, end, words) => {
    expect(durationText(start, end)).toBe(words);
  });
});

describe('game-day timeline', () => {
  it.each([
    [
      { kind: 'attack', attack: cpu },
      ':rocket: <@U1> started *cpu* `g-cpu` `-l 60` on 2 hosts tagged role=web in team *Payments*',
    ],
    [
      { kind: 'halt', halt: { guid: 'g-lat', by: 'U3', at: '', scope: 'attack' } },
      ':octagonal_sign: <@U3> halted the *latency* `g-lat` attack',
    ],
    [
      { kind: 'halt', halt: { guid: 'g-other', by: 'U3', at: '', scope: 'attack' } },
      ':octagonal_sign: <@U3> halted attack `g-other`',
    ],
    [{ kind: 'halt', halt: { by: 'U3', at: '', scope: 'all' } }, ':octagonal_sign: <@U3> halted all attacks'],
    [
      { kind: 'halt', halt: { by: 'U3', at: '', scope: 'everything' } },
      ':octagonal_sign: <@U3> halted everything across the platform',
    ],
    [
      { kind: 'note', note: { guid: 'g-cpu', by: 'U4', text: 'queue <backed> up', at: '' } },
      ':memo: <@U4> on the *cpu* `g-cpu` attack: queue &lt;backed&gt; up',
    ],
    [
      { kind: 'ticket', ticket: { guid: 'g-lat', key: 'OPS-42', url: 'https://t.example/OPS-42', by: 'U5', at: '' } },
      ':ticket: <@U5> filed <https://t.example/OPS-42|OPS-42> for the *latency* `g-lat` attack',
    ],
    [{ kind: 'ticket', ticket: { key: 'OPS-43', by: 'U5', at: '' } }, ':ticket: <@U5> filed *OPS-43* for the game day'],
    [
      {
        kind: 'refused',
        refused: {
          type: 'cpu',
          args: ['-l', '60'],
          targetWords: 'all hosts tagged role=web',
          startedBy: 'U7',
          teamName: 'Payments',
          reason: 'the platform role lacks the `EXPERIMENTS_RUN` privilege on team *Payments*',
          at: '',
        },
      },
      ':x: <@U7> could not start *cpu* `-l 60` on all hosts tagged role=web in team *Payments*: the platform role lacks the `EXPERIMENTS_RUN` privilege on team *Payments*',
    ],
    [
      {
        kind: 'refused',
        refused: {
          type: 'cpu',
          args: [],
          targetWords: 'host web-1',
          startedBy: 'U7',
          teamName: 'Payments',
          reason: 'the platform did not confirm in time, so it may have started',
          unconfirmed: true,
          at: '',
        },
      },
      ":grey_question: <@U7> tried to start *cpu* _no arguments_ on host web-1 in team *Payments*, but the platform did not confirm in time, so it may have started: check the team's attacks before trying again",
    ],
  ] as [Parameters<typeof gameDayTimelineLine>[0], string][])('%j', (event, line) => {
    expect(gameDayTimelineLine(event, running.attacks)).toBe(line);
  });
});

describe('attacks of a game day that fail', () => {
  it('the timeline names the failed stage and what it means', () => {
    expect(gameDayFailureLine(cpu, 'TargetNotFound')).toBe(
      ':x: The *cpu* `g-cpu` attack on 2 hosts tagged role=web in team *Payments* failed · :x: Failed: target not found (no host or container matched its target)',
    );
    expect(gameDayFailureLine(cpu, 'SomethingNew')).toContain(
      ':x: Something New (the platform reports that it failed)',
    );
  });

  it('the summary gives the reason of a failed stage, and lists starts the platform refused or did not confirm', () => {
    const refusal: GameDayRefusal = {
      type: 'memory',
      args: ['-p', '50'],
      targetWords: 'host db-1',
      startedBy: 'U7',
      teamName: 'Payments',
      reason: 'the platform rejected the request as invalid',
      at: ended.startedAt,
    };
    const record: GameDayRecord = {
      ...ended,
      refused: [
        refusal,
        {
          ...refusal,
          type: 'io',
          reason: 'the platform did not confirm in time, so it may have started',
          unconfirmed: true,
        },
      ],
    };
    const { blocks } = gameDaySummary(record, {
      ...outcomes,
      'g-cpu': { stage: 'TargetNotFound', lifecycle: 'Error', haltedBy: [] },
    });
    expect(messageViolations(blocks)).toEqual([]);
    const sections = sectionTexts(blocks);
    expect(sections.find((text) => text.startsWith('*Attacks*'))).toContain(
      'started by <@U1> · :x: Failed: target not found (no host or container matched its target)',
    );
    expect(sections.find((text) => text.startsWith('*Did not start*'))).toMatch(
      /^\*Did not start\*\n• \*memory\* `-p 50` on host db-1 · team Payments · tried by <@U7> <!date[^>]*>: the platform rejected the request as invalid$/,
    );
    expect(sections.find((text) => text.startsWith('*Not confirmed'))).toContain('*io*');
  });

  it('the summary says an attack still running will be shown once it ends', () => {
    const text = sectionTexts(
      gameDaySummary(ended, { ...outcomes, 'g-cpu': { stage: 'Running', lifecycle: 'Active', haltedBy: [] } }).blocks,
    ).join('\n');
    expect(text).toContain('started by <@U1> · :fire: Running _(not over yet: shown here once it ends)_');
  });

  it("stays within Slack's limits with 200 refusals beside 200 attacks", () => {
    const record = manyAttacks(200, 490);
    record.refused = Array.from(
      { length: 200 },
      (_, index): GameDayRefusal => ({
        type: 'cpu',
        args: ['-p', 'x'.repeat(490)],
        targetWords: 'host web-1',
        startedBy: `U${index}`,
        teamName: 'Payments',
        reason: 'the platform rejected the request as invalid',
        at: ended.startedAt,
      }),
    );
    const { blocks } = gameDaySummary(record, {});
    expect(messageViolations(blocks)).toEqual([]);
    expect(sectionTexts(blocks).join('\n')).toMatch(/_and \d+ more attacks_/);
  });
});

describe('ending a game day with attacks running', () => {
  it('names each running attack and offers Halt all and end, End anyway and Cancel for this game day', () => {
    const { text, blocks } = gameDayEndWarning(running, [
      { attack: cpu, stage: 'Running', lifecycle: 'Active' },
      { attack: latency, stage: 'Halt', lifecycle: 'Halting' },
    ]);
    expect(messageViolations(blocks)).toEqual([]);
    expect(text).toBe('2 attacks of game day Q4 &lt;resilience&gt; are still running');
    const body = sectionTexts(blocks).join('\n');
    expect(body).toContain('Ending the game day does not stop them.');
    expect(body).toContain(
      '• *cpu* `g-cpu` `-l 60` on 2 hosts tagged role=web · team Payments · started by <@U1> · :fire: Running',
    );
    expect(body).toContain('*latency* `g-lat`');
    expect(buttons(blocks).map((b) => [b.text.text, b.action_id])).toEqual([
      ['Halt all and end', GAMEDAY_HALT_AND_END],
      ['End anyway', GAMEDAY_END_ANYWAY],
      ['Cancel', GAMEDAY_END_CANCEL],
    ]);
    for (const button of buttons(blocks))
      expect(parseGameDayRef(button.value)).toEqual({ channel: 'C1', ts: '1700000000.000100' });
  });

  it('says which halts failed', () => {
    const body = sectionTexts(
      gameDayEndWarning(
        running,
        [{ attack: cpu, stage: 'Running', lifecycle: 'Active' }],
        ['*cpu* `g-cpu`: the platform role lacks the `HALT_WRITE` privilege'],
      ).blocks,
    ).join('\n');
    expect(body).toContain(
      '*Not halted, so the game day goes on*\n• *cpu* `g-cpu`: the platform role lacks the `HALT_WRITE` privilege',
    );
  });
});

describe('game-day summary', () => {
  it('gives duration, each attack with its outcome and halter, the notes and the tickets', () => {
    const { text, blocks } = gameDaySummary(ended, outcomes);
    expect(messageViolations(blocks)).toEqual([]);
    expect(text).toBe('Game day Q4 &lt;resilience&gt; summary: 2 attacks in 1 h 5 min');
    const sections = sectionTexts(blocks);
    expect(sections[0]).toMatch(/^Facilitated by <@U9> · started .* · ended .* after \*1 h 5 min\*$/);
    const attacks = sections.find((text) => text.startsWith('*Attacks*'))!.split('\n');
    expect(attacks).toEqual([
      '*Attacks*',
      '• *cpu* `g-cpu` `-l 60` on 2 hosts tagged role=web · team Payments · started by <@U1> · :white_check_mark: Successful',
      '• *latency* `g-lat` `-m 200` on host web-1 · team Payments · started by <@U2> · :octagonal_sign: User Halted · halted by <@U3>',
    ]);
    expect(sections.find((text) => text.startsWith('*Notes*'))).toBe(
      '*Notes*\n• <@U4> on *cpu* `g-cpu`: p99 went to 900 ms',
    );
    expect(sections.find((text) => text.startsWith('*Tickets*'))).toBe(
      '*Tickets*\n• <https://tracker.example/browse/OPS-42|OPS-42> for *latency* `g-lat`, filed by <@U5>',
    );
    expect(sections.some((text) => text.startsWith('*Halts of every attack*'))).toBe(false);
    const [fileTicket] = buttons(blocks);
    expect(fileTicket?.action_id).toBe(GAMEDAY_FILE_TICKET);
    expect(parseGameDayRef(fileTicket?.value)).toEqual({ channel: 'C1', ts: '1700000000.000100' });
  });

  it('names halters from both the outcome and the recorded halts, once each, and an unknown outcome', () => {
    const record: GameDayRecord = {
      ...ended,
      halts: [...ended.halts, { guid: 'g-lat', by: 'U6', at: ended.startedAt, scope: 'attack' }],
    };
    const lines = sectionTexts(
      gameDaySummary(record, { 'g-lat': { stage: 'UserHalted', lifecycle: 'Complete', haltedBy: ['U3', 'U8'] } })
        .blocks,
    ).join('\n');
    expect(lines).toContain('halted by <@U3>, <@U8>, <@U6>');
    expect(lines).toContain('started by <@U1> · :grey_question: outcome unknown');
  });

  it('lists halts of every attack, and says when no attack was started', () => {
    const record: GameDayRecord = {
      ...ended,
      attacks: [],
      notes: [],
      tickets: [],
      halts: [{ by: 'U3', at: ended.startedAt, scope: 'everything' }],
    };
    const sections = sectionTexts(gameDaySummary(record, {}).blocks);
    expect(sections).toContain('*Attacks*\nNo attacks were started in the channel.');
    expect(sections.find((text) => text.startsWith('*Halts of every attack*'))).toMatch(
      /^\*Halts of every attack\*\n• <@U3> halted everything across the platform <!date/,
    );
  });

  it('stays within 50 blocks and 3,000 characters a section with 200 attacks, counting those left out', () => {
    // Short lines all fit in the attack sections; long ones do not.
    for (const [argLength, allListed] of [
      [10, true],
      [490, false],
    ] as const) {
      const record = manyAttacks(200, argLength);
      const outcomesOfAll = Object.fromEntries(
        record.attacks.map((a) => [a.guid, { stage: 'UserHalted', lifecycle: 'Complete', haltedBy: ['U3'] }]),
      );
      const { blocks } = gameDaySummary(record, outcomesOfAll);
      expect(messageViolations(blocks)).toEqual([]);
      expect(buttons(blocks).map((button) => button.action_id)).toEqual([GAMEDAY_FILE_TICKET]);
      const text = sectionTexts(blocks).join('\n');
      const listed = (text.match(/• \*cpu\* `g-\d+`/g) ?? []).length;
      if (allListed) {
        expect(listed).toBe(200);
        expect(text).not.toContain('more attacks_');
      } else {
        expect(listed).toBeLessThan(200);
        expect(text).toContain(`_and ${200 - listed} more attacks_`);
      }
      expect(text).toMatch(/_and \d+ more notes_/);
      expect(text).toMatch(/_and \d+ more tickets_/);
    }
  });
});

describe('game-day status', () => {
  it('says running or ended, with counters and the latest attacks', () => {
    const { text, blocks } = gameDayStatusMessage(running, {
      'g-lat': { stage: 'Successful', lifecycle: 'Complete', haltedBy: [] },
    });
    expect(messageViolations(blocks)).toEqual([]);
    expect(text).toBe('Game day Q4 &lt;resilience&gt;: running');
    expect(sectionTexts(blocks)[0]).toMatch(
      /^:dart: Game day \*Q4 &lt;resilience&gt;\* · running\nFacilitated by <@U9>/,
    );
    expect(fieldTexts(blocks)).toContain('*Attacks*\n2');
    expect(sectionTexts(blocks).join('\n')).toMatch(
      /• \*latency\* `g-lat` `-m 200` on host web-1 · team \w+ · started by <@U2> · :white_check_mark: Successful/,
    );
    expect(gameDayStatusMessage(ended, {}).text).toBe('Game day Q4 &lt;resilience&gt;: ended after 1 h 5 min');
    expect(sectionTexts(gameDayStatusMessage(ended, {}).blocks)[0]).toMatch(
      / · ended <!date\^\d+\^[^>]*> after 1 h 5 min\n/,
    );
  });

  it('lists the ten latest of many attacks and counts the earlier ones', () => {
    const { blocks } = gameDayStatusMessage(manyAttacks(25), {});
    expect(messageViolations(blocks)).toEqual([]);
    const text = sectionTexts(blocks).join('\n');
    expect(text).toContain('*Latest attacks (15 earlier)*');
    expect(text).toContain('`g-24`');
    expect(text).not.toContain('`g-14`');
  });
});

describe('guards on game-day surfaces', () => {
  const trip = (index: number, halted: number): NonNullable<GameDayRecord['trips']>[number] => ({
    key: `b|https://alerts.example|Alert${index}`,
    guard: `Alert<!channel>${index}${'x'.repeat(150)}`,
    state: 'firing',
    at: ended.startedAt,
    owner: 'U7',
    halted: Array.from({ length: halted }, (_, n) => ({ guid: `g-${index}-${n}`, type: 'cpu' })),
    notHalted: [{ guid: `g-${index}-stuck`, type: 'memory' }],
  });

  it("lists many guards on the card within Slack's limits, escaped, with when each last fired", () => {
    const guards = Array.from({ length: 30 }, (_, index) => ({
      key: `b|https://alerts.example|Alert${index}`,
      name: `Alert<!channel>${index}`,
      state: index ? 'inactive' : 'firing',
      health: index ? ('healthy' as const) : ('unhealthy' as const),
    }));
    const { blocks } = gameDayCard({ ...running, guards, trips: [trip(0, 1)] });
    expect(messageViolations(blocks)).toEqual([]);
    const text = sectionTexts(blocks).find((t) => t.startsWith('*Guards*'))!;
    expect(text).toMatch(/^\*Guards\*\n:rotating_light: Alert&lt;!channel&gt;0: firing · fired <!date/);
    expect(text).not.toContain('<!channel>');
    expect(text).toContain('_and 15 more guards_');
  });

  it('keeps the summary within 50 blocks with 200 attacks and 100 trips, counting the trips left out', () => {
    const record: GameDayRecord = {
      ...manyAttacks(200, 490),
      trips: Array.from({ length: 100 }, (_, index) => trip(index, 20)),
    };
    const { blocks } = gameDaySummary(record, {});
    expect(messageViolations(blocks)).toEqual([]);
    const text = sectionTexts(blocks).join('\n');
    expect(text).toMatch(
      /\*Guard trips\*\n• \*Alert&lt;!channel&gt;0x+\* fired \(firing\) <!date[^>]*>, guard of <@U7>: halted \*cpu\* `g-0-0`/,
    );
    expect(text).toContain("<@U7>'s session could not halt *memory* `g-0-stuck`");
    expect(text).toMatch(/_and \d+ more trips_/);
  });

  it('tells a trip in the timeline: what it halted, what it could not, or that nothing ran', () => {
    expect(gameDayTimelineLine({ kind: 'guard', trip: trip(1, 1) })).toMatch(
      /^:rotating_light: Guard \*Alert&lt;!channel&gt;1x+\* fired \(firing\) at <!date[^>]*>: halted \*cpu\* `g-1-0`; <@U7>'s session could not halt \*memory\* `g-1-stuck`: halt it now$/,
    );
    expect(gameDayTimelineLine({ kind: 'guard', trip: { ...trip(2, 0), notHalted: [] } })).toMatch(
      /fired \(firing\) at <!date[^>]*>: no attack it covers was running$/,
    );
  });
});
