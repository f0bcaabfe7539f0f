import { describe, expect, it, vi } from 'vitest';
import { arrivals } from '../../src/http.ts';
import { publicUrl } from '../login/support.ts';
import { statusLine } from '../support/ports.ts';
import { slackBodyLimit, unverifiedLimits } from '../../src/slack/receiver.ts';
import { answerBeforeBody, closedAtLeast, type SlowBody, slowBody } from '../support/slowBodies.ts';
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
    // /metrics has no authentication: not on the port Slack reaches unless METRICS_PUBLIC=true.
    expect((await fetch(`${botUrl()}/metrics`)).status).toBe(404);
    expect((await fetch(`${botUrl()}/login/not-a-link`)).status).toBe(410);
    expect((await fetch(`${botUrl()}/nowhere`)).status).toBe(404);
    // Slackbot's endpoint is off unless MCP_ENABLED=true.
    expect((await fetch(`${botUrl()}/mcp`, { method: 'POST', body: '{}' })).status).toBe(404);
  });

  it('counts as a delivery only a request whose Slack signature verified, never probes, pages or unsigned requests', async () => {
    await stack.login('U0HTTPARRIVAL', stack.sim.seed.users.solo);
    const arrived = vi.spyOn(arrivals, 'arrived');
    try {
      for (let i = 0; i < 10; i++) expect((await fetch(`${botUrl()}/healthz`)).status).toBe(200);
      expect((await fetch(`${botUrl()}/readyz`)).status).toBe(200);
      expect((await fetch(`${botUrl()}/login/not-a-link`)).status).toBe(410);
      expect(await answerBeforeBody(stack.bot.port, {})).toMatch(/^HTTP\/1\.1 401 /);
      // Headers of the right shape, a signature that does not match the body: Bolt reads it and refuses it.
      const forged = await fetch(`${botUrl()}/slack/events`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'x-slack-request-timestamp': String(Math.floor(Date.now() / 1000)),
          'x-slack-signature': `v0=${'0'.repeat(64)}`,
        },
        body: 'command=%2Fchaos&text=help',
      });
      expect(forged.status).toBe(401);
      expect(takeLogs((msg) => msg.startsWith('Failed to parse and verify the request data'))).toHaveLength(1);
      expect(arrived).not.toHaveBeenCalled();

      expect(Stack.read(await stack.ask('U0HTTPARRIVAL', 'whoami'))).toContain('Logged in as solo@acme.test');
      expect(arrived).toHaveBeenCalledTimes(1);
    } finally {
      arrived.mockRestore();
    }
  });

  it('refuses a body larger than Slack ever sends', async () => {
    const answer = await fetch(`${botUrl()}/slack/events`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-slack-request-timestamp': String(Math.floor(Date.now() / 1000)),
        'x-slack-signature': `v0=${'0'.repeat(64)}`,
      },
      body: `text=${'x'.repeat(5 * 1024 * 1024)}`,
    });
    expect(answer.status).toBe(413);
    expect(takeLogs((msg) => msg.startsWith('Request body exceeded the maximum allowed size'))).toHaveLength(1);
  });

  it("refuses, before its body comes, a request without Slack's signature headers or with a stale timestamp", async () => {
    const now = Math.floor(Date.now() / 1000);
    const signature = `v0=${'0'.repeat(64)}`;
    expect(await answerBeforeBody(stack.bot.port, {})).toMatch(/^HTTP\/1\.1 401 /);
    expect(await answerBeforeBody(stack.bot.port, { 'x-slack-request-timestamp': String(now) })).toMatch(
      /^HTTP\/1\.1 401 /,
    );
    expect(
      await answerBeforeBody(stack.bot.port, {
        'x-slack-signature': signature,
        'x-slack-request-timestamp': String(now - 6 * 60),
      }),
    ).toMatch(/^HTTP\/1\.1 401 /);
    // Slack's own requests still come through.
    await stack.login('U0HTTPSIGNED', stack.sim.seed.users.solo);
    expect(Stack.read(await stack.ask('U0HTTPSIGNED', 'whoami'))).toContain('Logged in as solo@acme.test');
  });

  it('answers a Halt click while one client holds the budget for unchecked bodies with many small ones', async () => {
    const budget = unverifiedLimits.budget;
    unverifiedLimits.budget = 128 * 1024;
    const held: SlowBody[] = [];
    try {
      const id = 'U0HTTPHALT';
      await stack.login(id, stack.sim.seed.users.owner, { team: 'Platform' });
      await stack.ask(id, 'attack cpu -l 30 --yes', { channel: 'C0GENERAL' });
      const attack = [...stack.sim.state.attacks.values()].at(-1)!;
      const card = await stack.fake.waitFor(
        () =>
          stack
            .person(id)
            .channel('C0GENERAL')
            .messages()
            .find((m) => m.text().includes(attack.guid)),
        'the attack card',
      );
      // 80 bodies of 2 KiB from one address, each sent but for its last byte: more than the budget,
      // and each smaller than the click's.
      held.push(...(await Promise.all(Array.from({ length: 80 }, () => slowBody(stack.bot.port, 2048)))));
      await closedAtLeast(held, 80 - 64);

      expect((await card.click('Halt')).status).toBe(200);
      await stack.replySaying(id, 'C0GENERAL', 'Halt requested');
      expect(stack.sim.state.attacks.get(attack.guid)!.timeline.haltedAt).toBeDefined();
      // One client holds a quarter of the budget at most: 16 of its bodies.
      await closedAtLeast(held, 80 - 16);
    } finally {
      unverifiedLimits.budget = budget;
      for (const body of held) body.close();
    }
  });

  it('counts the bytes a body has sent, not those it declares, and one client cannot drop the bodies of others', async () => {
    const budget = unverifiedLimits.budget;
    unverifiedLimits.budget = 128 * 1024;
    const bodies: SlowBody[] = [];
    const open = (count: number, declared: number, options: { from: string; sends?: number }) =>
      Promise.all(Array.from({ length: count }, () => slowBody(stack.bot.port, declared, options)));
    try {
      // 20 KiB from one client; 10 KiB sent of 40 MiB declared from another.
      const others = await open(10, 2048, { from: '127.0.0.3' });
      const large = await open(10, slackBodyLimit, { from: '127.0.0.4', sends: 1024 });
      // Then 160 KiB from a third, more than the whole budget.
      const flood = await open(80, 2048, { from: '127.0.0.2' });
      bodies.push(...others, ...large, ...flood);
      await closedAtLeast(flood, 80 - 16);

      await stack.login('U0HTTPSHARE', stack.sim.seed.users.solo);
      expect(Stack.read(await stack.ask('U0HTTPSHARE', 'whoami'))).toContain('Logged in as solo@acme.test');
      expect([...others, ...large].filter((body) => body.gone).length).toBe(0);
    } finally {
      unverifiedLimits.budget = budget;
      for (const body of bodies) body.close();
    }
  });

  it('answers a request line no URL parser reads, and keeps serving', async () => {
    // Bolt's receiver answers it with its own error, and logs it.
    expect(await statusLine(stack.bot.port, 'GET //[ HTTP/1.1')).toMatch(/^HTTP\/1\.1 500 /);
    expect((await fetch(`${botUrl()}/healthz`)).status).toBe(200);
    expect(takeLogs((msg) => msg.startsWith('An unexpected error occurred during a request'))).toHaveLength(1);
  });
});
