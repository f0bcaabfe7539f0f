/** The Web API clients' fetch over kept-alive undici connections, against the fake Slack. */
import { ErrorCode, WebClient } from '@slack/web-api';
import { startFakeSlack, type FakeSlack } from '@faultline/fake-slack';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { slackFetch } from '../../src/slack/webFetch.ts';

let fake: FakeSlack;
beforeEach(async () => {
  fake = await startFakeSlack({ signingSecret: 'unit-secret', botToken: 'xoxb-unit' });
});
afterEach(async () => {
  await fake.stop();
});

describe('slackFetch', () => {
  it("carries Web API calls and their answers as Node's fetch did", async () => {
    const client = new WebClient('xoxb-unit', {
      slackApiUrl: fake.apiUrl,
      fetch: slackFetch(),
      retryConfig: { retries: 0 },
    });
    const posted = await client.chat.postMessage({
      channel: 'C0GENERAL',
      text: 'hello',
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '*hello*' } }],
    });
    expect(posted.ok).toBe(true);
    expect(fake.channel('C0GENERAL').messages().at(-1)?.text()).toContain('hello');
    await expect(
      client.chat.update({ channel: 'C0GENERAL', ts: '1.000', text: 'nothing there' }),
    ).rejects.toMatchObject({ code: ErrorCode.PlatformError, data: { ok: false } });
  });

  it("passes Slack's Retry-After on a 429 to a client that rejects rate-limited calls", async () => {
    const client = new WebClient('xoxb-unit', {
      slackApiUrl: fake.apiUrl,
      fetch: slackFetch(),
      rejectRateLimitedCalls: true,
      retryConfig: { retries: 0 },
    });
    fake.faults.inject({ kind: 'ratelimit', method: 'chat.update', retryAfterSeconds: 30 });
    await expect(client.chat.update({ channel: 'C0GENERAL', ts: '1.000', text: 'later' })).rejects.toMatchObject({
      code: ErrorCode.RateLimitedError,
      retryAfter: 30,
    });
  });
});
