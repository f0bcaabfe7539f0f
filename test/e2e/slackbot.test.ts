import { type FakeSlackbot, slackSignature } from '@faultline/fake-slack';
import { afterEach, describe, expect, it } from 'vitest';
import { mcpLimits } from '../../src/slack/mcp.ts';
import { Stack, stackForFile } from './harness.ts';

/**
 * Faultline's tools as Slackbot calls them: the SDK's MCP client over HTTP, each request naming
 * the person and signed like Slack's, against the simulator. The person acts with their own
 * session; a start is only ever their click in Slack.
 */
let stack: Stack;
stackForFile({ env: { MCP_ENABLED: 'true' } }, (started) => (stack = started));

const channel = 'C0GENERAL';
let n = 0;
const nextPerson = () => `U0BOT${++n}`;
const users = () => stack.sim.seed.users;
const mcpUrl = () => `http://127.0.0.1:${stack.bot.port}/mcp`;
const attacksInSim = () => [...stack.sim.state.attacks.values()];
const dmOf = (personId: string) => stack.person(personId).channel(personId).messages();
/** When the platform took a halt of the attack, if it did. */
const haltedAt = (guid: string) => stack.sim.state.attacks.get(guid)!.timeline.haltedAt;
const toolAudits = (personId: string) =>
  stack.logs.filter((line) => line['audit'] === 'slackbot_tool' && line['slackUser'] === personId);

const open: FakeSlackbot[] = [];
async function slackbot(personId: string, signing?: 'valid' | 'bad' | 'missing' | 'stale') {
  stack.person(personId);
  const client = await stack.fake.slackbot(personId, mcpUrl(), signing ? { signing } : {});
  open.push(client);
  return client;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.close()));
  mcpLimits.callsPerMinute = 20;
  mcpLimits.answerWithinMs = 8_000;
});

describe('Slackbot reaching Faultline', () => {
  it('lists every tool with a description and the arguments it takes', async () => {
    const tools = await (await slackbot(nextPerson())).tools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        'freeze',
        'game_day_status',
        'halt_all',
        'halt_attack',
        'list_attacks',
        'preview_attack',
        'request_attack',
        'run_saved_attack',
        'saved_attacks',
        'show_attack',
        'unfreeze',
      ].sort(),
    );
    for (const tool of tools) expect(tool.description?.length).toBeGreaterThan(30);
    const show = tools.find((t) => t.name === 'show_attack')!;
    expect(show.inputSchema.required).toEqual(['id']);
    expect(show.annotations?.readOnlyHint).toBe(true);
    expect(tools.find((t) => t.name === 'halt_attack')!.annotations?.readOnlyHint).toBe(false);
  });

  it('refuses unsigned, forged and stale requests with 401 before reading or doing anything', async () => {
    for (const signing of ['missing', 'bad', 'stale'] as const)
      await expect(slackbot(nextPerson(), signing)).rejects.toMatchObject({ code: 401 });
    const unsigned = await fetch(mcpUrl(), { method: 'POST', body: '{}' });
    expect(unsigned.status).toBe(401);
  });

  it('refuses a body over its bound unread, and acts for nobody when Slack names nobody', async () => {
    const signed = (body: string) => {
      const timestamp = Math.floor(Date.now() / 1000);
      return fetch(mcpUrl(), {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'x-slack-request-timestamp': String(timestamp),
          'x-slack-signature': slackSignature(Stack.signingSecret, timestamp, body),
        },
        body,
      });
    };
    expect((await signed(' '.repeat(mcpLimits.bodyBytes + 1))).status).toBe(413);
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'halt_all', arguments: {} } };
    const nobody = await signed(JSON.stringify(call));
    expect(nobody.status).toBe(200);
    const answer = (await nobody.json()) as { result: { isError: boolean; content: { text: string }[] } };
    expect(answer.result.isError).toBe(true);
    expect(answer.result.content[0]!.text).toContain('Slack did not say who is asking');
    expect(stack.logs.filter((line) => line['audit'] === 'slackbot_tool')).toEqual([]);
  });

  it('refuses a signed request sent again, byte for byte, and does nothing the second time', async () => {
    const id = nextPerson();
    await stack.login(id, users().solo);
    const client = await slackbot(id);
    expect((await client.call('list_attacks')).isError).toBe(false);
    const call = client.sent.findLast((request) => request.body.includes('tools/call'))!;
    const again = await fetch(call.url, { method: 'POST', headers: call.headers, body: call.body });
    expect(again.status).toBe(401);
    expect(toolAudits(id)).toHaveLength(1);
  });

  it('acts for nobody who is not logged in: a Log in button arrives by DM, and nothing else happens', async () => {
    const id = nextPerson();
    const answer = await (await slackbot(id)).call('halt_all', {});
    expect(answer).toEqual({ isError: true, text: expect.stringContaining('not logged in') });
    const dm = await stack.fake.waitFor(() => dmOf(id).at(-1), 'the login DM');
    expect(dm.buttons().map((b) => b.text)).toContain('Log in');
    expect(stack.logs.filter((line) => line['audit'] === 'halt_all' && line['slackUser'] === id)).toEqual([]);
    expect(toolAudits(id).map((line) => line['outcome'])).toEqual(['refused']);
  });
});

describe('the tools, as the person asking', () => {
  it('list, show and halt an attack, with the links to it, audited with who, tool and arguments', async () => {
    const id = nextPerson();
    await stack.login(id, users().solo);
    const { attack } = await stack.startAttack(id, 'attack cpu -l 300 -c 1 --target-tags role=web', channel);
    const client = await slackbot(id);
    const listed = await client.call('list_attacks', { state: 'active' });
    expect(listed.text).toContain(attack.guid.slice(0, 8));
    const shown = await client.call('show_attack', { id: attack.guid.slice(0, 8) });
    expect(shown.isError).toBe(false);
    expect(shown.text).toContain(attack.guid);
    expect(shown.text).toMatch(/The attack's card in Slack \(https:\/\/\S+\)$/);
    const halted = await client.call('halt_attack', { id: attack.guid, reason: 'error rate too high' });
    expect(halted.text).toContain(`Halt requested for attack ${attack.guid}`);
    expect(haltedAt(attack.guid)).toBeDefined();
    expect(toolAudits(id).at(-1)).toMatchObject({
      tool: 'halt_attack',
      arguments: { id: attack.guid, reason: 'error rate too high' },
      outcome: 'done',
    });
  });

  it('refuses a halt by an observer, naming the privilege the platform says is missing', async () => {
    const starter = nextPerson();
    await stack.login(starter, users().solo);
    const { attack } = await stack.startAttack(starter, 'attack cpu -l 300 -c 1', channel);
    const observer = nextPerson();
    await stack.login(observer, users().observer);
    const answer = await (await slackbot(observer)).call('halt_attack', { id: attack.guid });
    expect(answer.isError).toBe(true);
    expect(answer.text).toContain('HALT_WRITE');
    expect(haltedAt(attack.guid)).toBeUndefined();
  });

  it('halts all, freezes and unfreezes a team at once, reason required', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const { attack } = await stack.startAttack(id, 'attack cpu -l 300 -c 1', channel);
    const client = await slackbot(id);
    expect((await client.call('halt_all', { team: 'Platform' })).text).toContain('halted 1 attack');
    expect(haltedAt(attack.guid)).toBeDefined();
    const noReason = await client.call('freeze', { team: 'Payments' });
    expect(noReason.isError).toBe(true);
    expect(await stack.built.services.guardrails.freezes.covering(teamId('Payments'))).toBeUndefined();
    const frozen = await client.call('freeze', { team: 'Payments', reason: 'payment provider outage' });
    expect(frozen.isError).toBe(false);
    expect(await stack.built.services.guardrails.freezes.covering(teamId('Payments'))).toBeDefined();
    const preview = await client.call('preview_attack', { words: 'cpu -l 60 -c 1 --team Payments', channel });
    expect(preview).toMatchObject({ isError: true, text: expect.stringMatching(/frozen/i) });
    await client.call('unfreeze', { team: 'Payments', reason: 'provider back' });
    expect(await stack.built.services.guardrails.freezes.covering(teamId('Payments'))).toBeUndefined();
  });

  it("says how a channel's game day stands, and lists the team's saved attacks", async () => {
    const id = nextPerson();
    await stack.login(id, users().solo);
    await stack.ask(id, 'gameday start Checkout drill', { channel });
    await stack.ask(id, 'save web-cpu cpu -l 60 -c 1 --target-tags role=web', { channel });
    const client = await slackbot(id);
    const status = await client.call('game_day_status', { channel });
    expect(status.text).toContain('Checkout drill');
    expect(status.text).toMatch(/The game day's card in Slack \(https:\/\/\S+\)$/);
    expect((await client.call('saved_attacks', {})).text).toContain('web-cpu');
  });
});

describe('a start is never the model’s decision', () => {
  it('previews without creating anything, and refuses --yes', async () => {
    const id = nextPerson();
    await stack.login(id, users().solo);
    const client = await slackbot(id);
    const before = attacksInSim().length;
    const preview = await client.call('preview_attack', { words: 'cpu -l 60 -c 1 --target-tags role=web', channel });
    expect(preview.isError).toBe(false);
    expect(preview.text).toContain('cpu');
    const yes = await client.call('preview_attack', { words: 'cpu -l 60 -c 1 --yes', channel });
    expect(yes).toMatchObject({ isError: true, text: expect.stringContaining('--yes') });
    expect((await client.call('request_attack', { words: 'cpu -l 60 --yes', channel })).isError).toBe(true);
    expect(attacksInSim()).toHaveLength(before);
  });

  it('request_attack sends the preview to the person; only their Start click starts it', async () => {
    const id = nextPerson();
    await stack.login(id, users().solo);
    const client = await slackbot(id);
    const before = attacksInSim().length;
    const asked = await client.call('request_attack', { words: 'cpu -l 60 -c 1 --target-tags role=web', channel });
    expect(asked.text).toContain('Waiting for you to press Start in Slack');
    const preview = await stack.fake.waitFor(
      () => dmOf(id).find((m) => m.buttons().some((b) => b.text === 'Start')),
      'the preview in the DM',
    );
    expect(attacksInSim()).toHaveLength(before);
    await preview.click('Start');
    await stack.fake.waitFor(() => attacksInSim().length === before + 1, 'the attack');
    const guid = attacksInSim().at(-1)!.guid;
    await stack.fake.waitFor(() => stack.cardIn(channel, guid), 'its card in the channel');
  });

  it('starts nothing after Cancel, or once the preview expired', async () => {
    const id = nextPerson();
    await stack.login(id, users().solo);
    await stack.ask(id, 'save web-cpu cpu -l 60 -c 1 --target-tags role=web', { channel });
    const client = await slackbot(id);
    const before = attacksInSim().length;
    await client.call('request_attack', { words: 'cpu -l 60 -c 1', channel });
    const cancelled = await stack.fake.waitFor(() => dmOf(id).find((m) => m.buttons().length), 'the first preview');
    await cancelled.click('Cancel');
    expect((await client.call('run_saved_attack', { name: 'web-cpu', channel })).text).toContain('press Start');
    const late = await stack.fake.waitFor(
      () =>
        dmOf(id)
          .filter((m) => m.buttons().some((b) => b.text === 'Start'))
          .at(-1),
      'the saved attack preview',
    );
    stack.advanceClock(24 * 3600_000);
    await late.click('Start');
    expect(attacksInSim()).toHaveLength(before);
  });
});

describe('bounded', () => {
  it('limits the calls of one person per minute, not of the next person', async () => {
    mcpLimits.callsPerMinute = 2;
    const id = nextPerson();
    await stack.login(id, users().solo);
    const client = await slackbot(id);
    expect((await client.call('saved_attacks')).isError).toBe(false);
    expect((await client.call('saved_attacks')).isError).toBe(false);
    const third = await client.call('saved_attacks');
    expect(third).toMatchObject({ isError: true, text: expect.stringContaining('more than 2 times this minute') });
    const other = nextPerson();
    await stack.login(other, users().solo);
    expect((await (await slackbot(other)).call('saved_attacks')).isError).toBe(false);
  });

  it('answers "still working" when the platform is slow, and the halt still happens', async () => {
    const id = nextPerson();
    await stack.login(id, users().solo);
    const { attack } = await stack.startAttack(id, 'attack cpu -l 300 -c 1', channel);
    mcpLimits.answerWithinMs = 50;
    stack.sim.faults.inject({ path: /halt/, kind: 'latency', ms: 1_000, times: Infinity });
    const answer = await (await slackbot(id)).call('halt_attack', { id: attack.guid });
    expect(answer.text).toContain('Still working');
    await stack.fake.waitFor(() => haltedAt(attack.guid) !== undefined, 'the halt, once the platform answers');
    stack.sim.faults.clear();
  });
});

function teamId(name: string): string {
  return [...stack.sim.state.teams.values()].find((t) => t.name === name)!.id;
}

describe('in Socket Mode', () => {
  it('serves the tools on the same port as the probes, verified with the signing secret', async () => {
    const socket = await Stack.start({
      mode: 'socket',
      sim: stack.sim,
      env: { MCP_ENABLED: 'true', SLACK_SIGNING_SECRET: Stack.signingSecret },
    });
    try {
      const id = nextPerson();
      await socket.login(id, users().solo);
      const url = `http://127.0.0.1:${socket.bot.port}/mcp`;
      const client = await socket.fake.slackbot(id, url);
      open.push(client);
      expect(await client.call('saved_attacks')).toMatchObject({
        isError: false,
        text: expect.stringContaining('Platform'),
      });
      await expect(socket.fake.slackbot(id, url, { signing: 'bad' })).rejects.toMatchObject({ code: 401 });
      socket.expectClean();
    } finally {
      await socket.stop();
    }
  });
});
