/**
 * The card update queue against the fake Slack: which update goes out first while Slack's limit
 * holds the rest back. Order only, never how long anything took.
 */
import { Writable } from 'node:stream';
import { WebClient } from '@slack/web-api';
import { startFakeSlack, type FakeSlack } from '@faultline/fake-slack';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { Messenger } from '../../src/slack/messenger.ts';

const channel = 'C0GENERAL';
let fake: FakeSlack;
let messenger: Messenger;

beforeEach(async () => {
  fake = await startFakeSlack({ signingSecret: 'unit-secret', botToken: 'xoxb-unit' });
  const options = { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } };
  messenger = new Messenger(
    {
      calls: new WebClient('xoxb-unit', options),
      cardUpdates: new WebClient('xoxb-unit', { ...options, rejectRateLimitedCalls: true }),
    },
    createLogger('info', new Writable({ write: (_chunk, _encoding, done) => done() })),
    // One update at a time, the next a minute later: everything queued behind the first waits.
    { updatesPerMinute: 1, updateBurst: 1 },
  );
});

afterEach(async () => {
  await messenger.flush({ withinMs: 0 });
  await fake.stop();
});

/** Cards posted in the channel, by name. */
async function cards(...names: string[]): Promise<Record<string, string>> {
  const posted: Record<string, string> = {};
  for (const name of names) posted[name] = (await messenger.post(channel, { text: `${name}: starting` })).ts;
  return posted;
}

describe('card updates under the rate limit', () => {
  it('sends halts and finished attacks before stage changes, each card once with its newest content', async () => {
    const ts = await cards('a', 'b', 'c', 'd', 'e', 'f');
    messenger.update(channel, ts['a']!, { text: 'a: stage 2' });
    messenger.update(channel, ts['b']!, { text: 'b: stage 2' });
    messenger.update(channel, ts['c']!, { text: 'c: stage 2' });
    messenger.update(channel, ts['d']!, { text: 'd: finished' }, 'urgent');
    messenger.update(channel, ts['e']!, { text: 'e: stage 2' });
    // c is halted while its stage change waits: it moves up, with the newer content.
    messenger.update(channel, ts['c']!, { text: 'c: halt requested' }, 'urgent');
    // b moves on again: still routine, still in its place.
    messenger.update(channel, ts['b']!, { text: 'b: stage 3' });
    // d's stage text arrives after its finish was queued: it stays urgent.
    messenger.update(channel, ts['d']!, { text: 'd: finished, 3 clients' });
    messenger.update(channel, ts['f']!, { text: 'f: finished' }, 'urgent');

    // a went out at once, before the others were queued; the rest wait for the pacing.
    await fake.waitFor(() => fake.callsTo('chat.update').length === 1, 'the first update');
    expect(messenger.queued).toBe(5);
    const unsent = await messenger.flush({ withinMs: 0 });
    // a's own update may still be on its way back from Slack, and is then counted as unsent too.
    const names = unsent
      .map((ref) => Object.entries(ts).find(([, value]) => value === ref.ts)![0])
      .filter((name) => name !== 'a');
    expect(names).toEqual(['d', 'c', 'f', 'b', 'e']);
  });

  it('words a queued update only when it is sent, so content replaced while queued is never worded', async () => {
    const ts = await cards('a', 'b');
    const worded: string[] = [];
    const wording = (text: string) => () => {
      worded.push(text);
      return { text };
    };
    messenger.update(channel, ts['a']!, wording('a: stage 2'));
    messenger.update(channel, ts['b']!, wording('b: stage 2'));
    messenger.update(channel, ts['b']!, wording('b: stage 3'));

    await fake.waitFor(() => fake.callsTo('chat.update').length === 1, 'the first update');
    expect(worded).toEqual(['a: stage 2']);
    await messenger.flush({ withinMs: 0 });
    expect(worded).not.toContain('b: stage 2');
  });

  it('sends the queue in that order once Slack lets it', async () => {
    messenger = new Messenger(
      {
        calls: new WebClient('xoxb-unit', { slackApiUrl: fake.apiUrl }),
        cardUpdates: new WebClient('xoxb-unit', { slackApiUrl: fake.apiUrl, rejectRateLimitedCalls: true }),
      },
      createLogger('info', new Writable({ write: (_chunk, _encoding, done) => done() })),
      { updatesPerMinute: 60_000, updateBurst: 1 },
    );
    const ts = await cards('a', 'b', 'c', 'd');
    messenger.update(channel, ts['a']!, { text: 'a: stage 2' });
    messenger.update(channel, ts['b']!, { text: 'b: stage 2' });
    messenger.update(channel, ts['c']!, { text: 'c: finished' }, 'urgent');
    messenger.update(channel, ts['d']!, { text: 'd: stage 2' });
    messenger.update(channel, ts['b']!, { text: 'b: halt requested' }, 'urgent');
    await messenger.flush();
    expect(fake.callsTo('chat.update').map((call) => call.args['text'])).toEqual([
      'a: stage 2',
      'c: finished',
      'b: halt requested',
      'd: stage 2',
    ]);
  });
});
