import type { Message } from '@faultline/fake-slack';
import { describe, expect, it } from 'vitest';
import { Stack, stackForFile } from './harness.ts';

/**
 * Game days end to end: the bot, the fake Slack and the simulator. Every attack of a game day
 * shows in its timeline and its summary as it really went, including the ones that never ran,
 * and a game day never ends quietly over attacks that are still running.
 */

const read = Stack.read;
const where = 'C0GAMEDAY';
let stack: Stack;
stackForFile({}, (started) => (stack = started));

let n = 0;
const nextPerson = () => `U0GAMEDAY${++n}`;
const users = () => stack.sim.seed.users;

async function startGameDay(personId: string, title: string) {
  expect(read(await stack.ask(personId, `gameday start ${title}`, { channel: where }))).toContain('started');
  return stack.fake.waitFor(
    () =>
      stack
        .person(personId)
        .channel(where)
        .messages()
        .find((m) => read(m).includes(`Game day: ${title}`)),
    'the game-day card',
  );
}

const startedAttack = (personId: string, text: string) => stack.startAttack(personId, text, where);

const timeline = (card: Message) => stack.fake.channel(where).thread(card.ts).map(read).join('\n');
const summaryOf = (title: string) =>
  stack.fake
    .channel(where)
    .messages()
    .find((m) => read(m).includes(`Game day summary: ${title}`));

describe('attacks that fail to start during a game day', () => {
  it('an attack that ends Target Not Found is in the timeline and the summary, with the reason', async () => {
    const lead = nextPerson();
    await stack.login(lead, users().owner, { team: 'Platform' });
    const gameCard = await startGameDay(lead, 'Missing hosts drill');
    // The host is there when Faultline checks the target, and gone by the time the platform
    // creates the attack: the create is held until the host has left.
    stack.sim.clients.addHost(stack.sim.seed.teams.platform.id, 'platform-web-9', { role: 'web' });
    stack.sim.faults.inject({ method: 'POST', path: '/attacks/new', kind: 'latency', ms: 60_000 });
    const creates = () => stack.sim.requests.filter((r) => r.method === 'POST' && r.path === '/attacks/new').length;
    const before = creates();
    const started = startedAttack(lead, 'attack cpu -l 30 --target-hosts platform-web-9');
    await stack.fake.waitFor(() => creates() > before, 'the create at the platform');
    stack.sim.clients.remove('platform-web-9');
    stack.sim.faults.clear();
    const { attack } = await started;

    // Past Pending: the platform found nothing to attack.
    stack.advanceClock(5_000);
    await stack.poll();
    const line = await stack.fake.waitFor(
      () =>
        stack.fake
          .channel(where)
          .thread(gameCard.ts)
          .map(read)
          .find((text) => text.includes('Failed: target not found')),
      'the failure in the timeline',
    );
    expect(line).toContain(attack.guid);
    expect(line).toContain('cpu');
    expect(line).toMatch(/no host or container matched/i);
    expect(line).toContain('platform-web-9');

    await stack.ask(lead, 'gameday end', { channel: where });
    const summary = await stack.fake.waitFor(() => summaryOf('Missing hosts drill'), 'the summary');
    expect(read(summary)).toMatch(
      new RegExp(`cpu ${attack.guid}[^\\n]*Target Not Found[^\\n]*no host or container matched`, 'i'),
    );
  });

  it('a start the platform refuses is in the timeline and the summary, with the reason, and nothing runs', async () => {
    const lead = nextPerson();
    const observer = nextPerson();
    await stack.login(lead, users().owner, { team: 'Platform' });
    await stack.login(observer, users().observer, {});
    const gameCard = await startGameDay(lead, 'Privileges drill');

    const refused = await stack.ask(observer, 'attack cpu -l 30 --target-tags role=web --yes', { channel: where });
    expect(read(refused)).toContain('lacks');
    expect(stack.sim.state.attacks.size).toBe(0);
    const line = await stack.fake.waitFor(
      () =>
        stack.fake
          .channel(where)
          .thread(gameCard.ts)
          .map(read)
          .find((text) => text.includes('could not start')),
      'the refusal in the timeline',
    );
    expect(line).toContain(`<@${observer}>`);
    expect(line).toContain('cpu');
    expect(line).toContain('role=web');
    expect(line).toMatch(/EXPERIMENTS_RUN/);

    await stack.ask(lead, 'gameday end', { channel: where });
    const summary = read(await stack.fake.waitFor(() => summaryOf('Privileges drill'), 'the summary'));
    expect(summary).toMatch(/did not start/i);
    expect(summary).toMatch(new RegExp(`cpu[^\\n]*<@${observer}>[^\\n]*EXPERIMENTS_RUN`));
    // The refusal is not an attack of the game day: nothing ran.
    expect(summary).toContain('No attacks were started');
  });
});

describe('ending a game day while attacks run', () => {
  it('gameday end warns and names them; Halt all and end halts them, ends, and the summary follows them to their end', async () => {
    const lead = nextPerson();
    const person = await stack.login(lead, users().owner, { team: 'Platform' });
    const gameCard = await startGameDay(lead, 'Halt on end drill');
    const { attack } = await startedAttack(lead, 'attack cpu -l 300 --target-tags role=web');
    stack.advanceClock(10_000);

    const warning = await stack.ask(lead, 'gameday end', { channel: where });
    expect(read(warning)).toMatch(/still running/i);
    expect(read(warning)).toContain(attack.guid);
    expect(warning.buttons().map((b) => b.text)).toEqual(['Halt all and end', 'End anyway', 'Cancel']);
    expect(summaryOf('Halt on end drill')).toBeUndefined();
    expect(read(await stack.ask(lead, 'gameday status', { channel: where }))).toContain('running');

    await person
      .ephemerals(where)
      .find((m) => m.ts === warning.ts)!
      .click('Halt all and end');
    await stack.fake.waitFor(
      () => stack.sim.state.attacks.get(attack.guid)!.timeline.haltedAt !== undefined,
      'the halt',
    );
    const summary = await stack.fake.waitFor(() => summaryOf('Halt on end drill'), 'the summary');
    expect(read(summary)).toContain(`halted by <@${lead}>`);
    expect(timeline(gameCard)).toContain('halted');

    // The platform finishes the halt after the game day ended; the summary learns it.
    stack.advanceClock(10_000);
    await stack.poll();
    await stack.fake.waitFor(
      () => read(summaryOf('Halt on end drill')).match(/cpu[^\n]*User Halted/),
      'the summary updated with the final outcome',
    );
    expect(
      stack.fake
        .channel(where)
        .messages()
        .filter((m) => read(m).includes('Game day summary: Halt on end drill')),
    ).toHaveLength(1);
  });

  it('Halt all and end makes the report once the halts have landed, with how each attack ended', async () => {
    const lead = nextPerson();
    const person = await stack.login(lead, users().owner, { team: 'Platform' });
    await startGameDay(lead, 'Report after halts drill');
    const { attack } = await startedAttack(lead, 'attack cpu -l 300 --target-tags role=web');
    stack.advanceClock(10_000);
    const filesBefore = stack.fake.files().length;
    const reportFile = () =>
      stack.fake
        .files()
        .slice(filesBefore)
        .find((file) => file.channel === where);

    const warning = await stack.ask(lead, 'gameday end', { channel: where });
    await person
      .ephemerals(where)
      .find((m) => m.ts === warning.ts)!
      .click('Halt all and end');
    await stack.fake.waitFor(() => summaryOf('Report after halts drill'), 'the summary');
    await stack.fake.waitFor(
      () => read(person.ephemerals(where).find((m) => m.ts === warning.ts)).includes('Halted 1 attack and ended'),
      'the end said',
    );
    // The attack is still halting: a report now would say so, and never change.
    await stack.poll();
    expect(reportFile()).toBeUndefined();

    stack.advanceClock(10_000);
    await stack.poll();
    await stack.poll();
    const report = await stack.fake.waitFor(reportFile, 'the report, once the halt landed');
    expect(report.text).toContain(attack.guid);
    expect(report.text).toMatch(/User Halted/);
    expect(report.text).not.toMatch(/Halting/);
  });

  it('End anyway ends with the attack running, and the summary is updated once it ends', async () => {
    const lead = nextPerson();
    const person = await stack.login(lead, users().owner, { team: 'Platform' });
    await startGameDay(lead, 'Run on drill');
    const { attack } = await startedAttack(lead, 'attack cpu -l 30 --target-tags role=web');
    stack.advanceClock(10_000);

    const warning = await stack.ask(lead, 'gameday end', { channel: where });
    await person
      .ephemerals(where)
      .find((m) => m.ts === warning.ts)!
      .click('End anyway');
    const summary = await stack.fake.waitFor(() => summaryOf('Run on drill'), 'the summary');
    expect(read(summary)).toMatch(/cpu[^\n]*Running/);
    expect(stack.sim.state.attacks.get(attack.guid)!.timeline.haltedAt).toBeUndefined();

    stack.advanceClock(60_000);
    await stack.poll();
    await stack.fake.waitFor(
      () => read(summaryOf('Run on drill')).match(/cpu[^\n]*Successful/),
      'the summary updated with the final outcome',
    );
    expect(read(summaryOf('Run on drill'))).not.toMatch(/Running/);
  });

  it('the End button on the card warns too, and Cancel keeps the game day running', async () => {
    const lead = nextPerson();
    const person = await stack.login(lead, users().owner, { team: 'Platform' });
    const gameCard = await startGameDay(lead, 'Button drill');
    const { attack } = await startedAttack(lead, 'attack cpu -l 300 --target-tags role=web');

    const before = person.ephemerals(where).length;
    await gameCard.click('End game day', { confirm: true });
    const warning = await stack.fake.waitFor(
      () => person.ephemerals(where).length > before && person.ephemerals(where).at(-1),
      'the warning',
    );
    expect(read(warning)).toContain(attack.guid);
    await warning.click('Cancel');
    await stack.fake.waitFor(
      () =>
        read(person.ephemerals(where).find((m) => m.ts === warning.ts)).match(/goes on/) &&
        !person
          .ephemerals(where)
          .find((m) => m.ts === warning.ts)!
          .buttons().length,
      'the warning replaced',
    );
    expect(summaryOf('Button drill')).toBeUndefined();
    expect(read(await stack.ask(lead, 'gameday status', { channel: where }))).toMatch(/Button drill · running/);
    expect(stack.sim.state.attacks.get(attack.guid)!.timeline.haltedAt).toBeUndefined();
  });

  it('with nothing running, gameday end ends at once', async () => {
    const lead = nextPerson();
    await stack.login(lead, users().owner, { team: 'Platform' });
    await startGameDay(lead, 'Quiet drill');
    await startedAttack(lead, 'attack cpu -l 30 --target-tags role=web');
    stack.advanceClock(120_000);
    expect(read(await stack.ask(lead, 'gameday end', { channel: where }))).toContain('ended');
    expect(read(await stack.fake.waitFor(() => summaryOf('Quiet drill'), 'the summary'))).toMatch(
      /cpu[^\n]*Successful/,
    );
  });
});

describe('who may start and end a game day', () => {
  const running = (title: string) =>
    stack.fake
      .channel(where)
      .messages()
      .some((m) => read(m).includes(`Game day: ${title}`));

  it('refuses a start to someone not logged in, or without EXPERIMENTS_RUN on their team, and says why', async () => {
    const stranger = nextPerson();
    expect(read(await stack.ask(stranger, 'gameday start Unvetted drill', { channel: where }))).toContain(
      'You are not logged in to the platform',
    );
    const observer = nextPerson();
    await stack.login(observer, users().observer, {});
    expect(read(await stack.ask(observer, 'gameday start Watchers drill', { channel: where }))).toMatch(
      /Platform[^\n]*EXPERIMENTS_RUN/,
    );
    expect(running('Unvetted drill') || running('Watchers drill')).toBe(false);
  });

  it('lets only its facilitator, or someone with HALT_WRITE on its team, end it, End anyway included', async () => {
    const lead = nextPerson();
    await stack.login(lead, users().owner, { team: 'Platform' });
    await startGameDay(lead, 'Who ends drill');
    await startedAttack(lead, 'attack cpu -l 300 --target-tags role=web');
    const stillRunning = async () =>
      read(await stack.ask(lead, 'gameday status', { channel: where })).includes('Who ends drill · running');

    const stranger = nextPerson();
    const refused = read(await stack.ask(stranger, 'gameday end', { channel: where }));
    expect(refused).toContain(`<@${lead}>`);
    expect(refused).toContain('HALT_WRITE');
    const observer = nextPerson();
    await stack.login(observer, users().observer, {});
    expect(read(await stack.ask(observer, 'gameday end', { channel: where }))).toMatch(/HALT_WRITE[^\n]*Platform/);
    expect(await stillRunning()).toBe(true);

    // Warned while they could end it, then logged out: End anyway is refused too.
    const leaving = nextPerson();
    const person = await stack.login(leaving, users().owner, { team: 'Platform' });
    const warning = await stack.ask(leaving, 'gameday end', { channel: where });
    expect(read(warning)).toContain('End anyway');
    await stack.ask(leaving, 'logout', { channel: where });
    const before = person.ephemerals(where).length;
    await warning.click('End anyway');
    const answer = await stack.fake.waitFor(
      () => person.ephemerals(where).length > before && person.ephemerals(where).at(-1),
      'the refusal',
    );
    expect(read(answer)).toContain('HALT_WRITE');
    expect(await stillRunning()).toBe(true);

    // Someone else with HALT_WRITE on the team may.
    const colleague = nextPerson();
    await stack.login(colleague, users().sre, { team: 'Platform', mfaCode: stack.sim.seed.mfaCode });
    const ending = await stack.ask(colleague, 'gameday end', { channel: where });
    await ending.click('End anyway');
    await stack.fake.waitFor(() => summaryOf('Who ends drill'), 'the summary');
  });
});

describe('starting a game day', () => {
  it('refuses a flag other than --guard instead of keeping it in the title, and keeps a quoted title as typed', async () => {
    const lead = nextPerson();
    await stack.login(lead, users().owner, { team: 'Platform' });
    const refused = read(await stack.ask(lead, 'gameday start Drill --team Payments', { channel: where }));
    expect(refused).toMatch(/--team is not an option of gameday start: it takes a title and --guard/);
    expect(await stack.built.services.gamedays.days.running(where)).toBeUndefined();
    expect(read(await stack.ask(lead, 'gameday start Drill -t 5', { channel: where }))).toMatch(
      /-t is not an option of gameday start/,
    );
    expect(await stack.built.services.gamedays.days.running(where)).toBeUndefined();

    expect(read(await stack.ask(lead, 'gameday start "Drill --team Payments"', { channel: where }))).toContain(
      'started',
    );
    expect((await stack.built.services.gamedays.days.running(where))?.title).toContain('Drill --team Payments');
  });
});

describe('gameday status', () => {
  it('shows how each attack went, as the summary will', async () => {
    const lead = nextPerson();
    await stack.login(lead, users().owner, { team: 'Platform' });
    await startGameDay(lead, 'Status drill');
    const { attack } = await startedAttack(lead, 'attack cpu -l 30 --target-tags role=web');
    stack.advanceClock(120_000);
    await stack.poll();
    await stack.fake.waitFor(
      () =>
        read(
          stack.fake
            .channel(where)
            .messages()
            .find((m) => read(m).includes(attack.guid) && read(m).includes('Successful')),
        ),
      'the card ended',
    );
    const status = read(await stack.ask(lead, 'gameday status', { channel: where }));
    expect(status).toMatch(new RegExp(`cpu ${attack.guid}[^\\n]*Successful`));
  });
});
