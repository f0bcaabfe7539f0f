import { once } from 'node:events';
import { createServer } from 'node:net';
import { Writable } from 'node:stream';
import type { App } from '@slack/bolt';
import { slackSignature } from '@faultline/fake-slack';
import { describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { AckThreadReceiver } from '../../src/slack/ackThreadReceiver.ts';

const signingSecret = 'ack-thread-secret';

/** A receiver on the thread that fails on request, with what its app was given and what it logged. */
function failingReceiver() {
  const logs: { level: string; msg: string }[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean))
        logs.push(JSON.parse(line) as { level: string; msg: string });
      done();
    },
  });
  const texts: string[] = [];
  const outcome = { gaveUp: false };
  const receiver = new AckThreadReceiver(
    {
      endpoint: '/slack/events',
      command: '/chaos',
      signingSecret,
      // No other path is asked for here.
      routesPort: 9,
      peerToken: 'token',
      unansweredMs: 3_001,
      onGiveUp: () => (outcome.gaveUp = true),
      threadUrl: new URL('../support/failingAckThread.ts', import.meta.url),
    },
    createLogger('debug', destination),
  );
  // Bolt's App, as far as a receiver sees it.
  receiver.init({
    processEvent: async (event: { body: { text: string } }) => void texts.push(event.body.text),
  } as unknown as App);
  return { receiver, logs, texts, outcome };
}

async function command(port: number, text: string): Promise<number> {
  const body = new URLSearchParams({
    command: '/chaos',
    text,
    user_id: 'U0THREAD',
    team_id: 'T0THREAD',
    response_url: 'http://127.0.0.1:9/reply',
  }).toString();
  const timestamp = Math.floor(Date.now() / 1000);
  const response = await fetch(`http://127.0.0.1:${port}/slack/events`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': String(timestamp),
      'x-slack-signature': slackSignature(signingSecret, timestamp, body),
    },
    body,
  });
  return response.status;
}

/** Makes the thread end, as an uncaught failure in it would; its connection goes with it. */
async function failThread(port: number): Promise<void> {
  await fetch(`http://127.0.0.1:${port}/fail`).then(
    () => expect.unreachable('the thread answered instead of ending'),
    () => undefined,
  );
}

describe('the ack thread ending', () => {
  it("is started again on the same port, and Slack's requests are taken again", async () => {
    const { receiver, logs, texts, outcome } = failingReceiver();
    const { port } = await receiver.start(0);
    try {
      expect(await command(port, 'before')).toBe(200);
      await vi.waitUntil(() => texts.includes('before'));
      await failThread(port);
      await vi.waitUntil(() => logs.some((line) => line.msg === 'the ack thread is running again'), { timeout: 5_000 });
      expect(receiver.port).toBe(port);
      expect(await command(port, 'after')).toBe(200);
      await vi.waitUntil(() => texts.includes('after'));
      expect(logs.filter((line) => line.msg === 'the ack thread stopped; starting it again')).toHaveLength(1);
      expect(outcome.gaveUp).toBe(false);
    } finally {
      await receiver.stop();
    }
  });

  it('is given up on, and says so, when its port was taken before it could listen again', async () => {
    const { receiver, logs, outcome } = failingReceiver();
    const { port } = await receiver.start(0);
    const squatter = createServer();
    try {
      await failThread(port);
      // The thread's server went with it: the port is free until the new thread listens.
      squatter.listen(port);
      await once(squatter, 'listening');
      await vi.waitUntil(() => outcome.gaveUp, { timeout: 5_000 });
      expect(logs.filter((line) => line.level === 'fatal').map((line) => line.msg)).toEqual([
        'could not start the ack thread again: Slack requests go unanswered until Faultline is restarted',
      ]);
    } finally {
      squatter.close();
      // Nothing is left to close: the stop does not wait for a thread that is gone.
      await receiver.stop();
    }
  });
});
