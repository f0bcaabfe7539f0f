import { describe, expect, it } from 'vitest';
import { gameDayReportMarkdown, reportFilename, reportPeople } from '../../src/views/gamedays/report.ts';
import { markdownText } from '../../src/views/gamedays/reportMarkdown.ts';
import type { GameDayReport, ReportAttack } from '../../src/gamedays/report.ts';

describe('the game-day report file', () => {
  const hostile: ReportAttack = {
    guid: 'g-1',
    type: 'cpu',
    args: ['-l', '60', '--x', '`rm`'],
    target: { words: '2 hosts [click](https://evil.example)' },
    stage: 'Successful',
    lifecycle: 'Complete',
    createdBy: '<script>alert(1)</script>',
    createSource: 'WebApp',
    haltedBy: [],
    platformNotes: ['line one\n# not a heading\n- not an item'],
    executions: [
      { client_id: 'web-1`\n## injected', stage: 'Successful', stage_lifecycle: 'Complete', output: '**bold** | pipe' },
    ],
    tickets: [
      { key: 'OPS-1', url: 'javascript:alert(1)', summary: 'x' },
      { key: 'OPS-2', url: 'https://tracker.example/browse/OPS-2', summary: 'fine' },
    ],
  };
  const report: GameDayReport = {
    record: {
      id: '5963082c-bc4a-4d1e-8973-f680f295cb19',
      channel: 'C1',
      ts: '1.2',
      title: 'Drill *one*\n# two',
      facilitator: 'U1',
      startedAt: '2026-11-20T17:00:00.000Z',
      endedAt: '2026-11-20T18:00:00.000Z',
      attacks: [],
      halts: [],
      notes: [{ guid: 'g-1', by: 'U2', text: 'see [here](http://x)', at: '2026-11-20T17:30:00.000Z' }],
      tickets: [],
    },
    teams: [{ id: 't', name: 'Platform', attacks: [hostile], noTracker: false }],
    madeAt: '2026-11-20T18:00:01.000Z',
    madeBy: 'U1',
    window: { start: '2026-11-20T17:00:00.000Z', end: '2026-11-20T18:00:00.000Z' },
  };

  it('keeps text from the platform and from people as text: no links, headings, markup or HTML come from it', () => {
    const markdown = gameDayReportMarkdown(report, { U1: 'Nora Quinn', U2: 'Sam' });
    const headings = markdown.split('\n').filter((line) => line.startsWith('#'));
    expect(headings).toEqual([
      '# Game day report: Drill \\*one\\* \\# two',
      '## Overview',
      '## Team Platform',
      '### 1. cpu `g-1`',
      '## In the channel',
    ]);
    // Only the tracker's own https link is a link; a `]` from text is escaped, so cannot close one.
    expect(markdown).not.toMatch(/(?<!\\)\]\((?!<https:\/\/tracker\.example)/);
    expect(markdown).toContain('\\[click\\](https://evil.example)');
    expect(markdown).not.toContain('<script>');
    expect(markdown).toContain('[OPS-2](<https://tracker.example/browse/OPS-2>)');
    expect(markdown).toMatch(/- OPS-1: x/);
    expect(markdown).toContain("`web-1' ## injected`");
    expect(markdown).toContain('\\*\\*bold\\*\\* \\| pipe');
    expect(markdown).toContain('**Facilitator:** Nora Quinn');
    expect(markdown).toContain('Sam noted on cpu `g-1`');
  });

  it('names the people it mentions, for one users.info each', () => {
    expect([...reportPeople(report)].sort()).toEqual(['U1', 'U2']);
  });

  it('has a file name that is safe on every system', () => {
    expect(reportFilename({ title: 'Q4 <resilience> / day: "one"', startedAt: '2026-11-20T17:00:00.000Z' })).toBe(
      'game-day-report-q4-resilience-day-one-2026-11-20.md',
    );
    expect(reportFilename({ title: '…', startedAt: '2026-11-20T17:00:00.000Z' })).toBe(
      'game-day-report-game-day-2026-11-20.md',
    );
    expect(markdownText('a\n\nb')).toBe('a b');
  });
});
