import { describe, expect, it } from 'vitest';
import { monitoringEnv, Stack, stackForFile } from './harness.ts';

const read = Stack.read;
const channel = 'C0GENERAL';
let stack: Stack;
stackForFile(
  {
    env: { ATTACK_CHANNELS: channel, ...monitoringEnv },
  },
  (started) => (stack = started),
);

let n = 0;
const nextPerson = () => `U0GUARD${++n}`;
const users = () => stack.sim.seed.users;
const creates = () => stack.sim.requests.filter((r) => r.method === 'POST' && r.path === '/attacks/new');
const monitorReads = (id: number) =>
  stack.sim.requests.filter((r) => r.method === 'GET' && r.path === `/monitoringA/monitors/${id}`).length;
const cardOf = (guid: string) =>
  stack.fake
    .channel(channel)
    .messages()
    .find((m) => m.text().includes(guid));
const threadOf = (ts: string) => stack.fake.channel(channel).thread(ts).map(read).join('\n');
const gameDayCard = (title: string) =>
  stack.fake
    .channel(channel)
    .messages()
    .find((m) => read(m).includes(`Game day: ${title}`))!;

const startNow = (personId: string, text: string) => stack.startAttack(personId, text, channel);

describe('guards on a game day', () => {
  it('shows the guard on the cards, and halts every attack it covers within one poll of firing, saying which guard and when', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const started = read(await stack.ask(id, 'gameday start Latency drill --guard a:1234567', { channel }));
    expect(started).toContain('Game day Latency drill started');
    expect(started).toMatch(/checkout p99 latency \(1234567\): OK/);
    expect(threadOf(gameDayCard('Latency drill').ts)).toContain('set a guard on this game day');

    const first = await startNow(id, 'attack cpu -l 300 -c 1');
    const second = await startNow(id, 'attack memory -l 300 -p 20');
    expect(read(first.card)).toMatch(/Guards .*checkout p99 latency \(1234567\): OK/);

    await stack.poll();
    expect(first.attack.halt).toBeUndefined();

    stack.sim.setMonitorState(1234567, 'Alert');
    const reads = monitorReads(1234567);
    await stack.poll();
    // Read once for both attacks: the cost grows with guards, not attacks.
    expect(monitorReads(1234567)).toBe(reads + 1);
    for (const { attack } of [first, second]) {
      expect(stack.sim.state.attacks.get(attack.guid)!.halt).toEqual(
        expect.objectContaining({ reason: 'guard checkout p99 latency (1234567) fired' }),
      );
    }
    await stack.poll();
    const card = read(cardOf(first.attack.guid));
    expect(card).toMatch(/checkout p99 latency \(1234567\): Alert · fired .*, halted this attack/);
    expect(threadOf(first.card.ts)).toMatch(
      /Guard checkout p99 latency \(1234567\) fired \(Alert\) at .*: halted this attack/,
    );
    expect(threadOf(gameDayCard('Latency drill').ts)).toMatch(
      new RegExp(`fired \\(Alert\\) at .*: halted cpu ${first.attack.guid}, memory ${second.attack.guid}`),
    );
    // The game day counts the guard's halts as halts.
    await stack.fake.waitFor(
      () => /Halts\n2\b/.test(read(gameDayCard('Latency drill'))),
      'Halts 2 on the game-day card',
    );
    // Halted once: the next passes do not halt again.
    const halts = stack.sim.requests.filter((r) => r.path.endsWith('/halt')).length;
    await stack.poll();
    expect(stack.sim.requests.filter((r) => r.path.endsWith('/halt')).length).toBe(halts);
  });

  it('keeps guarding the attacks started under a game day after the game day ends, and their cards show it', async () => {
    const id = nextPerson();
    const person = await stack.login(id, users().owner, { team: 'Platform' });
    await stack.ask(id, 'gameday start Overrun drill --guard a:1234567', { channel });
    const { attack } = await startNow(id, 'attack cpu -l 3000 -c 1');
    // A guard given to the game day after the attack started covers it too.
    await stack.ask(id, 'gameday guard b:CheckoutErrorRate', { channel });
    await stack.poll();
    expect(read(cardOf(attack.guid))).toMatch(/CheckoutErrorRate: inactive/);

    const warning = await stack.ask(id, 'gameday end', { channel });
    await person
      .ephemerals(channel)
      .find((m) => m.ts === warning.ts)!
      .click('End anyway');
    await stack.fake.waitFor(
      () =>
        stack.fake
          .channel(channel)
          .messages()
          .find((m) => read(m).includes('Game day summary: Overrun drill')),
      'the summary',
    );
    expect(stack.sim.state.attacks.get(attack.guid)!.halt).toBeUndefined();

    stack.sim.setAlertState('CheckoutErrorRate', 'firing');
    await stack.poll();
    expect(stack.sim.state.attacks.get(attack.guid)!.halt).toEqual(
      expect.objectContaining({ reason: 'guard CheckoutErrorRate fired' }),
    );
    await stack.poll();
    const card = read(cardOf(attack.guid));
    expect(card).toMatch(/CheckoutErrorRate: firing · fired .*, halted this attack/);
    expect(card).toMatch(/checkout p99 latency \(1234567\): OK/);
  });

  it('refuses a start while a guard is unhealthy, naming it and its state, and sends nothing', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    stack.sim.setAlertState('CheckoutErrorRate', 'firing');
    await stack.ask(id, 'gameday start Error drill', { channel });
    expect(read(await stack.ask(id, 'gameday guard b:CheckoutErrorRate', { channel }))).toContain(
      'CheckoutErrorRate: firing',
    );
    for (const text of ['attack cpu -l 30', 'attack cpu -l 30 --yes']) {
      expect(read(await stack.ask(id, text, { channel }))).toContain(
        'Not started: its guard CheckoutErrorRate (firing) says the system is unhealthy',
      );
    }
    expect(creates()).toHaveLength(0);
    stack.sim.setAlertState('CheckoutErrorRate', 'inactive');
    expect(read(await stack.ask(id, 'attack cpu -l 30', { channel }))).toContain('CheckoutErrorRate: inactive');
  });

  it('asks for Start anyway when a guard cannot be told, and --yes does not skip it', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    await stack.ask(id, 'gameday start Blind drill --guard a:1234569 --guard b:NoSuchAlert', { channel });
    const viaYes = await stack.ask(id, 'attack cpu -l 30 --yes', { channel });
    expect(creates()).toHaveLength(0);
    expect(read(viaYes)).toMatch(/cannot be told/);
    expect(viaYes.buttons().map((b) => b.text)).toEqual(['Start anyway', 'Cancel']);
    expect(read(viaYes)).toContain('No Data');
    expect(read(viaYes)).toContain('NoSuchAlert: not found');
    await viaYes.click('Start anyway');
    await stack.fake.waitFor(() => creates().length === 1, 'the start');
  });

  it('refuses a Start clicked after a guard turned unreadable since the preview, and says how to go on', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    await stack.ask(id, 'gameday start Drift drill --guard a:1234567', { channel });
    const preview = await stack.ask(id, 'attack cpu -l 30', { channel });
    expect(read(preview)).toContain('checkout p99 latency (1234567): OK');
    stack.sim.setMonitorState(1234567, 'No Data');
    await preview.click('Start');
    const reply = await stack.fake.waitFor(
      () =>
        stack
          .person(id)
          .ephemerals(channel)
          .map(read)
          .find((t) => t.includes('cannot be told')),
      'the refusal',
    );
    expect(reply).toContain(
      'Nothing was started: run the command again, and its preview shows the guards and offers Start anyway.',
    );
    expect(reply).not.toContain('--yes');
    expect(creates()).toHaveLength(0);
  });

  it("when the guard owner's session has expired, asks the channel to halt what it could not, each attack by name or all, and tells the owner", async () => {
    const owner = nextPerson();
    const starter = nextPerson();
    await stack.login(owner, users().owner, { team: 'Platform' });
    await stack.login(starter, users().solo);
    await stack.ask(owner, 'gameday start Expiry drill --guard a:1234570', { channel });
    const { attack } = await startNow(starter, 'attack cpu -l 300 -c 1');
    stack.sim.expireSession(users().owner.email);
    stack.sim.setMonitorState(1234570, 'Alert');
    await stack.poll();
    expect(stack.sim.state.attacks.get(attack.guid)!.halt).toBeUndefined();
    const ask = await stack.fake.waitFor(
      () =>
        stack.fake
          .channel(channel)
          .messages()
          .find((m) => read(m).includes('could not halt')),
      'the request to halt',
    );
    expect(read(ask)).toContain(attack.guid);
    // A Halt for the attack itself, and Halt all.
    expect(ask.buttons().map((b) => b.text)).toEqual([`Halt cpu · ${attack.guid.slice(0, 8)}`, 'Halt all']);
    const dm = await stack.fake.waitFor(() => stack.fake.channel(owner).messages().at(-1), 'the direct message');
    expect(read(dm)).toContain('Your guard');
    expect(read(dm)).toContain('log in again');
    const seen = stack
      .person(starter)
      .channel(channel)
      .messages()
      .find((m) => read(m).includes('could not halt'))!;
    await seen.click(`Halt cpu · ${attack.guid.slice(0, 8)}`);
    await stack.fake.waitFor(() => stack.sim.state.attacks.get(attack.guid)!.halt, 'the halt from the button');
  });

  it("halts with the session of another person who set the same guard when the first one's has expired", async () => {
    const lead = nextPerson();
    const starter = nextPerson();
    await stack.login(lead, users().owner, { team: 'Platform' });
    await stack.login(starter, users().solo);
    await stack.ask(lead, 'gameday start Shared drill --guard a:1234567', { channel });
    const { attack } = await startNow(starter, 'attack cpu -l 300 -c 1 --guard a:1234567');
    stack.sim.expireSession(users().solo.email);
    stack.sim.setMonitorState(1234567, 'Alert');
    await stack.poll();
    expect(stack.sim.state.attacks.get(attack.guid)!.halt).toEqual(
      expect.objectContaining({ reason: 'guard checkout p99 latency (1234567) fired' }),
    );
    expect(threadOf(cardOf(attack.guid)!.ts)).toContain(`halted this attack with <@${lead}>'s session`);
  });

  it('does not say it halted an attack that had ended on the platform before its guard fired', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    await stack.ask(id, 'gameday start Late drill --guard a:1234567', { channel });
    const { attack, card } = await startNow(id, 'attack cpu -l 30 -c 1');
    // The attack ends on the platform; its card has not heard of it when the guard fires.
    stack.advanceClock(30 * 60_000);
    stack.sim.setMonitorState(1234567, 'Alert');
    await stack.poll();
    await stack.built.services.slack.flush();
    expect(stack.sim.state.attacks.get(attack.guid)!.halt).toBeUndefined();
    expect(threadOf(card.ts)).not.toContain('halted this attack');
    const timeline = threadOf(gameDayCard('Late drill').ts);
    expect(timeline).not.toContain(`halted cpu ${attack.guid}`);
    expect(timeline).toContain('no attack it covers was running');
  });

  it('halts the other attacks a guard covers when one halt fails, records them, and tries the failed one again', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    await stack.ask(id, 'gameday start Partial drill --guard a:1234567', { channel });
    const first = await startNow(id, 'attack cpu -l 300 -c 1');
    const second = await startNow(id, 'attack memory -l 300 -p 20');
    stack.sim.faults.inject({
      method: 'POST',
      path: `/attacks/${first.attack.guid}/halt`,
      kind: 'status',
      status: 500,
      times: Infinity,
    });
    stack.sim.setMonitorState(1234567, 'Alert');
    await stack.poll();
    expect(stack.sim.state.attacks.get(first.attack.guid)!.halt).toBeUndefined();
    expect(stack.sim.state.attacks.get(second.attack.guid)!.halt).toEqual(
      expect.objectContaining({ reason: 'guard checkout p99 latency (1234567) fired' }),
    );
    const timeline = () => threadOf(gameDayCard('Partial drill').ts);
    expect(timeline()).toMatch(new RegExp(`fired \\(Alert\\) at .*: halted memory ${second.attack.guid}`));

    stack.sim.faults.clear();
    await stack.poll();
    expect(stack.sim.state.attacks.get(first.attack.guid)!.halt).toEqual(
      expect.objectContaining({ reason: 'guard checkout p99 latency (1234567) fired' }),
    );
    expect(timeline()).toMatch(new RegExp(`fired \\(Alert\\) at .*: halted cpu ${first.attack.guid}`));
  });

  it('halts an attack once when two of its guards fire in the same pass, and shows both on its card', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    await stack.ask(id, 'gameday start Double drill --guard a:1234567', { channel });
    const { attack } = await startNow(id, 'attack cpu -l 300 -c 1 --guard b:CheckoutErrorRate');
    await stack.poll();
    stack.sim.setMonitorState(1234567, 'Alert');
    stack.sim.setAlertState('CheckoutErrorRate', 'firing');
    await stack.poll();
    await stack.poll();
    expect(stack.sim.requests.filter((r) => r.path === `/attacks/${attack.guid}/halt`)).toHaveLength(1);
    const card = read(cardOf(attack.guid));
    expect(card).toContain('checkout p99 latency (1234567): Alert');
    expect(card).toContain('CheckoutErrorRate: firing');
  });
  it('refuses guards it cannot read: a bad form, an unconfigured product', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    await stack.ask(id, 'gameday start Typo drill', { channel });
    expect(read(await stack.ask(id, 'gameday guard c:1', { channel }))).toContain('is not a guard');
    expect(read(await stack.ask(id, 'gameday guard a:latency', { channel }))).toContain('is not a monitor id');
  });
});

describe('who may change the guards of a game day', () => {
  it('lets only someone who may run or halt attacks in its team add one, and its facilitator remove one', async () => {
    const lead = nextPerson();
    await stack.login(lead, users().owner, { team: 'Platform' });
    await stack.ask(lead, 'gameday start Whose guards drill', { channel });
    const day = (await stack.built.services.gamedays.days.running(channel))!;
    const guarded = async () => (await stack.built.services.guardrails.guards.forGameDay(day.id)).map((g) => g.spec);

    const outsider = nextPerson();
    await stack.login(outsider, users().globex, {});
    expect(read(await stack.ask(outsider, 'gameday guard a:1234567', { channel }))).toMatch(/Platform/);
    const observer = nextPerson();
    await stack.login(observer, users().observer, {});
    expect(read(await stack.ask(observer, 'gameday guard a:1234567', { channel }))).toMatch(
      /EXPERIMENTS_RUN[^\n]*HALT_WRITE/,
    );
    const before = stack.person(observer).ephemerals(channel).length;
    await stack.person(observer).command('gameday guard', { channel });
    await stack.fake.waitFor(
      () => stack.person(observer).ephemerals(channel).length > before || undefined,
      'the refusal',
    );
    expect(read(stack.person(observer).ephemerals(channel).at(-1))).toMatch(/HALT_WRITE/);
    expect(stack.person(observer).modal()?.callbackId).not.toBe('gameday_guard_picker');
    const stranger = nextPerson();
    expect(read(await stack.ask(stranger, 'gameday guard a:1234567', { channel }))).toContain(
      'You are not logged in to the platform',
    );
    expect(await guarded()).toEqual([]);

    expect(read(await stack.ask(lead, 'gameday guard a:1234567', { channel }))).toMatch(/1234567/);
    expect(await guarded()).toHaveLength(1);
    expect(read(await stack.ask(observer, 'gameday unguard a:1234567', { channel }))).toMatch(/HALT_WRITE/);
    expect(await guarded()).toHaveLength(1);

    // The facilitator removes a guard even once their role could no longer add one.
    const actor = { workspaceId: stack.fake.teamId, userId: lead };
    const login = (await stack.built.sessions.get(actor))!;
    await stack.built.sessions.save(actor, {
      ...login.session,
      teams: login.session.teams.map((t) => ({ ...t, privileges: ['EXPERIMENTS_READ'] })),
    });
    expect(read(await stack.ask(lead, 'gameday guard b:CheckoutErrorRate', { channel }))).toMatch(/HALT_WRITE/);
    expect(read(await stack.ask(lead, 'gameday unguard a:1234567', { channel }))).toContain('Removed');
    expect(await guarded()).toEqual([]);
    await stack.built.sessions.save(actor, login.session);
    await stack.ask(lead, 'gameday end', { channel });
  });
});

const guardForm = (id: string) =>
  stack.fake.waitFor(
    () => stack.person(id).modal()?.callbackId === 'gameday_guard_picker' && stack.person(id).modal(),
    'the guard form',
  );

async function openGuardForm(id: string) {
  await stack.person(id).command('gameday guard', { channel });
  return guardForm(id);
}

const monitorSearches = () =>
  stack.sim.requests.filter((r) => r.method === 'GET' && r.path === '/monitoringA/monitors');
const alertReads = () => stack.sim.requests.filter((r) => r.method === 'GET' && r.path === '/monitoringB/alerts');

describe('the guard form (gameday guard without a guard)', () => {
  it('searches monitors and alerts as the person types, through the configured integration, and adds what is chosen to the game day', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    await stack.ask(id, 'gameday start Form drill', { channel });
    const modal = await openGuardForm(id);
    expect(read(modal)).toContain('Form drill');
    const values = JSON.stringify(modal.values());
    for (const configured of ['acme-metrics', 'app.monitoring-a.example', 'https://alerts.monitoring-b.example'])
      expect(values).toContain(configured);

    const monitors = await modal.search('Monitor (monitoringA)', 'checkout');
    expect(monitors.map((o) => o.text)).toEqual(
      expect.arrayContaining(['checkout p99 latency (1234567)', 'checkout error budget burn (1234568)']),
    );
    expect(monitorSearches().at(-1)!.query).toEqual(
      expect.objectContaining({
        searchString: 'checkout',
        monitoringAIntegrationName: 'acme-metrics',
        domain: 'app.monitoring-a.example',
      }),
    );
    // An id finds its monitor.
    expect((await modal.search('Monitor (monitoringA)', '1234569')).map((o) => o.text)).toEqual([
      'cart queue depth (1234569)',
    ]);
    expect((await modal.search('Alert (monitoringB)', 'Checkout')).map((o) => o.text)).toEqual(['CheckoutErrorRate']);
    expect(alertReads().at(-1)!.query).toEqual(
      expect.objectContaining({ monitoringBUri: 'https://alerts.monitoring-b.example' }),
    );

    await modal.select('Monitor (monitoringA)', 'checkout p99 latency (1234567)');
    await modal.select('Alert (monitoringB)', 'CheckoutErrorRate');
    await modal.submit();
    const done = await stack.fake.waitFor(
      () => stack.person(id).modal()?.title === 'Guards set' && stack.person(id).modal(),
      'the confirmation',
    );
    expect(read(done)).toMatch(/checkout p99 latency \(1234567\): OK/);
    expect(read(done)).toContain('CheckoutErrorRate: inactive');
    expect(threadOf(gameDayCard('Form drill').ts)).toContain('set 2 guards on this game day');

    // The chosen guards now guard the game day: a firing alert refuses starts here.
    stack.sim.setAlertState('CheckoutErrorRate', 'firing');
    expect(read(await stack.ask(id, 'attack cpu -l 30 --yes', { channel }))).toContain(
      'Not started: its guard CheckoutErrorRate (firing)',
    );
    expect(creates()).toHaveLength(0);
  });

  it('takes a changed integration, domain and URI from the form for searching and for the guards', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    await stack.ask(id, 'gameday start Override drill', { channel });
    const modal = await openGuardForm(id);
    modal
      .fill('monitoringA integration', 'other-metrics')
      .fill('monitoringA domain', 'metrics.other.example')
      .fill('monitoringB URI', 'https://alerts.other.example');
    const offered = await modal.search('Monitor (monitoringA)', 'checkout');
    expect(monitorSearches().at(-1)!.query).toEqual(
      expect.objectContaining({ monitoringAIntegrationName: 'other-metrics', domain: 'metrics.other.example' }),
    );
    // The demo company has no such integration: the search says so, naming the product.
    expect(offered.map((o) => o.text)).toEqual(['No monitoringA integration “other-metrics” at metrics.other.example']);
    expect((await modal.search('Alert (monitoringB)', 'Checkout')).map((o) => o.text)).toEqual([
      'No monitoringB integration at https://alerts.other.example',
    ]);
    expect(alertReads().at(-1)!.query).toEqual(
      expect.objectContaining({ monitoringBUri: 'https://alerts.other.example' }),
    );
  });

  it('keeps the form open with field errors for bad or unreadable choices, and adds nothing', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    await stack.ask(id, 'gameday start Careful drill', { channel });
    const thread = () => threadOf(gameDayCard('Careful drill').ts);
    const modal = await openGuardForm(id);

    await modal.submit();
    expect(modal.errors()).toEqual({
      'Monitor (monitoringA)': 'Choose a monitor or an alert to guard the game day with.',
    });

    await modal.select('Monitor (monitoringA)', 'checkout p99 latency (1234567)');
    modal.fill('monitoringA integration', '');
    await modal.submit();
    expect(modal.errors()).toEqual({
      'monitoringA integration': 'Name the monitoringA integration the monitors are read through.',
    });

    // Chosen through the right integration, then pointed at one the company lacks.
    modal.fill('monitoringA integration', 'gone-metrics');
    await modal.submit();
    expect(modal.errors()['monitoringA integration']).toContain('no monitoringA integration by this name and domain');

    modal.fill('monitoringA integration', 'acme-metrics');
    await modal.select('Alert (monitoringB)', 'CheckoutErrorRate');
    modal.fill('monitoringB URI', 'not a uri');
    await modal.submit();
    expect(modal.errors()).toEqual({ 'monitoringB URI': 'Give the URI as an https:// address.' });

    modal.fill('monitoringB URI', 'https://alerts.gone.example');
    await modal.submit();
    expect(modal.errors()['monitoringB URI']).toContain('no monitoringB integration at this URI');

    expect(stack.person(id).modal()?.callbackId).toBe('gameday_guard_picker');
    expect(thread()).not.toContain('guard');
    expect(read(gameDayCard('Careful drill'))).not.toContain('Guards');
  });

  it('refuses the option that says the integration is missing', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    await stack.ask(id, 'gameday start Missing drill', { channel });
    const modal = await openGuardForm(id);
    modal.fill('monitoringA integration', 'gone-metrics');
    await modal.select(
      'Monitor (monitoringA)',
      'No monitoringA integration “gone-metrics” at app.monitoring-a.example',
    );
    await modal.submit();
    expect(modal.errors()).toEqual({
      'Monitor (monitoringA)':
        'That choice is not a monitor: correct the integration name and domain, then search again.',
    });
  });
});

describe('guards on the game-day surfaces', () => {
  it('lists the guards on the game-day card with their last reading, redrawn when a reading changes', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    await stack.ask(id, 'gameday start Card drill --guard a:1234567 --guard b:CheckoutErrorRate', { channel });
    await stack.built.services.slack.flush();
    const card = () => read(gameDayCard('Card drill'));
    expect(card()).toMatch(/Guards\n.*checkout p99 latency \(1234567\): OK\n.*CheckoutErrorRate: inactive/);

    const updates = () =>
      stack.fake.callsTo('chat.update').filter((c) => c.args['ts'] === gameDayCard('Card drill').ts).length;
    await stack.poll();
    const settled = updates();
    // Nothing changed: the card is not redrawn.
    await stack.poll();
    expect(updates()).toBe(settled);

    stack.sim.setMonitorState(1234567, 'Warn');
    await stack.poll();
    expect(card()).toMatch(/checkout p99 latency \(1234567\): Warn/);
    expect(updates()).toBe(settled + 1);
  });

  it('records each trip in the timeline and lists it in the summary, with what it halted and what it could not', async () => {
    const owner = nextPerson();
    const starter = nextPerson();
    await stack.login(owner, users().owner, { team: 'Platform' });
    await stack.login(starter, users().solo);
    await stack.ask(owner, 'gameday start Trip drill --guard a:1234567 --guard b:CheckoutErrorRate', { channel });
    const mine = await startNow(owner, 'attack cpu -l 300 -c 1');
    stack.sim.setMonitorState(1234567, 'Alert');
    await stack.poll();
    expect(stack.sim.state.attacks.get(mine.attack.guid)!.halt).toEqual(
      expect.objectContaining({ reason: 'guard checkout p99 latency (1234567) fired' }),
    );
    const timeline = () => threadOf(gameDayCard('Trip drill').ts);
    expect(timeline()).toMatch(
      new RegExp(`Guard checkout p99 latency \\(1234567\\) fired \\(Alert\\) at .*: halted cpu ${mine.attack.guid}`),
    );
    expect(read(gameDayCard('Trip drill'))).toMatch(/checkout p99 latency \(1234567\): Alert · fired/);

    // The alert's owner can no longer halt: the trip says which attack it could not halt.
    stack.sim.setMonitorState(1234567, 'OK');
    const theirs = await startNow(starter, 'attack memory -l 300 -p 20');
    stack.sim.expireSession(users().owner.email);
    stack.sim.setAlertState('CheckoutErrorRate', 'firing');
    await stack.poll();
    expect(stack.sim.state.attacks.get(theirs.attack.guid)!.halt).toBeUndefined();
    expect(timeline()).toMatch(
      new RegExp(
        `Guard CheckoutErrorRate fired \\(firing\\) at .*: <@${owner}>'s session could not halt memory ${theirs.attack.guid}: halt it now`,
      ),
    );

    await stack.ask(starter, `halt ${theirs.attack.guid}`, { channel });
    const ended = await stack.ask(starter, 'gameday end', { channel });
    if (read(ended).includes('still running')) await ended.click('End anyway');
    const summary = await stack.fake.waitFor(
      () =>
        stack.fake
          .channel(channel)
          .messages()
          .find((m) => read(m).includes('Game day summary: Trip drill')),
      'the summary',
    );
    const trips = read(summary);
    expect(trips).toMatch(
      new RegExp(
        `Guard trips\n• checkout p99 latency \\(1234567\\) fired \\(Alert\\) .*, guard of <@${owner}>: halted cpu ${mine.attack.guid}`,
      ),
    );
    expect(trips).toMatch(
      new RegExp(
        `• CheckoutErrorRate fired \\(firing\\) .*, guard of <@${owner}>: <@${owner}>'s session could not halt memory ${theirs.attack.guid}`,
      ),
    );
  });

  it('records a trip while nothing runs, once, as the guard turns unhealthy', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    await stack.ask(id, 'gameday start Quiet drill --guard b:CheckoutErrorRate', { channel });
    await stack.poll();
    stack.sim.setAlertState('CheckoutErrorRate', 'firing');
    await stack.poll();
    await stack.poll();
    const timeline = threadOf(gameDayCard('Quiet drill').ts);
    expect(timeline.match(/Guard CheckoutErrorRate fired \(firing\)/g)).toHaveLength(1);
    expect(timeline).toContain('no attack it covers was running');
  });

  it("shows in status the guards of the person's game days and of live attacks, with their last state", async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    expect(read(await stack.ask(id, 'status', { channel }))).toContain(
      'Guards\nNone on your game days or live attacks.',
    );
    await stack.ask(id, 'gameday start Status drill --guard a:1234567', { channel });
    // An attack's own guard, besides the game day's.
    const { attack } = await startNow(id, 'attack cpu -l 300 -c 1 --guard b:CheckoutErrorRate');
    stack.sim.setMonitorState(1234567, 'Warn');
    await stack.poll();
    const status = read(await stack.ask(id, 'status', { channel }));
    expect(status).toContain(`checkout p99 latency (1234567): Warn · guards game day Status drill in <#${channel}>`);
    expect(status).toContain(`CheckoutErrorRate: inactive · guards cpu ${attack.guid}`);
  });
});

describe('a guarded attack whose card Slack did not take', () => {
  it('is still halted by its guard', async () => {
    const own = await Stack.start({ slackTimeoutMs: 200, env: { ATTACK_CHANNELS: channel, ...monitoringEnv } });
    try {
      const id = 'U0GUARDNOCARD';
      await own.login(id, own.sim.seed.users.owner, { team: 'Platform' });
      own.fake.faults.inject({ kind: 'hang', method: 'chat.postMessage' });
      const reply = await own.ask(id, 'attack cpu -l 300 -c 1 --guard a:1234567 --yes', { channel });
      expect(read(reply)).toContain('Started');
      own.fake.faults.clear();
      const guid = [...own.sim.state.attacks.keys()].at(-1)!;
      expect(
        own.fake
          .channel(channel)
          .messages()
          .some((m) => m.text().includes(guid)),
      ).toBe(false);
      await own.poll();
      own.sim.setMonitorState(1234567, 'Alert');
      await own.poll();
      expect(own.sim.state.attacks.get(guid)!.halt).toEqual(
        expect.objectContaining({ reason: 'guard checkout p99 latency (1234567) fired' }),
      );
    } finally {
      await own.stop();
    }
  });
});
