import { webApi } from '@slack/bolt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from '../src/index.ts';
import { capturingLogger } from './minimal-app.ts';

const BOT_TOKEN = 'xoxb-faults-test';
let fake: FakeSlack;
let client: webApi.WebClient;

beforeEach(async () => {
  fake = await startFakeSlack({ signingSecret: 'secret', botToken: BOT_TOKEN });
  // Rate limits surface as errors here instead of being waited out, and nothing is retried.
  client = new webApi.WebClient(BOT_TOKEN, {
    slackApiUrl: fake.apiUrl,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    logger: capturingLogger([]),
  });
});
afterEach(() => fake.stop());

describe('Web API faults', () => {
  it("answers a rate-limited method with Slack's 429 and Retry-After, for the calls asked, other methods untouched", async () => {
    const posted = await client.chat.postMessage({ channel: 'C0FAULTS', text: 'card' });
    fake.faults.inject({ kind: 'ratelimit', method: 'chat.update', retryAfterSeconds: 7, times: 2 });

    for (let i = 0; i < 2; i++) {
      await expect(
        client.chat.update({ channel: 'C0FAULTS', ts: posted.ts!, text: `update ${i}` }),
      ).rejects.toMatchObject({ code: webApi.ErrorCode.RateLimitedError, retryAfter: 7 });
    }
    expect((await client.chat.postMessage({ channel: 'C0FAULTS', text: 'a reply', thread_ts: posted.ts! })).ok).toBe(
      true,
    );
    expect((await client.chat.update({ channel: 'C0FAULTS', ts: posted.ts!, text: 'update 2' })).ok).toBe(true);

    expect(fake.callsTo('chat.update').map((call) => call.error ?? 'ok')).toEqual(['ratelimited', 'ratelimited', 'ok']);
    expect(fake.failures().map((call) => call.method)).toEqual(['chat.update', 'chat.update']);
    expect(fake.channel('C0FAULTS').messages().at(-1)?.text()).toBe('update 2');
  });

  it('rate-limits every call until cleared when no count is given', async () => {
    fake.faults.inject({ kind: 'ratelimit', method: 'chat.postMessage' });
    for (let i = 0; i < 3; i++)
      await expect(client.chat.postMessage({ channel: 'C0FAULTS', text: 'x' })).rejects.toMatchObject({
        retryAfter: 30,
      });
    fake.faults.clear();
    expect((await client.chat.postMessage({ channel: 'C0FAULTS', text: 'x' })).ok).toBe(true);
  });

  it('holds a hanging method without an answer, so only a client timeout ends the call', async () => {
    fake.faults.inject({ kind: 'hang', method: 'chat.postMessage', times: 1 });
    const timed = new webApi.WebClient(BOT_TOKEN, {
      slackApiUrl: fake.apiUrl,
      retryConfig: { retries: 0 },
      timeout: 100,
      logger: capturingLogger([]),
    });
    await expect(timed.chat.postMessage({ channel: 'C0FAULTS', text: 'lost' })).rejects.toMatchObject({
      code: webApi.ErrorCode.RequestError,
    });
    expect(fake.callsTo('chat.postMessage')).toEqual([]);
    expect((await timed.chat.postMessage({ channel: 'C0FAULTS', text: 'next' })).ok).toBe(true);
  });
});
