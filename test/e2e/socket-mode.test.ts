import { describe, expect, it } from 'vitest';
import { statusLine } from '../support/ports.ts';
import { Stack, stackForFile } from './harness.ts';

const read = Stack.read;
const channel = 'C0GENERAL';
let stack: Stack;
// Each reset restarts the bot, which opens a new connection: the next test runs over that one.
stackForFile({ mode: 'socket', env: { ATTACK_CHANNELS: channel } }, (started) => (stack = started));

let n = 0;
const nextPerson = () => `U0SOCKET${++n}`;
const users = () => stack.sim.seed.users;

describe('the bot in Socket Mode', () => {
  it('connects with its app token and takes every delivery over the socket', async () => {
    // The fake Slack has no request URL for the bot: a delivery that did not go over the socket would fail.
    expect(stack.config.slack.socketMode).toBe(true);
    expect(stack.fake.socketConnections()).toBe(1);
    expect(stack.fake.callsTo('apps.connections.open').at(-1)).toMatchObject({ ok: true });
  });

  it('logs a person in through the modal and answers whoami', async () => {
    const id = nextPerson();
    const person = await stack.login(id, users().solo);
    expect(read(person.modal())).toContain('Logged in as solo@acme.test at Acme Demo');
    const reply = await stack.ask(id, 'whoami');
    expect(read(reply)).toContain('Logged in as solo@acme.test at Acme Demo');
    expect(read(reply)).toMatch(/Current team\s+Platform/);
  });

  it('starts an attack with --yes and posts its live card in the channel', async () => {
    const id = nextPerson();
    await stack.login(id, users().solo);
    const reply = await stack.ask(id, 'attack cpu -l 30 --yes', { channel });
    expect(read(reply)).toContain('Started cpu attack');
    const attack = await stack.fake.waitFor(
      () => [...stack.sim.state.attacks.values()].at(-1),
      'the attack in the simulator',
    );
    expect(attack.args).toEqual(['-l', '30']);
    const card = await stack.fake.waitFor(
      () =>
        stack.fake
          .channel(channel)
          .messages()
          .find((message) => message.text().includes(attack.guid)),
      'the attack card',
    );
    expect(read(card)).toContain(`Started by <@${id}>`);
    expect(card.buttons().map((button) => button.text)).toContain('Halt');
  });

  // In Socket Mode app.start() resolves with the apps.connections.open answer: the port reported is
  // the one Bolt's server for the HTTP routes is bound to.
  it('answers /healthz on the HTTP port it reports', async () => {
    expect(stack.bot.port).toBeGreaterThan(0);
    const response = await fetch(`http://127.0.0.1:${stack.bot.port}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('ok\n');
  });

  it("serves readiness through Bolt's receiver on PORT, and answers other paths and unreadable request lines", async () => {
    const base = `http://127.0.0.1:${stack.bot.port}`;
    expect(await (await fetch(`${base}/readyz`)).text()).toBe('ready\n');
    // /metrics has no authentication: not on PORT unless METRICS_PUBLIC=true.
    expect((await fetch(`${base}/metrics`)).status).toBe(404);
    expect((await fetch(`${base}/nowhere`)).status).toBe(404);
    expect(await statusLine(stack.bot.port, 'GET //[ HTTP/1.1')).toMatch(/^HTTP\/1\.1 400 /);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
  });
});
