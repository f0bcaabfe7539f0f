import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { startFakeSlack, type FakeSlack } from '@faultline/fake-slack';
import { startSimulator, type Simulator } from '@faultline/platform-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, statusLine } from '../support/ports.ts';
import { residentMiB, slowBody } from '../support/slowBodies.ts';
import { slackBodyLimit } from '../../src/slack/receiver.ts';

const main = new URL('../../src/main.ts', import.meta.url).pathname;
let sim: Simulator;
let fake: FakeSlack;
let dir: string;

beforeAll(async () => {
  sim = await startSimulator();
  fake = await startFakeSlack({ signingSecret: 'process-secret', botToken: 'xoxb-process-token' });
  dir = mkdtempSync(join(tmpdir(), 'faultline-process-'));
  writeFileSync(join(dir, 'sim-ca.pem'), sim.ca);
});
afterAll(async () => {
  await fake?.stop();
  await sim?.stop();
});

interface Running {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function run(env: Record<string, string>): Running {
  let output = '';
  const child = spawn(process.execPath, [main], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk) => (output += String(chunk)));
  child.stderr!.on('data', (chunk) => (output += String(chunk)));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

function botEnv(port: number): Record<string, string> {
  return {
    SLACK_BOT_TOKEN: 'xoxb-process-token',
    SLACK_SIGNING_SECRET: 'process-secret',
    SLACK_API_URL: fake.apiUrl,
    PLATFORM_API_URL: sim.url,
    NODE_EXTRA_CA_CERTS: join(dir, 'sim-ca.pem'),
    SESSION_KEY: randomBytes(32).toString('base64'),
    STORE_URL: `sqlite://${join(dir, `${port}.db`)}`,
    PORT: String(port),
    LOG_LEVEL: 'info',
  };
}

async function until<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`gave up waiting for ${what}`);
}

/** Waits until the bot on `port` answers, and points the fake Slack at it; gives its base URL. */
async function listening(port: number): Promise<string> {
  const base = `http://127.0.0.1:${port}`;
  await until(async () => ((await fetch(`${base}/healthz`)).status === 200 ? true : undefined), 'the bot to listen');
  fake.setBotUrl(`${base}/slack/events`);
  return base;
}

describe('the bot process', () => {
  it('serves health, readiness and metrics, and exits 0 on SIGTERM after finishing its work', async () => {
    const port = await freePort();
    const bot = run({ ...botEnv(port), METRICS_PUBLIC: 'true' });
    try {
      const base = `http://127.0.0.1:${port}`;
      const health = await until(async () => (await fetch(`${base}/healthz`)).status, 'the bot to listen');
      expect(health).toBe(200);
      expect((await fetch(`${base}/readyz`)).status).toBe(200);
      fake.setBotUrl(`${base}/slack/events`);

      // A command whose work is still running when SIGTERM arrives must still be answered.
      sim.faults.inject({ kind: 'latency', ms: 500, path: '/users/auth/password/reset' });
      const person = fake.user('U0PROCESS', { email: 'solo@acme.test' });
      await person.command('help');
      await fake.waitFor(() => person.lastEphemeral(), 'the help reply');
      // The interaction is counted once its work is done, just after the reply went out.
      const metrics = await until(async () => {
        const text = await (await fetch(`${base}/metrics`)).text();
        return /faultline_slack_interactions_total\{kind="command",outcome="ok"\} 1/.test(text) ? text : undefined;
      }, 'the command to be counted');
      expect(metrics).toContain('faultline_process_resident_memory_bytes');

      await person.command('login');
      const modal = await fake.waitFor(() => person.modal(), 'the login modal');
      await modal.click('Forgot password');
      const reset = await fake.waitFor(
        () => person.modal()?.title === 'Reset password' && person.modal(),
        'the reset form',
      );
      const submitted = reset.fill('Email', 'solo@acme.test').submit();
      await until(
        async () => (sim.requests.some((r) => r.path === '/users/auth/password/reset') ? true : undefined),
        'the reset call to start',
      );
      bot.child.kill('SIGTERM');
      await submitted;
      expect(await bot.exited).toBe(0);
      expect(person.modal()?.text()).toContain('a reset e-mail is on its way');
      expect(bot.output()).toContain('stopped');
    } finally {
      bot.child.kill('SIGKILL');
    }
  });

  it('answers every command, click and submission that arrives while it stops, then exits 0', async () => {
    const port = await freePort();
    const bot = run(botEnv(port));
    try {
      const base = await listening(port);

      // Work that holds the stop open until the test lets the platform answer.
      sim.faults.inject({ kind: 'latency', ms: 120_000, path: '/users/auth/password/reset' });
      const busy = fake.user('U0BUSY', { email: 'solo@acme.test' });
      await busy.command('login');
      const loginForm = await fake.waitFor(() => busy.modal(), 'the login modal');
      await loginForm.click('Forgot password');
      const resetForm = await fake.waitFor(
        () => busy.modal()?.title === 'Reset password' && busy.modal(),
        'the reset form',
      );
      const resetting = resetForm.fill('Email', 'solo@acme.test').submit();
      resetting.catch(() => undefined);
      await until(
        async () => (sim.requests.some((r) => r.path === '/users/auth/password/reset') ? true : undefined),
        'the reset call to start',
      );

      // Things people opened before the stop, to act on after it.
      const clicker = fake.user('U0CLICKER');
      await clicker.command('whoami');
      const prompt = await fake.waitFor(() => clicker.lastEphemeral(), 'the log-in prompt');
      const modalClicker = fake.user('U0MODALCLICK');
      await modalClicker.command('login');
      const modalToClick = await fake.waitFor(() => modalClicker.modal(), 'a login modal to click in');
      const submitter = fake.user('U0SUBMITTER');
      await submitter.command('login');
      const modalToSubmit = await fake.waitFor(() => submitter.modal(), 'a login modal to submit');

      const platformCalls = sim.requests.length;
      bot.child.kill('SIGTERM');
      await until(
        async () => (bot.output().includes('stopping: finishing work in flight') ? true : undefined),
        'the bot to start stopping',
      );
      expect((await fetch(`${base}/readyz`)).status).toBe(503);

      const typist = fake.user('U0TYPIST');
      await typist.command('help');
      await prompt.click('Log in');
      await modalToClick.click('Forgot password');
      await modalToSubmit.fill('Email', 'owner@acme.test').fill('Password', 'not-checked').submit();

      const restarting = 'Faultline is restarting, try again in a moment.';
      await fake.waitFor(() => typist.lastEphemeral()?.text() === restarting, 'the command answered');
      await fake.waitFor(() => clicker.lastEphemeral()?.text() === restarting, 'the click on a message answered');
      await fake.waitFor(() => modalClicker.modal()?.text().includes(restarting), 'the click in a modal answered');
      await fake.waitFor(() => submitter.modal()?.text().includes(restarting), 'the submission answered');
      // None of them reached the platform.
      expect(sim.requests.slice(platformCalls)).toEqual([]);

      sim.faults.clear();
      await resetting;
      expect(await bot.exited).toBe(0);
      expect(busy.modal()?.text()).toContain('a reset e-mail is on its way');
      expect(bot.output()).toContain('stopped');
      expect(bot.output()).not.toContain('"level":50');
    } finally {
      bot.child.kill('SIGKILL');
    }
  });

  it('with OPS_PORT serves metrics and probes there, and no metrics on the port Slack reaches', async () => {
    const [port, opsPort] = [await freePort(), await freePort()];
    const bot = run({ ...botEnv(port), OPS_PORT: String(opsPort), METRICS_PUBLIC: 'true' });
    try {
      const ops = `http://127.0.0.1:${opsPort}`;
      expect(await until(async () => (await fetch(`${ops}/healthz`)).status, 'the operations port')).toBe(200);
      expect((await fetch(`${ops}/readyz`)).status).toBe(200);
      const metrics = await fetch(`${ops}/metrics`);
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toContain('faultline_process_resident_memory_bytes');
      expect((await fetch(`${ops}/slack/events`, { method: 'POST' })).status).toBe(404);
      expect((await fetch(`${ops}/nowhere`)).status).toBe(404);

      // Even when METRICS_PUBLIC says so: with an operations port, /metrics is served there only.
      const base = `http://127.0.0.1:${port}`;
      expect((await fetch(`${base}/metrics`)).status).toBe(404);
      expect((await fetch(`${base}/healthz`)).status).toBe(200);

      // A request line no URL parser reads is answered, on either port (on PORT by Bolt's
      // receiver, with its own error), and the bot runs on.
      expect(await statusLine(opsPort, 'GET //[ HTTP/1.1')).toMatch(/^HTTP\/1\.1 400 /);
      expect(await statusLine(port, 'GET //[ HTTP/1.1')).toMatch(/^HTTP\/1\.1 500 /);
      expect((await fetch(`${ops}/healthz`)).status).toBe(200);
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      bot.child.kill('SIGTERM');
      expect(await bot.exited).toBe(0);
    } finally {
      bot.child.kill('SIGKILL');
    }
  });

  it('holds 500 slow unsigned bodies within its memory limit, keeps answering Slack, and lets them go', async () => {
    const port = await freePort();
    const bot = run(botEnv(port));
    try {
      await listening(port);
      // Each declares the largest body Bolt takes (4 MiB), sends all of it but the last byte, and waits.
      const connections = await Promise.all(Array.from({ length: 500 }, () => slowBody(port, slackBodyLimit)));
      // The pod's limit (deploy/kubernetes/deployment.yaml) is 512 MiB.
      expect(await residentMiB(bot.child.pid!)).toBeLessThan(512);

      // A signed request still gets its answer meanwhile.
      const person = fake.user('U0SLOWBODIES');
      await person.command('help');
      expect(await fake.waitFor(() => person.lastEphemeral()?.text(), 'the help reply')).toContain('/chaos');

      // And every held connection is let go within seconds, not after Node's five minutes.
      await Promise.all(connections.map((c) => c.closed));
      bot.child.kill('SIGTERM');
      expect(await bot.exited).toBe(0);
    } finally {
      bot.child.kill('SIGKILL');
    }
  }, 60_000);

  it('refuses to start with bad configuration, one line per variable, no secret shown', async () => {
    const secret = 'xoxp-this-is-not-a-bot-token';
    const bot = run({
      SLACK_BOT_TOKEN: secret,
      PLATFORM_API_URL: 'http://platform.example.com/v1',
      SESSION_KEY: 'short',
    });
    expect(await bot.exited).toBe(2);
    const lines = bot.output().trim().split('\n');
    expect(lines[0]).toBe('Faultline cannot start:');
    expect(lines.slice(1).map((l) => l.trim().split(' ')[1])).toEqual([
      'SLACK_BOT_TOKEN',
      'PLATFORM_API_URL',
      'SESSION_KEY',
      'SLACK_SIGNING_SECRET',
    ]);
    expect(bot.output()).not.toContain(secret);
    expect(bot.output()).not.toContain('short');
  });
});
