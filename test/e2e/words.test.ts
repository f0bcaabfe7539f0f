import { describe, expect, it } from 'vitest';
import { monitoringEnv, Stack, stackForFile } from './harness.ts';

/** Small things the bot said that were not so, or not enough: each as a person meets it. */
const read = Stack.read;
const channel = 'C0GAMEDAY';
let stack: Stack;
stackForFile({ env: monitoringEnv }, (started) => (stack = started));

let n = 0;
const nextPerson = () => `U0WORDS${++n}`;
const ownerIn = async (team: string) => {
  const id = nextPerson();
  await stack.login(id, stack.sim.seed.users.owner, { team });
  return id;
};

describe('a word a letter or two off', () => {
  it('gets "Did you mean", with the usage line of what was meant', async () => {
    const id = await ownerIn('Payments');
    const said = async (text: string) => read(await stack.ask(id, text, { channel }));

    const freeze = await said('freeze --team Serch --reason "load test"');
    expect(freeze).toContain('None of your teams matches “Serch”. Did you mean Search?');
    expect(freeze).toContain('Usage: /chaos freeze [--team name | --all] --reason text');

    const team = await said('team Paymnts');
    expect(team).toContain('None of your teams matches “Paymnts”. Did you mean Payments?');
    expect(team).toContain('Usage: /chaos team [name or id]');

    const help = await said('help atack');
    expect(help).toContain('There is no subcommand “atack”. Did you mean /chaos help attack?');
    expect(help).toContain('Usage: /chaos help [subcommand]');

    const gameday = await said('gameday strat Checkout drill');
    expect(gameday).toContain('“strat” is not a game-day action. Did you mean gameday start?');
    expect(gameday).toMatch(
      /Usage: \/chaos gameday start <title> \[--rehearsal\] \[--guard a:<monitor id>\] \[--guard b:<alert name>\]$/,
    );

    // Nothing near: no guess, and the whole list.
    const far = await said('gameday xyzzy');
    expect(far).not.toContain('Did you mean');
    expect(far).toContain('gameday auto on [--wait 5m]');
  });
});

describe('what the bot says of what exists', () => {
  it('names the saved attack a new name clashes with, as it was saved', async () => {
    const id = await ownerIn('Payments');
    expect(read(await stack.ask(id, 'save web-cpu cpu -l 60 --target-tags role=web', { channel }))).toContain(
      'Saved web-cpu',
    );
    const clash = read(await stack.ask(id, 'save WEB-CPU cpu -l 30 --target-tags role=web', { channel }));
    expect(clash).toContain('Team Payments already has a saved attack named web-cpu.');
    expect(clash).not.toContain('WEB-CPU');
  });

  it('says the team once on the card of an attack on every active client', async () => {
    const id = await ownerIn('Payments');
    const { card } = await stack.startAttack(id, 'attack cpu -l 60 -c 1', channel);
    expect(read(card)).toContain('on every active client of team Payments');
    expect(read(card)).not.toContain('in team Payments');
    expect(card.fallbackText).toContain('cpu attack on every active client of team Payments: ');
  });
});

describe('a guard that watches nothing', () => {
  it('refuses the start, rather than offering Start anyway, and starts nothing', async () => {
    const id = await ownerIn('Payments');
    const before = stack.sim.state.attacks.size;
    for (const text of [
      'attack cpu -l 60 --target-tags role=web --guard a:9999999',
      'attack cpu -l 60 --target-tags role=web --guard a:9999999 --yes',
    ]) {
      const reply = await stack.ask(id, text, { channel });
      expect(read(reply)).toContain(
        'Not started: the platform has no monitor 9999999, so that guard could never halt this attack.',
      );
      expect(reply.buttons().map((b) => b.text)).not.toContain('Start anyway');
    }
    expect(stack.sim.state.attacks.size).toBe(before);
    // A monitor that exists still guards the preview as before.
    const guarded = await stack.ask(id, 'attack cpu -l 60 --target-tags role=web --guard a:1234567', { channel });
    expect(guarded.buttons().map((b) => b.text)).toContain('Start');
  });
});

describe('Halt and Halt all', () => {
  it('are offered only to people who may halt, and a refused halt logs no stack trace', async () => {
    const owner = await ownerIn('Platform');
    const { card } = await stack.startAttack(owner, 'attack cpu -l 600 -c 1 --target-tags role=web', channel);
    const buttonsOf = async (id: string) => (await stack.ask(id, 'list', { channel })).buttons().map((b) => b.text);

    const ownList = await stack.ask(owner, 'list', { channel });
    expect(ownList.buttons().map((b) => b.text)).toEqual(expect.arrayContaining(['Halt', 'Halt all']));
    // One page: no page number.
    expect(read(ownList)).not.toContain('Page 1');

    // solo may halt in the team (HALT_WRITE), not everything at once (HALT_ALL, a company privilege).
    const solo = nextPerson();
    await stack.login(solo, stack.sim.seed.users.solo);
    const soloButtons = await buttonsOf(solo);
    expect(soloButtons).toContain('Halt');
    expect(soloButtons).not.toContain('Halt all');

    // An observer may do neither.
    const observer = nextPerson();
    await stack.login(observer, stack.sim.seed.users.observer);
    const observerButtons = await buttonsOf(observer);
    expect(observerButtons).not.toContain('Halt');
    expect(observerButtons).not.toContain('Halt all');

    // App Home, the person's own tab, offers what their session may do, as the list does.
    const homeButtons = async (id: string) => (await stack.openHome(id)).buttons().map((b) => b.text);
    expect(await homeButtons(owner)).toEqual(expect.arrayContaining(['Halt', 'Halt all']));
    expect(await homeButtons(solo)).toContain('Halt');
    expect(await homeButtons(solo)).not.toContain('Halt all');
    expect(await homeButtons(observer)).not.toContain('Halt');
    expect(await homeButtons(observer)).not.toContain('Halt all');

    // The card is the channel's, so its Halt is there for everyone: the platform refuses the observer.
    const logged = stack.logText().length;
    await stack
      .person(observer)
      .channel(channel)
      .messages()
      .find((m) => m.ts === card.ts)!
      .click('Halt');
    const refusal = await stack.fake.waitFor(
      () =>
        stack
          .person(observer)
          .ephemerals(channel)
          .find((m) => !read(m).startsWith('Active ad-hoc attacks')),
      'the refusal',
    );
    expect(read(refusal)).toContain('HALT_WRITE');
    const log = stack.logText().slice(logged);
    expect(log).not.toContain('"stack"');
    expect(log).not.toMatch(/\bat .*\.ts:\d+/);
    expect(log).toContain('the platform refused a person a privilege');
  });
});

describe('the team picker', () => {
  it('comes up with the current team chosen, from the command, from Home and on logging in again', async () => {
    const id = await ownerIn('Search');
    const person = stack.person(id);
    const chosen = async () => {
      const picker = await stack.fake.waitFor(
        () => person.modal()?.callbackId === 'team_picker' && person.modal(),
        'the team picker',
      );
      const value = picker.values()['team_choice']?.['team_choice'] as
        | { selected_option?: { text: { text: string } } | null }
        | undefined;
      await picker.close();
      return value?.selected_option?.text.text;
    };
    await person.command('team', { channel });
    expect(await chosen()).toBe('Search');
    const home = await stack.openHome(id);
    await home.click('Switch team');
    expect(await chosen()).toBe('Search');
    await stack.submitLogin(id, stack.sim.seed.users.owner);
    expect(await chosen()).toBe('Search');
  });
});
