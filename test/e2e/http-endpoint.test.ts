import { describe, expect, it } from 'vitest';
import { publicUrl } from '../login/support.ts';
import { statusLine } from '../support/ports.ts';
import { Stack, stackForFile } from './harness.ts';

let stack: Stack;
stackForFile({ env: { PUBLIC_URL: publicUrl } }, (started) => (stack = started));

const botUrl = () => `http://127.0.0.1:${stack.bot.port}`;

/** Takes the log lines a test expects out of the stack's logs, so the check after each test sees the rest. */
function takeLogs(matching: (msg: string) => boolean): string[] {
  const taken = stack.logs.filter((line) => matching(String(line.msg)));
  stack.logs.splice(0, stack.logs.length, ...stack.logs.filter((line) => !taken.includes(line)));
  return taken.map((line) => String(line.msg));
}

describe("Slack's endpoint and the other paths, on Bolt's receiver in HTTP mode", () => {
  it('answers Slack and serves the probes, metrics and the login page on the same port', async () => {
    await stack.login('U0HTTP', stack.sim.seed.users.solo);
    expect(Stack.read(await stack.ask('U0HTTP', 'whoami'))).toContain('Logged in as solo@acme.test');
    expect(await (await fetch(`${botUrl()}/healthz`)).text()).toBe('ok\n');
    expect(await (await fetch(`${botUrl()}/readyz`)).text()).toBe('ready\n');
    expect(await (await fetch(`${botUrl()}/metrics`)).text()).toContain('faultline_slack_interactions_total');
    expect((await fetch(`${botUrl()}/login/not-a-link`)).status).toBe(410);
    expect((await fetch(`${botUrl()}/nowhere`)).status).toBe(404);
  });

  it('refuses a body larger than Slack ever sends', async () => {
    const answer = await fetch(`${botUrl()}/slack/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `text=${'x'.repeat(5 * 1024 * 1024)}`,
    });
    expect(answer.status).toBe(413);
    expect(takeLogs((msg) => msg.startsWith('Request body exceeded the maximum allowed size'))).toHaveLength(1);
  });

  it('answers a request line no URL parser reads, and keeps serving', async () => {
    // Bolt's receiver answers it with its own error, and logs it.
    expect(await statusLine(stack.bot.port, 'GET //[ HTTP/1.1')).toMatch(/^HTTP\/1\.1 500 /);
    expect((await fetch(`${botUrl()}/healthz`)).status).toBe(200);
    expect(takeLogs((msg) => msg.startsWith('An unexpected error occurred during a request'))).toHaveLength(1);
  });
});
