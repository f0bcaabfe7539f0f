import { describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../src/store/errors.ts';
import { Stack, stackForFile } from './harness.ts';

const read = Stack.read;
const channel = 'C0WATCHED';
const other = 'C0WATCHTOO';
let stack: Stack;
stackForFile({}, (started) => (stack = started));

let n = 0;
const nextPerson = () => `U0WATCH${++n}`;
const users = () => stack.sim.seed.users;
const teams = () => stack.sim.seed.teams;
const messages = (id = channel) => stack.fake.channel(id).messages();
const cardsOf = (guid: string, id = channel) =>
  messages(id).filter((m) => m.text().includes(guid) && m.buttons().some((b) => b.text === 'Details'));
const activeLists = () => stack.sim.requests.filter((r) => r.method === 'GET' && r.path === '/attacks/active/paged');
/** Long enough for a 30-second attack to pass every stage in the simulator. */
const runOut = () => stack.advanceClock(60_000);

describe('watched channels', () => {
  it('posts a card for an attack started on the platform, marked where it came from, that follows it to Successful; unwatch stops that', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Payments' });
    const reply = await stack.ask(id, 'watch', { channel });
    expect(read(reply)).toContain('this channel watches team Payments');
    expect(messages().map(read).join('\n')).toContain('set this channel to watch team Payments');

    const guid = stack.sim.createAttackDirectly(teams().payments.id, {
      type: 'cpu',
      args: ['-l', '30'],
      createSource: 'WebApp',
      createUser: 'ops@acme.test',
    });
    // Another team's attack is not this channel's business.
    const elsewhere = stack.sim.createAttackDirectly(teams().platform.id, { type: 'cpu', args: ['-l', '30'] });
    const report = await stack.poll();
    expect(report.posted).toBe(1);
    const [card] = cardsOf(guid);
    expect(read(card)).toContain('Started from the web UI by ops@acme.test');
    expect(read(card)).toContain('in team Payments');
    expect(card!.buttons().map((b) => b.text)).toEqual(['Halt', 'File ticket', 'Add note', 'Details']);
    expect(cardsOf(elsewhere)).toHaveLength(0);

    runOut();
    await stack.poll();
    await stack.poll();
    expect(cardsOf(guid)).toHaveLength(1);
    expect(read(cardsOf(guid)[0])).toContain('Successful');
    expect(
      cardsOf(guid)[0]!
        .buttons()
        .map((b) => b.text),
    ).toEqual(['File ticket', 'Add note', 'Details']);

    expect(read(await stack.ask(id, 'unwatch', { channel }))).toContain('no longer watches team Payments');
    const after = stack.sim.createAttackDirectly(teams().payments.id, { type: 'cpu', args: ['-l', '30'] });
    expect((await stack.poll()).posted).toBe(0);
    expect(cardsOf(after)).toHaveLength(0);
    expect(read(await stack.ask(id, 'unwatch', { channel }))).toContain('watches no team');
  });

  it('gives an attack started from Slack no second card in its own channel, and one copy in another watching channel, updated with it', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Payments' });
    await stack.ask(id, 'watch Payments', { channel });
    await stack.ask(id, 'watch --team payments', { channel: other });

    expect(read(await stack.ask(id, 'attack cpu -l 30 --yes', { channel }))).toContain('Started cpu attack');
    const fromSlack = [...stack.sim.state.attacks.values()][0]!.guid;
    const fromApi = stack.sim.createAttackDirectly(teams().payments.id, {
      args: ['-l', '30'],
      createSource: 'Api',
      createUser: 'robot@acme.test',
    });
    await stack.poll();
    await stack.poll();

    expect(cardsOf(fromSlack, channel)).toHaveLength(1);
    expect(cardsOf(fromSlack, other)).toHaveLength(1);
    expect(read(cardsOf(fromSlack, other)[0])).toContain(`Started by <@${id}> (owner@acme.test) in <#${channel}>`);
    expect(cardsOf(fromApi, channel)).toHaveLength(1);
    expect(cardsOf(fromApi, other)).toHaveLength(1);
    expect(read(cardsOf(fromApi, other)[0])).toContain('Started from the API by robot@acme.test');

    runOut();
    await stack.poll();
    for (const where of [channel, other]) {
      for (const guid of [fromSlack, fromApi]) expect(read(cardsOf(guid, where)[0])).toContain('Successful');
    }
  });

  it('polls ten watched teams with one active list each, however many cards and watches they have', async () => {
    const id = nextPerson();
    stack.sim.addTeams(users().solo.email, 9);
    await stack.login(id, users().solo, { team: 'Platform' });
    const mine = (await stack.built.sessions.get({ workspaceId: stack.fake.teamId, userId: id }))!.session.teams;
    expect(mine).toHaveLength(10);
    for (const team of mine) await stack.ask(id, `watch ${team.identifier}`, { channel });
    // A second watch of one team, and a live card started from Slack in it.
    await stack.ask(id, 'watch Platform', { channel: other });
    expect(read(await stack.ask(id, 'attack cpu -l 300 --yes', { channel }))).toContain('Started cpu attack');
    const others = mine.filter((t) => t.identifier !== teams().platform.id);
    for (const team of [teams().platform.id, others[0]!.identifier, others[1]!.identifier])
      stack.sim.createAttackDirectly(team, { args: ['-l', '300'] });

    stack.sim.requests.length = 0;
    const first = await stack.poll();
    expect(first.teams).toBe(10);
    // Three new attacks here, the Platform one in the other channel too, and a copy there of the card started here.
    expect(first.posted).toBe(3 + 1 + 1);
    expect(activeLists()).toHaveLength(10);
    expect(new Set(activeLists().map((r) => r.teamId)).size).toBe(10);
    expect(stack.sim.requests).toHaveLength(10);

    stack.sim.requests.length = 0;
    expect((await stack.poll()).posted).toBe(0);
    expect(stack.sim.requests).toHaveLength(10);
  });

  it('pauses when the session that reads for it ends, says so once, and resumes when someone with access renews it', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Payments' });
    await stack.ask(id, 'watch', { channel });
    stack.sim.expireSession(users().owner.email);
    const missed = stack.sim.createAttackDirectly(teams().payments.id, {
      args: ['-l', '300'],
      createUser: 'ops@acme.test',
    });

    await stack.poll();
    const paused = () => messages().filter((m) => read(m).includes("This channel's watch of team Payments is paused"));
    expect(paused()).toHaveLength(1);
    expect(read(paused()[0])).toContain(`<@${id}>'s platform session ended`);
    expect(read(paused()[0])).toContain('/chaos watch Payments');
    expect(cardsOf(missed)).toHaveLength(0);
    // Paused: no reads for it, and nothing said again.
    stack.sim.requests.length = 0;
    await stack.poll();
    expect(activeLists()).toHaveLength(0);
    expect(paused()).toHaveLength(1);

    const renewer = nextPerson();
    await stack.login(renewer, users().owner, { team: 'Payments' });
    expect(read(await stack.ask(renewer, 'status', { channel }))).toMatch(
      /Watches in this channel\n:eyes: Payments, set by <@U0WATCH\d+> since .* · :pause_button: paused/,
    );
    expect(read(await stack.ask(renewer, 'watch Payments', { channel }))).toContain(
      'this channel watches team Payments',
    );
    expect(messages().map(read).join('\n')).toContain(`<@${renewer}> renewed this channel's watch of team Payments`);
    await stack.poll();
    // The attack that started while the watch was paused, and still runs, gets its card now.
    expect(cardsOf(missed)).toHaveLength(1);
    expect(read(cardsOf(missed)[0])).toContain('Started from the web UI by ops@acme.test');
  });

  it('pauses a watch whose owner logged out, without asking the platform', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Search' });
    await stack.ask(id, 'watch', { channel });
    await stack.ask(id, 'logout', { channel });
    stack.sim.requests.length = 0;
    await stack.poll();
    expect(stack.sim.requests).toHaveLength(0);
    expect(messages().filter((m) => read(m).includes("This channel's watch of team Search is paused"))).toHaveLength(1);
  });

  it("shows the channel's watches in status and the watches of your teams on App Home", async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Payments' });
    expect(read(await stack.ask(id, 'status', { channel }))).toContain('Watches in this channel\nNone');
    await stack.ask(id, 'watch', { channel });
    await stack.ask(id, 'watch Search', { channel });
    const status = read(await stack.ask(id, 'status', { channel }));
    expect(status).toMatch(
      new RegExp(
        `Watches in this channel\\n:eyes: Payments, set by <@${id}> since [^\\n]+\\n:eyes: Search, set by <@${id}>`,
      ),
    );
    expect(read(await stack.ask(id, 'status', { channel: other }))).toContain('Watches in this channel\nNone');

    const home = read(await stack.openHome(id));
    expect(home).toContain('Watched channels');
    expect(home).toContain(`:eyes: Payments in <#${channel}>, set by <@${id}>`);
    expect(home).toContain(`:eyes: Search in <#${channel}>`);
    // Someone who is not in the channel does not see its watches.
    const outsider = nextPerson();
    await stack.login(outsider, users().owner, { team: 'Payments' });
    expect(read(await stack.openHome(outsider))).not.toContain('Watched channels');
  });

  it('refuses a team that is not yours and says which team an unwatch means', async () => {
    const id = nextPerson();
    await stack.login(id, users().solo);
    expect(read(await stack.ask(id, 'watch Payments', { channel }))).toContain('None of your teams matches “Payments”');
    const owner = nextPerson();
    await stack.login(owner, users().owner, { team: 'Payments' });
    await stack.ask(owner, 'watch Payments', { channel });
    await stack.ask(owner, 'watch Search', { channel });
    expect(read(await stack.ask(owner, 'unwatch Platform', { channel }))).toContain('does not watch Platform');
    await stack.ask(owner, 'team Platform', { channel });
    expect(read(await stack.ask(owner, 'unwatch', { channel }))).toContain(
      'This channel watches Payments, Search. Say which',
    );
    expect(read(await stack.ask(owner, 'unwatch search', { channel }))).toContain('no longer watches team Search');
    expect(read(await stack.ask(owner, 'unwatch', { channel }))).toContain('no longer watches team Payments');
    expect(await stack.built.services.attacks.watches.all()).toEqual([]);
  });

  it('leaves the card to a start from Slack when a poll runs while the start posts it, and copies it into the other watching channel after', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Payments' });
    await stack.ask(id, 'watch Payments', { channel });
    await stack.ask(id, 'watch Payments', { channel: other });
    // A poll runs just as the start posts its card.
    const slack = stack.built.services.slack;
    const post = slack.post.bind(slack);
    let polled = false;
    slack.post = async (where, message, options) => {
      if (!polled && where === channel && stack.sim.state.attacks.size > 0) {
        polled = true;
        await stack.built.services.attacks.refreshCards();
      }
      return post(where, message, options);
    };
    expect(read(await stack.ask(id, 'attack cpu -l 30 --yes', { channel }))).toContain('Started cpu attack');
    expect(polled).toBe(true);
    const guid = [...stack.sim.state.attacks.values()][0]!.guid;
    await stack.poll();
    expect(cardsOf(guid, channel)).toHaveLength(1);
    expect(cardsOf(guid, other)).toHaveLength(1);
    expect(read(cardsOf(guid, other)[0])).toContain(`Started by <@${id}> (owner@acme.test) in <#${channel}>`);

    runOut();
    await stack.poll();
    for (const where of [channel, other]) expect(read(cardsOf(guid, where)[0])).toContain('Successful');
    expect((await stack.built.services.attacks.cards.get(guid))!.startedBy.userId).toBe(id);
  });

  it('gives an attack started from Slack one card in its channel when a poll runs right after the create', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Payments' });
    await stack.ask(id, 'watch Payments', { channel });
    // A poll runs between the platform's create and the start taking the attack's card in its channel.
    const store = stack.built.store;
    const claim = store.claim.bind(store);
    let polled = false;
    store.claim = async (key, ttlMs, owner) => {
      if (!polled && key.startsWith(`watch-card:${channel}:`)) {
        polled = true;
        await stack.built.services.attacks.refreshCards();
      }
      return claim(key, ttlMs, owner);
    };
    expect(read(await stack.ask(id, 'attack cpu -l 30 --yes', { channel }))).toContain('Started cpu attack');
    expect(polled).toBe(true);
    const guid = [...stack.sim.state.attacks.values()][0]!.guid;
    await stack.poll();
    expect(cardsOf(guid, channel)).toHaveLength(1);
    expect(read(cardsOf(guid, channel)[0])).toContain(`Started by <@${id}>`);
  });

  it('keeps a card it posted but could not save current: the save is made again at the next pass', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Payments' });
    await stack.ask(id, 'watch', { channel });
    const cards = stack.built.services.attacks.cards;
    const savePosted = cards.savePosted.bind(cards);
    let failed = false;
    cards.savePosted = async (card) => {
      if (failed) return savePosted(card);
      failed = true;
      throw new StoreUnavailableError('memory', { cause: new Error('gone for a moment') });
    };
    const guid = stack.sim.createAttackDirectly(teams().payments.id, {
      args: ['-l', '30'],
      createUser: 'ops@acme.test',
    });
    expect((await stack.poll()).posted).toBe(1);
    expect(failed).toBe(true);
    runOut();
    await stack.poll();
    await stack.poll();
    expect(cardsOf(guid)).toHaveLength(1);
    expect(read(cardsOf(guid)[0])).toContain('Successful');
  });
});

describe('watched channels when Slack fails a card', () => {
  it('tries a card again at the next pass after Slack did not answer', async () => {
    const own = await Stack.start({ slackTimeoutMs: 200 });
    try {
      const id = 'U0WATCHFAIL';
      await own.login(id, own.sim.seed.users.owner, { team: 'Payments' });
      await own.ask(id, 'watch', { channel });
      own.fake.faults.inject({ kind: 'hang', method: 'chat.postMessage' });
      const guid = own.sim.createAttackDirectly(own.sim.seed.teams.payments.id, { args: ['-l', '300'] });
      expect((await own.poll()).posted).toBe(0);
      own.fake.faults.clear();
      expect((await own.poll()).posted).toBe(1);
      expect((await own.poll()).posted).toBe(0);
      expect(
        own.fake
          .channel(channel)
          .messages()
          .filter((m) => m.text().includes(guid) && m.buttons().some((b) => b.text === 'Details')),
      ).toHaveLength(1);
      expect(own.errorLogs()).toEqual([]);
    } finally {
      await own.stop();
    }
  });
});
