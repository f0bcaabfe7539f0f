import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Stack, stackForFile } from './harness.ts';
import { dropRedisKeys } from '../support/redisKeys.ts';

const read = Stack.read;
const channel = 'C0GENERAL';
const other = 'C0GAMEDAY';
let stack: Stack;
stackForFile({ env: { ATTACK_CHANNELS: `${channel},${other}` } }, (started) => (stack = started));

let n = 0;
const nextPerson = () => `U0FREEZE${++n}`;
const users = () => stack.sim.seed.users;
const teams = () => stack.sim.seed.teams;
const attacksInSim = () => [...stack.sim.state.attacks.values()];
const creates = () => stack.sim.requests.filter((r) => r.method === 'POST' && (r.path === '/attacks/new' || r.path === '/attacks'));
const channelText = (id = channel) => stack.fake.channel(id).messages().map(read).join('\n');

describe('freeze', () => {
  it('halts the team\'s running attacks, refuses every start there, shows on Home and status, and unfreeze allows starts again', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Payments' });
    const running = stack.sim.createAttackDirectly(teams().payments.id, { type: 'cpu', args: ['-l', '300'] });
    const elsewhere = stack.sim.createAttackDirectly(teams().platform.id, { type: 'cpu', args: ['-l', '300'] });
    // A preview made before the freeze must not start after it.
    const earlier = await stack.ask(id, 'attack cpu -l 30', { channel });
    expect(read(earlier)).toContain('Start');

    const reply = await stack.ask(id, 'freeze --reason "checkout incident"', { channel });
    expect(read(reply)).toContain('Payments is frozen');
    expect(channelText()).toMatch(/froze attacks in Payments: checkout incident\. Halted 1 attack/);
    expect(stack.sim.state.attacks.get(running)!.halt).toEqual(expect.objectContaining({ reason: 'frozen: checkout incident' }));
    // Another team's attack runs on.
    expect(stack.sim.state.attacks.get(elsewhere)!.halt).toBeUndefined();

    const refused = await stack.ask(id, 'attack cpu -l 30', { channel });
    expect(read(refused)).toMatch(/Attacks in Payments are frozen by <@U0FREEZE\d+> since .*: checkout incident\. Nothing was started/);
    expect(read(refused)).toContain('unfreeze --team Payments');
    expect(read(await stack.ask(id, 'attack cpu -l 30 --yes', { channel }))).toContain('frozen');
    const shown = stack.person(id).ephemerals(channel).length;
    await earlier.click('Start');
    await stack.fake.waitFor(() => stack.person(id).ephemerals(channel).length > shown && read(stack.person(id).ephemerals(channel).at(-1)).includes('frozen'), 'the refused Start');
    expect(creates()).toHaveLength(0);
    // Other teams are not frozen.
    expect(read(await stack.ask(id, 'attack cpu -l 30 --team Platform', { channel }))).toContain('Start');

    expect(read(await stack.openHome(id))).toMatch(/Payments: frozen by .*: checkout incident/);
    const status = read(await stack.ask(id, 'status', { channel }));
    expect(status).toMatch(/Freezes\n:snowflake: Payments: frozen by/);

    expect(read(await stack.ask(id, 'unfreeze', { channel }))).toContain('Payments is no longer frozen');
    expect(channelText()).toContain('lifted the freeze on Payments');
    expect(read(await stack.ask(id, 'unfreeze', { channel }))).toContain('Payments is not frozen');
    expect(read(await stack.ask(id, 'attack cpu -l 30 --yes', { channel }))).toContain('Started cpu attack');
    expect(creates()).toHaveLength(1);
  });

  it('halts an attack that appears in a frozen team from elsewhere, within one poll, and says so where the freeze was declared', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Payments' });
    await stack.ask(id, 'freeze --team payments --reason "provider outage"', { channel: other });
    const sneaked = stack.sim.createAttackDirectly(teams().payments.id, { type: 'memory', args: ['-l', '120', '-p', '50'] });
    expect(stack.sim.state.attacks.get(sneaked)!.halt).toBeUndefined();

    await stack.poll();
    expect(stack.sim.state.attacks.get(sneaked)!.halt).toEqual(expect.objectContaining({ reason: 'frozen: provider outage' }));
    await stack.fake.waitFor(() => channelText(other).includes(`Halted memory ${sneaked} in Payments: it started while the team is frozen.`), 'the halt report');
    // Halted once: the next pass neither halts nor reports it again.
    const halts = () => stack.sim.requests.filter((r) => r.path === `/attacks/${sneaked}/halt`).length;
    const before = halts();
    await stack.poll();
    expect(halts()).toBe(before);
  });

  it('still refuses starts after its declarer logs out, and says once that it can no longer halt what appears', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Search' });
    await stack.ask(id, 'freeze --reason "reindex"', { channel });
    await stack.ask(id, 'logout', { channel });
    const sneaked = stack.sim.createAttackDirectly(teams().search.id);
    await stack.poll();
    await stack.poll();
    expect(stack.sim.state.attacks.get(sneaked)!.halt).toBeUndefined();
    expect(channelText().match(/can no longer halt attacks started elsewhere/g)).toHaveLength(1);
    const other = nextPerson();
    await stack.login(other, users().owner, { team: 'Search' });
    expect(read(await stack.ask(other, 'attack cpu -l 30', { channel }))).toContain('frozen');
  });

  it('freezes every team with --all through the platform\'s halt of everything, and refuses it to someone without HALT_ALL', async () => {
    const owner = nextPerson();
    await stack.login(owner, users().owner, { team: 'Platform' });
    const sre = nextPerson();
    await stack.login(sre, users().solo);

    const denied = read(await stack.ask(sre, 'freeze --all --reason "not mine to call"', { channel }));
    expect(denied).toMatch(/HALT_ALL|permission|privilege/i);
    expect(read(await stack.ask(sre, 'attack cpu -l 30', { channel }))).toContain('Start');

    expect(read(await stack.ask(owner, 'freeze --all --reason "major incident"', { channel }))).toContain('every team is frozen');
    expect(stack.sim.requests.some((r) => r.method === 'POST' && r.path === '/halts')).toBe(true);
    expect(read(await stack.ask(sre, 'attack cpu -l 30', { channel }))).toMatch(/Attacks in every team are frozen by .*: major incident/);
    expect(read(await stack.ask(owner, 'unfreeze --team Platform', { channel }))).toContain('unfreeze --all');
    expect(read(await stack.ask(owner, 'unfreeze --all', { channel }))).toContain('no longer frozen');
    expect(read(await stack.ask(sre, 'attack cpu -l 30', { channel }))).toContain('Start');
  });

  it('answers every wrong form with what to type, and freezes nothing', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const cases: [string, RegExp][] = [
      ['freeze', /Say why with --reason/],
      ['freeze --reason', /--reason needs some text/],
      ['freeze --all --team Payments --reason x', /not both/],
      ['freeze --team Nowhere --reason x', /None of your teams matches/],
      ['freeze --team --reason x', /--team needs the name/],
      [`freeze --reason "${'x'.repeat(301)}"`, /under 300 characters/],
      ['unfreeze now', /takes only --team or --all/],
    ];
    for (const [text, expected] of cases) expect(read(await stack.ask(id, text, { channel }))).toMatch(expected);
    expect(await stack.deps.freezes.all()).toEqual([]);
    // A reason without --reason is taken as typed.
    expect(read(await stack.ask(id, 'freeze game day paused', { channel }))).toContain('Platform is frozen');
    expect((await stack.deps.freezes.get('team', teams().platform.id))?.reason).toBe('game day paused');
  });
});

const redisUrl = process.env.REDIS_URL;

describe.skipIf(!redisUrl)('freeze on a shared Redis store', () => {
  const storeNamespace = `faultline-e2e-freeze-${randomUUID()}`;
  const sessionKey = randomBytes(32).toString('base64');
  let first: Stack;
  let second: Stack;

  beforeAll(async () => {
    first = await Stack.start({ storeUrl: redisUrl!, storeNamespace, sessionKey });
    second = await Stack.start({ storeUrl: redisUrl!, storeNamespace, sessionKey, sim: first.sim, fake: first.fake });
  });
  afterAll(async () => {
    await dropRedisKeys(redisUrl!, storeNamespace);
    await second?.stop();
    await first?.stop();
  });

  it('is honoured by the other replica, which refuses starts and halts what appears, once', async () => {
    const id = 'U0FREEZER';
    first.fake.setBotUrl(`http://127.0.0.1:${first.bot.port}/slack/events`);
    await first.login(id, first.sim.seed.users.owner, { team: 'Search' });
    expect(read(await first.ask(id, 'freeze --reason "search reindex"', { channel }))).toContain('Search is frozen');

    first.fake.setBotUrl(`http://127.0.0.1:${second.bot.port}/slack/events`);
    expect(read(await second.ask(id, 'attack cpu -l 30 --yes', { channel }))).toContain('frozen');
    const sneaked = first.sim.createAttackDirectly(first.sim.seed.teams.search.id);
    await Promise.all([first.poll(), second.poll()]);
    expect(first.sim.state.attacks.get(sneaked)!.halt).toBeDefined();
    expect(first.sim.requests.filter((r) => r.path === `/attacks/${sneaked}/halt`)).toHaveLength(1);
    first.expectClean();
    second.expectClean();
  });
});
