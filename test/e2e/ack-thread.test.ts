import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slackSignature } from '@faultline/fake-slack';
import { addressFailureLimit } from '../../src/login/limits.ts';
import { statusLine } from '../support/ports.ts';
import { Stack, stackForFile } from './harness.ts';
import { publicUrl } from '../login/support.ts';

let stack: Stack;
stackForFile({ env: { PUBLIC_URL: publicUrl } }, (started) => (stack = started));

const botUrl = () => `http://127.0.0.1:${stack.bot.port}`;

/**
 * A signed Slack delivery sent from a thread of its own when told to, so that it goes out while
 * this thread, where the bot's listeners run, is held. `sent()` blocks this thread until Slack's
 * answer is in, or 5 s: 'ok' with the HTTP status, or 'timed-out'.
 */
async function deliveryFromAnotherThread(rawBody: string, contentType: string) {
  const signal = new Int32Array(new SharedArrayBuffer(8));
  const timestamp = Math.floor(Date.now() / 1000);
  const headers = {
    'content-type': contentType,
    'x-slack-request-timestamp': String(timestamp),
    'x-slack-signature': slackSignature(Stack.signingSecret, timestamp, rawBody),
  };
  const sender = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
    parentPort.once('message', async () => {
      const response = await fetch(workerData.url, { method: 'POST', headers: workerData.headers, body: workerData.rawBody });
      await response.arrayBuffer();
      Atomics.store(workerData.signal, 1, response.status);
      Atomics.store(workerData.signal, 0, 1);
      Atomics.notify(workerData.signal, 0);
    });
    parentPort.postMessage('ready');`,
    { eval: true, workerData: { url: `${botUrl()}/slack/events`, headers, rawBody, signal } },
  );
  await new Promise((resolve) => sender.once('message', resolve));
  return {
    send: () => sender.postMessage('go'),
    /** Holds this thread (and so the bot's listeners) until the answer is in. */
    answered: () => ({ wait: Atomics.wait(signal, 0, 0, 5_000), status: Atomics.load(signal, 1) }),
    close: () => sender.terminate(),
  };
}

function homeOpened(userId: string): string {
  return JSON.stringify({
    type: 'event_callback',
    team_id: stack.fake.teamId,
    api_app_id: 'A0FAULTLN',
    event_id: `Ev${Date.now()}`,
    event_time: Math.floor(Date.now() / 1000),
    event: {
      type: 'app_home_opened',
      user: userId,
      channel: `D${userId}`,
      tab: 'home',
      event_ts: `${Date.now() / 1000}`,
    },
  });
}

describe("Slack's endpoint on the ack thread", () => {
  it('answers Slack while the listeners are busy with another request, then does the work it answered for', async () => {
    const busy = 'U0BUSY';
    const other = 'U0OTHER';
    await stack.login(busy, stack.sim.seed.users.solo);
    const sender = await deliveryFromAnotherThread(homeOpened(other), 'application/json');
    const homesBefore = stack.homePublishes(other);
    let held: { wait: string; status: number } | undefined;
    // The first session read of `whoami` holds the bot's thread until the other delivery is answered.
    const lookup = stack.deps.sessions.lookup.bind(stack.deps.sessions);
    stack.deps.sessions.lookup = async (person) => {
      if (!held) {
        sender.send();
        held = sender.answered();
      }
      return lookup(person);
    };
    try {
      const reply = await stack.ask(busy, 'whoami');
      expect(Stack.read(reply)).toContain('Logged in as solo@acme.test');
    } finally {
      stack.deps.sessions.lookup = lookup;
      await sender.close();
    }
    expect(held).toEqual({ wait: 'ok', status: 200 });
    // Answered first, the delivery was still done in full.
    await stack.fake.waitFor(() => stack.homePublishes(other) > homesBefore, 'the Home tab of the other person');
  });

  it('refuses a body larger than Slack ever sends', async () => {
    const answer = await fetch(`${botUrl()}/slack/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `text=${'x'.repeat(5 * 1024 * 1024)}`,
    });
    expect(answer.status).toBe(413);
    expect(stack.logs.filter((line) => line.msg === 'A Slack request body was larger than allowed')).toHaveLength(1);
  });

  it('passes other paths to the main thread with the address the request came from, which a client cannot set', async () => {
    expect(await (await fetch(`${botUrl()}/healthz`)).text()).toBe('ok\n');
    expect((await fetch(`${botUrl()}/readyz`)).status).toBe(200);
    expect((await fetch(`${botUrl()}/nowhere`)).status).toBe(404);
    // Each unusable link counts against the client's address, whatever the request says it is.
    for (let i = 0; i < addressFailureLimit; i++) {
      const answer = await fetch(`${botUrl()}/login/not-a-link-${i}`, {
        headers: { 'x-faultline-peer': `203.0.113.${i + 1}` },
      });
      expect(answer.status).toBe(410);
    }
    const refused = await fetch(`${botUrl()}/login/not-a-link`, { headers: { 'x-faultline-peer': '198.51.100.7' } });
    expect(refused.status).toBe(429);
    expect(await refused.text()).toContain('Too many failed logins from your network');
    // The address is the real one: from loopback, a proxy on the private network, the client it
    // names is another address, with limits of its own.
    const proxied = await fetch(`${botUrl()}/login/not-a-link`, { headers: { 'x-forwarded-for': '198.51.100.9' } });
    expect(proxied.status).toBe(410);
  });

  it('answers a request line no URL parser reads with 400, and keeps serving', async () => {
    expect(await statusLine(stack.bot.port, 'GET //[ HTTP/1.1')).toMatch(/^HTTP\/1\.1 400 /);
    expect((await fetch(`${botUrl()}/healthz`)).status).toBe(200);
    expect(stack.logs.filter((line) => String(line.msg).includes('ack thread'))).toEqual([]);
  });

  it("leaves a slash command that is not the app's own unanswered, as Bolt does", async () => {
    const other = await stack.fake.post(
      new URLSearchParams({
        command: '/other',
        text: 'list',
        user_id: 'U0OTHERAPP',
        user_name: 'other',
        team_id: stack.fake.teamId,
        channel_id: 'C0GENERAL',
        response_url: `${stack.fake.apiUrl}nowhere`,
        trigger_id: '1.2.3',
      }).toString(),
      { contentType: 'application/x-www-form-urlencoded' },
    );
    expect(other.status).toBe(404);
    expect(stack.logs.filter((line) => String(line.msg).includes('was not answered within'))).toHaveLength(1);
  });
});

describe('with ACK_THREAD=off', () => {
  let inline: Stack;
  beforeAll(async () => {
    inline = await Stack.start({ env: { PUBLIC_URL: publicUrl, ACK_THREAD: 'off' } });
  });
  afterAll(async () => {
    await inline?.stop();
  });

  it("answers Slack and serves the other paths from the main thread, as Bolt's own receiver", async () => {
    await inline.login('U0INLINE', inline.sim.seed.users.solo);
    expect(Stack.read(await inline.ask('U0INLINE', 'whoami'))).toContain('Logged in as solo@acme.test');
    const base = `http://127.0.0.1:${inline.bot.port}`;
    expect(await (await fetch(`${base}/healthz`)).text()).toBe('ok\n');
    expect((await fetch(`${base}/login/not-a-link`)).status).toBe(410);
    // Bolt's receiver answers a request line it cannot read with its own error, and runs on.
    expect(await statusLine(inline.bot.port, 'GET //[ HTTP/1.1')).toMatch(/^HTTP\/1\.1 500 /);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
  });
});
