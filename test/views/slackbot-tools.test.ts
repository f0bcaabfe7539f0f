import { describe, expect, it } from 'vitest';
import { toolText } from '../../src/views/slackbot/tools.ts';

describe('what Slackbot reads of a Faultline message', () => {
  it('reads blocks as lines: fields as label and value, dates and links as their words, link buttons with their address', () => {
    const text = toolText({
      text: 'fallback',
      blocks: [
        { type: 'header', text: { type: 'plain_text', text: 'cpu attack · Running' } },
        {
          type: 'section',
          text: { type: 'mrkdwn', text: ':zap: *Started* <!date^1795886272^{date_short_pretty}|2026-11-28 17:17 UTC>' },
          fields: [
            { type: 'mrkdwn', text: '*Stage*\nRunning' },
            { type: 'mrkdwn', text: '*Ended*\n_still running_' },
          ],
        },
        {
          type: 'context',
          elements: [{ type: 'mrkdwn', text: 'See <https://app.example/a/1|the attack> &amp; more' }],
        },
        {
          type: 'actions',
          elements: [
            { type: 'button', text: { type: 'plain_text', text: 'Halt' }, action_id: 'halt_attack', value: 'x' },
            {
              type: 'button',
              text: { type: 'plain_text', text: 'Open on the platform' },
              url: 'https://app.example/a/1',
            },
          ],
        },
      ],
    });
    expect(text).toBe(
      [
        'cpu attack · Running',
        'Started 2026-11-28 17:17 UTC',
        'Stage: Running',
        'Ended: still running',
        'See the attack (https://app.example/a/1) & more',
        'Open on the platform: https://app.example/a/1',
      ].join('\n'),
    );
  });

  it('reads the fallback text of a message without blocks', () => {
    expect(toolText({ text: '*Halt requested* for attack `ca7d80ce`.' })).toBe('Halt requested for attack ca7d80ce.');
  });
});
