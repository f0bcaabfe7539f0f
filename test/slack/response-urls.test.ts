import { describe, expect, it } from 'vitest';
import { isSlackResponseUrl } from '../../src/slack/replies.ts';

describe('which response_urls get a reply', () => {
  const slack = 'https://slack.com/api/';
  const fake = 'http://127.0.0.1:4100/api/';
  it.each([
    ['https://hooks.slack.com/commands/T0/1/abc', slack, true],
    ['https://hooks.slack.com/actions/T0/1/abc', fake, true],
    ['http://127.0.0.1:4100/hooks/abc', fake, true],
    ['http://hooks.slack.com/commands/T0/1/abc', slack, false],
    ['https://hooks.slack.com.evil.example/x', slack, false],
    ['https://user:pw@hooks.slack.com/x', slack, false],
    ['https://evil.example/hooks.slack.com', slack, false],
    ['http://127.0.0.1:4100/hooks/abc', slack, false],
    ['http://127.0.0.1:9999/hooks/abc', fake, false],
    ['not a url', slack, false],
  ])('%s with SLACK_API_URL %s: %s', (url, api, allowed) => {
    expect(isSlackResponseUrl(url, api)).toBe(allowed);
  });
});
