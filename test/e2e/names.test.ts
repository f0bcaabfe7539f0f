import { startFakeSlack } from '@faultline/fake-slack';
import { describe, expect, it } from 'vitest';
import { Stack, stackForFile, trackerEnv } from './harness.ts';

const read = Stack.read;
const channel = 'C0GAMEDAY';
let stack: Stack;
stackForFile({ env: trackerEnv }, (started) => (stack = started));

let n = 0;
/** A person with a full name and a display name in Slack, as users.info reports them. */
function namedPerson(s: Stack, realName: string, displayName: string): string {
  const id = `U0NAMED${++n}`;
  s.fake.user(id, { name: displayName.toLowerCase(), realName, displayName });
  return id;
}

const slackIds = /\bU0[A-Z0-9]+\b/;

/** Clicks Halt on a card as a person, and waits until the card records the halt. */
async function haltFromCard(s: Stack, personId: string, card: { ts: string }) {
  await s
    .person(personId)
    .channel(channel)
    .messages()
    .find((m) => m.ts === card.ts)!
    .click('Halt');
  await s.fake.waitFor(
    () =>
      s
        .person(personId)
        .ephemerals(channel)
        .some((m) => read(m).includes('Halt requested')),
    'the halt confirmation',
  );
}

const usersInfoAsked = (s: Stack, id: string) =>
  s.fake.callsTo('users.info').filter((call) => call.args['user'] === id).length;

describe('people are named by name outside Slack', () => {
  it('an attack ticket names who started and who halted it; the card keeps mentions', async () => {
    const alice = namedPerson(stack, 'Alice Moreau', 'alice');
    const bob = namedPerson(stack, 'Bob Okafor', 'bob');
    await stack.login(alice, stack.sim.seed.users.owner, { team: 'Platform' });
    await stack.login(bob, stack.sim.seed.users.owner, { team: 'Platform' });
    const { attack, card } = await stack.startAttack(alice, 'attack cpu -l 300 -c 1 --target-tags role=web', channel);
    await haltFromCard(stack, bob, card);
    expect(stack.sim.state.attacks.get(attack.guid)!.halt).toBeDefined();

    await stack
      .person(alice)
      .channel(channel)
      .messages()
      .find((m) => m.ts === card.ts)!
      .click('File ticket');
    const ticket = await stack.fileOpenTicket(alice);
    expect(ticket.description).toContain('Started by: Alice Moreau in Slack');
    expect(ticket.description).toMatch(/Halted by: Bob Okafor at \d{4}-/);
    expect(ticket.description).not.toMatch(slackIds);

    // In Slack, people stay mentions, which Slack itself draws as their names.
    await stack.built.services.slack.flush();
    expect(
      read(
        stack.fake
          .channel(channel)
          .messages()
          .find((m) => m.ts === card.ts),
      ),
    ).toContain(`<@${alice}>`);
  });

  it('the game-day ticket names the facilitator, starters, halters and note writers, each asked of Slack once', async () => {
    const lena = namedPerson(stack, 'Lena Park', 'lena');
    const sam = namedPerson(stack, '', 'sam.r');
    await stack.login(lena, stack.sim.seed.users.owner, { team: 'Platform' });
    await stack.login(sam, stack.sim.seed.users.owner, { team: 'Platform' });
    // A login reads the profile's e-mail afresh each time; names are asked apart from it.
    const atLogin = { lena: usersInfoAsked(stack, lena), sam: usersInfoAsked(stack, sam) };
    await stack.ask(lena, 'gameday start Checkout drill', { channel });
    const gameCard = await stack.fake.waitFor(
      () =>
        stack.fake
          .channel(channel)
          .messages()
          .find((m) => read(m).includes('Game day: Checkout drill')),
      'the game-day card',
    );
    const first = await stack.startAttack(sam, 'attack cpu -l 30 --target-tags role=web', channel);
    const second = await stack.startAttack(lena, 'attack latency -l 300 -m 200', channel);
    await haltFromCard(stack, sam, second.card);
    await stack.person(sam).command(`note ${first.attack.guid} error rate stayed flat`, { channel });
    // The note on the platform names its writer too: a display name stands in for a missing full name.
    const notes = () => Object.values(stack.sim.state.attacks.get(first.attack.guid)!.annotations);
    await stack.fake.waitFor(
      () =>
        stack.fake
          .channel(channel)
          .thread(gameCard.ts)
          .some((m) => read(m).includes('error rate stayed flat')),
      'the note in the timeline',
    );
    expect(notes()).toEqual(['error rate stayed flat (sam.r)']);

    // The cpu attack still runs: ending warns first, and End anyway ends it.
    const warning = await stack.ask(lena, 'gameday end', { channel });
    await warning.click('End anyway');
    const summary = await stack.fake.waitFor(
      () =>
        stack
          .person(lena)
          .channel(channel)
          .messages()
          .find((m) => /summary/i.test(read(m))),
      'the summary',
    );
    expect(read(summary)).toContain(`<@${sam}>`);
    await summary.click('File ticket for the game day');
    const ticket = await stack.fileOpenTicket(lena);

    expect(ticket.entity.type).toBe('GAME_DAY');
    expect(ticket.description).toContain('Facilitator: Lena Park');
    expect(ticket.description).toMatch(/- cpu .* started by sam\.r: /);
    expect(ticket.description).toMatch(/- latency .* started by Lena Park: .*, halted by sam\.r \[/);
    expect(ticket.description).toMatch(/- error rate stayed flat \(sam\.r, \d\d:\d\d UTC\)/);
    expect(ticket.description).not.toContain('Slack user');
    expect(ticket.description).not.toMatch(slackIds);
    expect(usersInfoAsked(stack, lena) - atLogin.lena).toBe(1);
    expect(usersInfoAsked(stack, sam) - atLogin.sam).toBe(1);
  });

  it('halt all tells the platform who halted, by name', async () => {
    const alice = namedPerson(stack, 'Alice Moreau', 'alice');
    await stack.login(alice, stack.sim.seed.users.owner, { team: 'Platform' });
    const [guid] = stack.sim.addAttacks(stack.sim.seed.teams.platform.id, 1);
    const prompt = await stack.ask(alice, 'halt all', { channel });
    await prompt.click('Halt all attacks', { confirm: true });
    await stack.fake.waitFor(() => stack.sim.state.attacks.get(guid!)!.halt, 'the halt');
    expect(stack.sim.state.attacks.get(guid!)!.halt!.reason).toBe('Halted from Slack by Alice Moreau');
    // One attack was active: said in the singular.
    const said = await stack.fake.waitFor(
      () =>
        stack
          .person(alice)
          .ephemerals(channel)
          .map(read)
          .find((text) => text.includes('halted 1 attack')),
      'the halt-all reply',
    );
    expect(said).toContain(`<@${alice}> halted 1 attack.`);
  });
});

describe('when Slack does not tell a name', () => {
  it('files the ticket with the user id in place of the name', async () => {
    // A token without users:read: Slack refuses users.info with missing_scope.
    const fake = await startFakeSlack({
      signingSecret: Stack.signingSecret,
      botToken: Stack.botToken,
      scopes: ['commands', 'chat:write', 'chat:write.public', 'channels:read', 'groups:read'],
    });
    // Without users:read no e-mail can be matched either: only a Faultline that does not match them logs in.
    const local = await Stack.start({ fake, env: { ...trackerEnv, LOGIN_EMAIL_MATCH: 'off' } });
    try {
      const alice = namedPerson(local, 'Alice Moreau', 'alice');
      await local.login(alice, local.sim.seed.users.owner, { team: 'Platform' });
      const { card } = await local.startAttack(alice, 'attack cpu -l 30', channel);
      await card.click('File ticket');
      const ticket = await local.fileOpenTicket(alice);
      expect(ticket.description).toContain(`Started by: ${alice} in Slack`);
      expect(local.fake.failures().map((call) => [call.method, call.error])).toEqual([
        ['users.lookupByEmail', 'missing_scope'],
        ['users.info', 'missing_scope'],
      ]);
      expect(local.errorLogs()).toEqual([]);
      expect(local.logs.some((line) => line.level === 'warn' && /name/.test(line.msg))).toBe(true);
    } finally {
      await local.stop();
      await fake.stop();
    }
  });
});
