import { afterEach, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from '../src/index.ts';

/** A later run of the fake Slack beginning with an earlier run's conversations, as the demo restarts. */

const botToken = 'xoxb-history-test';
const started: FakeSlack[] = [];

async function start(history?: ReturnType<FakeSlack['history']>): Promise<FakeSlack> {
  const fake = await startFakeSlack({ signingSecret: 'secret', botToken, ...(history ? { history } : {}) });
  started.push(fake);
  return fake;
}

async function call(fake: FakeSlack, method: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const response = await fetch(`${fake.apiUrl}${method}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${botToken}`, 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify(body),
  });
  return (await response.json()) as Record<string, unknown>;
}

afterEach(async () => {
  for (const fake of started.splice(0)) await fake.stop();
});

describe('history', () => {
  it('carries messages, threads and ephemerals into a later run, which updates them and posts after them', async () => {
    const first = await start();
    const posted = await call(first, 'chat.postMessage', { channel: 'C0GENERAL', text: 'the card' });
    const ts = String(posted['ts']);
    await call(first, 'chat.postMessage', { channel: 'C0GENERAL', thread_ts: ts, text: 'a reply' });
    await call(first, 'chat.postEphemeral', { channel: 'C0GENERAL', user: 'U0ALICE', text: 'only for alice' });
    first.join('U0ALICE', 'C0GENERAL');
    // Plain data: what the demo writes to a file and reads back.
    const history = JSON.parse(JSON.stringify(first.history())) as ReturnType<FakeSlack['history']>;
    await first.stop();

    const second = await start(history);
    expect(
      second
        .channel('C0GENERAL')
        .messages()
        .map((message) => message.text()),
    ).toEqual(['the card']);
    expect(
      second
        .channel('C0GENERAL')
        .thread(ts)
        .map((message) => message.text()),
    ).toEqual(['a reply']);
    expect(
      second
        .user('U0ALICE')
        .ephemerals('C0GENERAL')
        .map((message) => message.text()),
    ).toEqual(['only for alice']);
    expect(await call(second, 'chat.update', { channel: 'C0GENERAL', ts, text: 'the card, updated' })).toMatchObject({
      ok: true,
    });
    const next = await call(second, 'chat.postMessage', { channel: 'C0GENERAL', text: 'after' });
    expect(Number(next['ts'])).toBeGreaterThan(Number(ts));
    expect(
      second
        .channel('C0GENERAL')
        .messages()
        .map((message) => message.text()),
    ).toEqual(['the card, updated', 'after']);
    expect(second.failures()).toEqual([]);
  });
});
