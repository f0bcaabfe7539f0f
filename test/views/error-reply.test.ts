import { describe, expect, it } from 'vitest';
import { errorFromResponse } from '../../src/client/errors.ts';
import { describeError, errorInBrief } from '../../src/views/errorReply.ts';

/** What the platform answers when the company lacks the integration an endpoint goes through. */
const missing = (path: string) =>
  errorFromResponse({ status: 404, body: 'No integration exists' }, { method: 'GET', path });

describe('a missing integration, in words', () => {
  it('names the integration the call went through, and what it stops', () => {
    const cases = [
      {
        path: '/tracker/issues',
        words: /no issue-tracker integration .*tickets cannot be filed/,
        brief: 'the company has no issue-tracker integration',
      },
      {
        path: '/monitoringA/monitors/1234567',
        words: /no monitoringA integration .*monitors cannot be read/,
        brief: 'the company has no monitoringA integration by that name and domain',
      },
      {
        path: '/monitoringB/alerts',
        words: /no monitoringB integration .*alerts cannot be read/,
        brief: 'the company has no monitoringB integration at that URI',
      },
    ];
    for (const { path, words, brief } of cases) {
      const text = describeError(missing(path), { command: '/chaos' }).text;
      expect(text).toMatch(words);
      expect(text).toContain('company admin');
      expect(errorInBrief(missing(path))).toBe(brief);
    }
    // A monitoring call is never called a tracker.
    for (const path of ['/monitoringA/monitors', '/monitoringB/alerts']) {
      expect(describeError(missing(path), { command: '/chaos' }).text).not.toContain('tracker');
      expect(errorInBrief(missing(path))).not.toContain('tracker');
    }
  });
});
