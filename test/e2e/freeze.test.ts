import { describe, expect, it } from 'vitest';
import { replicasForSuite, Stack, stackForFile } from './harness.ts';
import { SlackRecorder } from '../support/slackRecorder.ts';

const read = Stack.read;
const channel = 'C0GENERAL';
const other = 'C0GAMEDAY';
let stack: Stack;
stackForFile({ env: { ATTACK_CHANNELS: `${channel},${other}` } }, (started) => (stack = started));

let n = 0;
const nextPerson = () => `U0FREEZE${++n}`;
const users = () => stack.sim.seed.users;
const teams = () => stack.sim.seed.teams;
const creates = () =>
  stack.sim.requests.filter((r) => r.method === 'POST' && (r.path === '/attacks/new' || r.path === '/attacks'));
const channelText = (id = channel) => stack.fake.channel(id).messages().map(read).join('\n');

describe('freeze', () => {
  it("halts the team's running attacks, refuses every start there, shows on Home and status, and unfreeze allows starts again", async () => {
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
    expect(stack.sim.state.attacks.get(running)!.halt).toEqual(
      expect.objectContaining({ reason: 'frozen: checkout incident' }),
    );
    // Another team's attack runs on.
    expect(stack.sim.state.attacks.get(elsewhere)!.halt).toBeUndefined();

    const refused = await stack.ask(id, 'attack cpu -l 30', { channel });
    expect(read(refused)).toMatch(
      /Attacks in Payments are frozen by <@U0FREEZE\d+> since .*: checkout incident\. Nothing was started/,
    );
    expect(read(refused)).toContain('unfreeze --team Payments');
    expect(read(await stack.ask(id, 'attack cpu -l 30 --yes', { channel }))).toContain('frozen');
    const shown = stack.person(id).ephemerals(channel).length;
    await earlier.click('Start');
    await stack.fake.waitFor(
      () =>
        stack.person(id).ephemerals(channel).length > shown &&
        read(stack.person(id).ephemerals(channel).at(-1)).includes('frozen'),
      'the refused Start',
    );
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

  it('says why on the card of every attack it halted, and in its thread', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const { attack } = await stack.startAttack(id, 'attack cpu -l 300 -c 1 --target-tags role=web', channel);

    await stack.ask(id, 'freeze --reason "checkout incident"', { channel });
    await stack.built.services.slack.flush();
    expect(read(stack.cardIn(channel, attack.guid))).toContain(
      `Halt requested by <@${id}> (frozen: checkout incident)`,
    );
    expect(stack.threadOf(channel, attack.guid)).toContainEqual(
      `:snowflake: <@${id}>'s freeze halted this attack (frozen: checkout incident).`,
    );
    await stack.ask(id, 'unfreeze', { channel });
  });

  it('says why on the cards of the attacks it followed when it freezes every team', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const { attack } = await stack.startAttack(id, 'attack cpu -l 300 -c 1 --target-tags role=web', channel);

    await stack.ask(id, 'freeze --all --reason "major incident"', { channel });
    await stack.built.services.slack.flush();
    expect(read(stack.cardIn(channel, attack.guid))).toContain(`Halt requested by <@${id}> (frozen: major incident)`);
    expect(stack.threadOf(channel, attack.guid)).toContain(
      `:snowflake: <@${id}>'s freeze halted this attack (frozen: major incident).`,
    );
    await stack.ask(id, 'unfreeze --all', { channel });
  });

  it('takes a new reason when the team is frozen already, without a second announcement', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Search' });
    const announced = () => channelText().match(/froze attacks in Search/g)?.length ?? 0;
    const before = announced();
    await stack.ask(id, 'freeze --reason "reindex"', { channel });
    expect(announced()).toBe(before + 1);

    const again = read(await stack.ask(id, 'freeze --reason "reindex, then the upgrade"', { channel }));
    expect(again).toContain('Search was already frozen; the freeze now has your reason.');
    await stack.built.services.slack.flush();
    expect(announced()).toBe(before + 1);
    expect(read(await stack.ask(id, 'attack cpu -l 30', { channel }))).toMatch(
      /frozen by .*: reindex, then the upgrade/,
    );
    await stack.ask(id, 'unfreeze', { channel });
  });

  it("from a workflow, announces the freeze in the team's channels and says why on the cards it halted", async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Payments' });
    const { attack } = await stack.startAttack(id, 'attack cpu -l 300', other);

    const execution = await stack.fake.runStep('freeze_chaos', { reason: 'provider outage' }, { usedBy: id });
    await stack.fake.waitFor(() => execution.state !== 'running', 'the freeze step to end');
    expect(execution.state).toBe('completed');
    await stack.built.services.slack.flush();
    expect(channelText(other)).toMatch(/froze attacks in Payments: provider outage\. Halted 1 attack/);
    expect(read(stack.cardIn(other, attack.guid))).toContain(`Halt requested by <@${id}> (frozen: provider outage)`);
    expect(stack.threadOf(other, attack.guid)).toContain(
      `:snowflake: <@${id}>'s freeze halted this attack (frozen: provider outage).`,
    );
    await stack.ask(id, 'unfreeze', { channel });
  });

  it('from a workflow, announces the freeze in the channels that watch the team, else to whoever ran it', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Search' });
    const freezeStep = async (reason: string) => {
      const execution = await stack.fake.runStep('freeze_chaos', { team: 'Search', reason }, { usedBy: id });
      await stack.fake.waitFor(() => execution.state !== 'running', 'the freeze step to end');
      expect(execution.state).toBe('completed');
      await stack.built.services.slack.flush();
    };
    // Nothing of Search shows anywhere: the person who ran it reads the announcement.
    await freezeStep('reindex');
    expect(read(stack.fake.channel(id).messages().at(-1))).toMatch(/froze attacks in Search: reindex/);
    await stack.ask(id, 'unfreeze', { channel });

    await stack.ask(id, 'watch Search', { channel: other });
    await freezeStep('search outage');
    expect(channelText(other)).toMatch(/froze attacks in Search: search outage/);
    await stack.ask(id, 'unfreeze', { channel });
    await stack.ask(id, 'unwatch', { channel: other });
  });

  it('halts an attack that appears in a frozen team from elsewhere, within one poll, and says so where the freeze was declared', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Payments' });
    await stack.ask(id, 'freeze --team payments --reason "provider outage"', { channel: other });
    const sneaked = stack.sim.createAttackDirectly(teams().payments.id, {
      type: 'memory',
      args: ['-l', '120', '-p', '50'],
    });
    expect(stack.sim.state.attacks.get(sneaked)!.halt).toBeUndefined();

    await stack.poll();
    expect(stack.sim.state.attacks.get(sneaked)!.halt).toEqual(
      expect.objectContaining({ reason: 'frozen: provider outage' }),
    );
    await stack.fake.waitFor(
      () => channelText(other).includes(`Halted memory ${sneaked} in Payments: it started while the team is frozen.`),
      'the halt report',
    );
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

  it("freezes every team with --all through the platform's halt of everything, and refuses it to someone without HALT_ALL", async () => {
    const owner = nextPerson();
    await stack.login(owner, users().owner, { team: 'Platform' });
    const sre = nextPerson();
    await stack.login(sre, users().solo);

    const denied = read(await stack.ask(sre, 'freeze --all --reason "not mine to call"', { channel }));
    expect(denied).toMatch(/HALT_ALL|permission|privilege/i);
    expect(read(await stack.ask(sre, 'attack cpu -l 30', { channel }))).toContain('Start');

    expect(read(await stack.ask(owner, 'freeze --all --reason "major incident"', { channel }))).toContain(
      'every team is frozen',
    );
    expect(stack.sim.requests.some((r) => r.method === 'POST' && r.path === '/halts')).toBe(true);
    expect(read(await stack.ask(sre, 'attack cpu -l 30', { channel }))).toMatch(
      /Attacks in every team are frozen by .*: major incident/,
    );
    expect(read(await stack.ask(owner, 'unfreeze --team Platform', { channel }))).toContain('unfreeze --all');
    expect(read(await stack.ask(owner, 'unfreeze --all', { channel }))).toContain('no longer frozen');
    expect(read(await stack.ask(sre, 'attack cpu -l 30', { channel }))).toContain('Start');
  });

  it('lifts no newer freeze when an earlier unfreeze is sent again, byte for byte', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const recorder = await SlackRecorder.start(`http://127.0.0.1:${stack.bot.port}/slack/events`);
    stack.fake.setBotUrl(recorder.url);
    try {
      await stack.ask(id, 'freeze --reason "first drill"', { channel });
      expect(read(await stack.ask(id, 'unfreeze', { channel }))).toContain('Platform is no longer frozen');
      const [unfreeze] = recorder.find((fields) => fields.get('text') === 'unfreeze');
      await stack.ask(id, 'freeze --reason "real incident"', { channel });
      const lifted = () => channelText().match(/lifted the freeze on Platform/g)?.length ?? 0;
      const liftedBefore = lifted();

      // Within the five minutes Slack's signature lasts, the same bytes are a valid request.
      expect((await recorder.send(unfreeze!)).status).toBe(200);
      await stack.fake.waitFor(
        () => lifted() > liftedBefore || stack.logs.some((line) => String(line.msg).includes('came again')),
        'the replay handled',
      );
      expect(lifted()).toBe(liftedBefore);
      expect(read(await stack.ask(id, 'attack cpu -l 30', { channel }))).toMatch(/frozen by .*: real incident/);
      expect(read(await stack.ask(id, 'unfreeze', { channel }))).toContain('Platform is no longer frozen');
    } finally {
      stack.fake.setBotUrl(`http://127.0.0.1:${stack.bot.port}/slack/events`);
      await recorder.stop();
    }
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
    expect(await stack.built.services.guardrails.freezes.all()).toEqual([]);
    // A reason without --reason is taken as typed.
    expect(read(await stack.ask(id, 'freeze game day paused', { channel }))).toContain('Platform is frozen');
    expect((await stack.built.services.guardrails.freezes.get('team', teams().platform.id))?.reason).toBe(
      'game day paused',
    );
  });

  it('refuses a mistyped flag or stray words rather than freezing or unfreezing the selected team', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const typo = read(await stack.ask(id, 'freeze --tema Payments --reason x', { channel }));
    expect(typo).toMatch(/--tema is not an option of freeze\. Did you mean --team\?/);
    expect(read(await stack.ask(id, 'freeze --reason x --teams Payments', { channel }))).toMatch(
      /--teams .*Did you mean --team\?/,
    );
    expect(read(await stack.ask(id, 'freeze --all --reason x y', { channel }))).toMatch(
      /Put the whole reason in quotes/,
    );
    expect(await stack.built.services.guardrails.freezes.all()).toEqual([]);
    // Nothing of the selected team was halted either.
    expect(stack.sim.requests.some((r) => r.path.endsWith('/halt') || r.path === '/halts')).toBe(false);

    await stack.ask(id, 'freeze --reason "platform upgrade"', { channel });
    expect(read(await stack.ask(id, 'unfreeze --tema Payments', { channel }))).toMatch(
      /--tema is not an option of unfreeze\. Did you mean --team\?/,
    );
    expect(read(await stack.ask(id, 'unfreeze --reason done', { channel }))).toMatch(
      /--reason is not an option of unfreeze/,
    );
    expect((await stack.built.services.guardrails.freezes.get('team', teams().platform.id))?.reason).toBe(
      'platform upgrade',
    );
  });

  it('lets only someone who could have frozen it lift a freeze, and says what is missing', async () => {
    const owner = nextPerson();
    await stack.login(owner, users().owner, { team: 'Platform' });
    const observer = nextPerson();
    await stack.login(observer, users().observer);
    const solo = nextPerson();
    await stack.login(solo, users().solo);

    // Freezing needs the same: it could not halt anything there.
    expect(read(await stack.ask(observer, 'freeze --reason "not mine to call"', { channel }))).toMatch(
      /cannot freeze Platform: .*HALT_WRITE privilege on team Platform/,
    );
    expect(await stack.built.services.guardrails.freezes.all()).toEqual([]);
    await stack.ask(owner, 'freeze --reason "platform upgrade"', { channel });
    const lifted = () => channelText().match(/lifted the freeze/g)?.length ?? 0;
    const liftedBefore = lifted();
    const refused = read(await stack.ask(observer, 'unfreeze --team Platform', { channel }));
    expect(refused).toMatch(/HALT_WRITE privilege on team Platform/);
    // A refusal for want of a privilege is no typing mistake: no usage line after it.
    expect(refused).not.toContain('Usage');
    // Nothing to lift for every team: the freezes that do stand are named, with what lifts each.
    const none = read(await stack.ask(owner, 'unfreeze --all', { channel }));
    expect(none).toContain('There is no freeze of every team');
    expect(none).toContain('Platform');
    expect(none).toContain('unfreeze --team Platform');
    expect(await stack.built.services.guardrails.freezes.get('team', teams().platform.id)).toBeDefined();
    expect(lifted()).toBe(liftedBefore);

    await stack.ask(owner, 'freeze --all --reason "major incident"', { channel });
    expect(read(await stack.ask(solo, 'unfreeze --all', { channel }))).toMatch(/HALT_ALL privilege/);
    expect(await stack.built.services.guardrails.freezes.get('all')).toBeDefined();
    expect(read(await stack.ask(owner, 'unfreeze --all', { channel }))).toContain('no longer frozen');
  });

  it('refuses --all up front without HALT_ALL, and with it declares first and keeps the freeze when the halt of everything fails', async () => {
    const solo = nextPerson();
    await stack.login(solo, users().solo);
    expect(read(await stack.ask(solo, 'freeze --all --reason "not mine to call"', { channel }))).toMatch(
      /HALT_ALL privilege/,
    );
    expect(stack.sim.requests.some((r) => r.path === '/halts')).toBe(false);

    const owner = nextPerson();
    await stack.login(owner, users().owner, { team: 'Platform' });
    stack.sim.faults.inject({ method: 'POST', path: '/halts', kind: 'status', status: 500, times: Infinity });
    const reply = read(await stack.ask(owner, 'freeze --all --reason "major incident"', { channel }));
    expect(`${reply}\n${channelText()}`).toMatch(
      /froze attacks in every team: major incident\. :warning: Could not halt what already runs/,
    );
    expect(await stack.built.services.guardrails.freezes.get('all')).toBeDefined();
    expect(read(await stack.ask(solo, 'attack cpu -l 30', { channel }))).toMatch(/Attacks in every team are frozen/);
    stack.sim.faults.clear();
  });

  it('halts what it can find when Kubernetes attacks cannot be read, in every team of --all, and says so once', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Payments' });
    const running = stack.sim.createAttackDirectly(teams().payments.id);
    stack.sim.faults.inject({
      method: 'GET',
      path: '/kubernetes/attacks',
      kind: 'status',
      status: 503,
      times: Infinity,
    });
    await stack.ask(id, 'freeze --reason "checkout incident"', { channel });
    expect(stack.sim.state.attacks.get(running)!.halt).toBeDefined();
    expect(channelText()).toMatch(/Halted 1 attack: .*Could not read its Kubernetes attacks/);
    await stack.ask(id, 'unfreeze', { channel });

    await stack.ask(id, 'freeze --all --reason "major incident"', { channel });
    const sneaked = [teams().platform.id, teams().payments.id, teams().search.id].map((team) =>
      stack.sim.createAttackDirectly(team),
    );
    await stack.poll();
    for (const guid of sneaked)
      expect(stack.sim.state.attacks.get(guid)!.halt).toEqual(
        expect.objectContaining({ reason: 'frozen: major incident' }),
      );
    await stack.poll();
    await stack.built.services.slack.flush();
    const notices = channelText().match(/The freeze on every team could not read the Kubernetes attacks of Platform/g);
    expect(notices).toHaveLength(1);
    stack.sim.faults.clear();
  });

  it('retries a halt that failed on the next pass, and says once that it could not halt', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Payments' });
    await stack.ask(id, 'freeze --reason "provider outage"', { channel });
    const sneaked = stack.sim.createAttackDirectly(teams().payments.id);
    stack.sim.faults.inject({
      method: 'POST',
      path: `/attacks/${sneaked}/halt`,
      kind: 'status',
      status: 500,
      times: Infinity,
    });
    await stack.poll();
    await stack.poll();
    expect(stack.sim.state.attacks.get(sneaked)!.halt).toBeUndefined();
    stack.sim.faults.clear();
    await stack.poll();
    expect(stack.sim.state.attacks.get(sneaked)!.halt).toEqual(
      expect.objectContaining({ reason: 'frozen: provider outage' }),
    );
    await stack.fake.waitFor(() => channelText().includes(`Halted cpu ${sneaked} in Payments`), 'the halt report');
    expect(channelText().match(/Could not halt cpu/g)).toHaveLength(1);
  });

  it("says once in its channel when the declarer's session is refused or the declarer left the team", async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Search' });
    await stack.ask(id, 'freeze --reason "reindex"', { channel });
    stack.sim.expireSession(users().owner.email);
    stack.sim.createAttackDirectly(teams().search.id);
    await stack.poll();
    await stack.poll();
    await stack.fake.waitFor(
      () =>
        /The freeze on Search cannot halt attacks started elsewhere: the platform no longer accepts the session of <@U0FREEZE\d+>/.test(
          channelText(),
        ),
      'the session notice',
    );
    expect(channelText().match(/no longer accepts the session/g)).toHaveLength(1);

    // Logged in again, as someone who is not in the frozen team.
    const left = nextPerson();
    await stack.login(left, users().owner, { team: 'Payments' });
    await stack.ask(left, 'freeze --reason "provider outage"', { channel: other });
    await stack.ask(left, 'logout', { channel: other });
    await stack.person(left).modal()?.close();
    await stack.login(left, users().solo);
    await stack.poll();
    await stack.poll();
    await stack.fake.waitFor(
      () =>
        /The freeze on Payments cannot halt attacks started elsewhere: <@U0FREEZE\d+> is no longer in Payments/.test(
          channelText(other),
        ),
      'the membership notice',
    );
    expect(channelText(other).match(/is no longer in Payments/g)).toHaveLength(1);
  });
});

const redisUrl = process.env.REDIS_URL;

describe.skipIf(!redisUrl)('freeze on a shared Redis store', () => {
  let first: Stack;
  let second: Stack;
  replicasForSuite(redisUrl!, (a, b) => ([first, second] = [a, b]));

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
