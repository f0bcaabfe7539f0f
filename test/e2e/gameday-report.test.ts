import type { UploadedFile } from '@faultline/fake-slack';
import { beforeEach, describe, expect, it } from 'vitest';
import { Stack, stackForFile, trackerEnv } from './harness.ts';

/**
 * The full report of a game day, end to end: the bot, the fake Slack and the simulator. The
 * report holds every attack of the game day's window, the ones started outside the channel too,
 * with each target's execution and the tickets filed, and it never stands in the way of the end.
 */

const read = Stack.read;
const where = 'C0REPORT';
let stack: Stack;
stackForFile({ env: trackerEnv }, (started) => (stack = started));

const startedAttack = (personId: string, text: string) => stack.startAttack(personId, text, where);
const fileOpenTicket = (personId: string) => stack.fileOpenTicket(personId);
let n = 0;
/** A person with a full name in Slack, as users.info reports it. */
function namedPerson(realName: string): string {
  const id = `U0REPORT${++n}`;
  stack.fake.user(id, { name: realName.split(' ')[0]!.toLowerCase(), realName });
  return id;
}

const users = () => stack.sim.seed.users;
const teams = () => stack.sim.seed.teams;

async function startGameDay(personId: string, title: string) {
  expect(read(await stack.ask(personId, `gameday start ${title}`, { channel: where }))).toContain('started');
}

const summaryOf = (title: string) =>
  stack.fake
    .channel(where)
    .messages()
    .find((m) => read(m).includes(`Game day summary: ${title}`));
/** The fake Slack lives as long as the file: files shared before this test are not its. */
let filesBefore = 0;
beforeEach(() => {
  filesBefore = stack.fake.files().length;
});
const reportFiles = () =>
  stack.fake
    .files()
    .slice(filesBefore)
    .filter((file) => file.channel === where);

/** The report's section about one attack: from its heading to the next. */
function sectionOf(file: UploadedFile, guid: string): string {
  return file.text.split(/\n(?=#{2,3} )/).find((part) => part.startsWith('### ') && part.includes(guid)) ?? '';
}

/**
 * A game day of Nora's: a cpu attack started in the channel on the web hosts, and a memory attack
 * a colleague started in the platform's web UI on every host of the team, each with a ticket.
 */
async function gameDayWithTwoAttacks(title: string) {
  const nora = namedPerson('Nora Quinn');
  const person = await stack.login(nora, users().owner, { team: 'Platform' });
  await startGameDay(nora, title);
  const inChat = await startedAttack(nora, 'attack cpu -l 30 -c 1 --target-tags role=web');
  const elsewhere = stack.sim.createAttackDirectly(teams().platform.id, {
    type: 'memory',
    args: ['-l', '30', '-p', '50'],
    createUser: 'web-user@acme.test',
  });

  await person
    .channel(where)
    .messages()
    .find((m) => m.ts === inChat.card.ts)!
    .click('File ticket');
  const chatTicket = await fileOpenTicket(nora);
  await person.command(`ticket ${elsewhere}`, { channel: where });
  const elsewhereTicket = await fileOpenTicket(nora);

  stack.advanceClock(120_000);
  await stack.poll();
  return { nora, person, inChat: inChat.attack.guid, elsewhere, chatTicket, elsewhereTicket };
}

describe('the game-day report', () => {
  it('gameday end posts the summary and shares the report file, with attacks started in and outside the channel, their executions and tickets', async () => {
    const day = await gameDayWithTwoAttacks('Report drill');
    expect(read(await stack.ask(day.nora, 'gameday end', { channel: where }))).toContain('ended');

    const file = await stack.fake.waitFor(() => reportFiles()[0], 'the report file');
    expect(reportFiles()).toHaveLength(1);
    expect(summaryOf('Report drill')).toBeDefined();
    expect(file.filename).toMatch(/^game-day-report-report-drill-\d{4}-\d{2}-\d{2}\.md$/);
    expect(file.title).toBe('Game day report: Report drill');
    expect(file.initialComment).toMatch(/Full report of game day \*Report drill\*.*2 attacks/);
    // Shared in the channel itself, after the summary.
    expect(file.threadTs).toBeUndefined();
    const messages = stack.fake.channel(where).messages();
    expect(messages.findIndex((m) => m.ts === file.messageTs)).toBeGreaterThan(
      messages.findIndex((m) => m.ts === summaryOf('Report drill')!.ts),
    );

    const report = file.text;
    expect(report).toContain('# Game day report: Report drill');
    expect(report).toContain('**Facilitator:** Nora Quinn');
    expect(report).toMatch(/\*\*Attacks:\*\* 2 \(1 started in the channel, 1 elsewhere\) in 1 team/);
    // People by name: a file has no mentions to resolve.
    expect(report).not.toMatch(/\bU0REPORT\d+\b/);

    const chat = sectionOf(file, day.inChat);
    expect(chat).toContain('### 1. cpu');
    expect(chat).toContain('**Started:** in the channel by Nora Quinn');
    expect(chat).toContain('**Outcome:** Successful');
    expect(chat).toContain('**Executions** (2 targets)');
    expect(chat).toMatch(/`platform-web-1`: Successful/);
    expect(chat).toMatch(/`platform-web-2`: Successful/);
    expect(chat).not.toContain('platform-db-1');
    expect(chat).toContain(`[${day.chatTicket.key}](<${day.chatTicket.url}>)`);
    expect(chat).not.toContain(day.elsewhereTicket.key);

    const outside = sectionOf(file, day.elsewhere);
    expect(outside).toContain('### 2. memory');
    expect(outside).toContain(
      '**Started:** outside the channel (WebApp); created on the platform by web-user@acme.test',
    );
    expect(outside).toContain('**Arguments:** `-l 30 -p 50`');
    expect(outside).toContain('**Executions** (4 targets)');
    for (const host of ['platform-web-1', 'platform-web-2', 'platform-db-1', 'platform-cache-1'])
      expect(outside).toMatch(new RegExp(`\`${host}\`: Successful`));
    expect(outside).toContain(`[${day.elsewhereTicket.key}](<${day.elsewhereTicket.url}>)`);
    expect(outside).not.toContain(day.chatTicket.key);

    // The tickets filed from Slack are in the channel's part too, with who filed them.
    expect(report).toMatch(new RegExp(`Nora Quinn filed \\[${day.chatTicket.key}\\]`));
  });

  it('covers the teams the channel watches, though no attack of theirs was started in it', async () => {
    const nora = namedPerson('Nora Quinn');
    await stack.login(nora, users().owner, { team: 'Platform' });
    expect(read(await stack.ask(nora, 'watch Search', { channel: where }))).toMatch(/Search/);
    await startGameDay(nora, 'Watched drill');
    await startedAttack(nora, 'attack cpu -l 30 -c 1 --target-tags role=web');
    const watched = stack.sim.createAttackDirectly(teams().search.id, {
      type: 'cpu',
      args: ['-l', '30'],
      createUser: 'search-oncall@acme.test',
    });
    const unwatched = stack.sim.createAttackDirectly(teams().payments.id, { type: 'cpu', args: ['-l', '30'] });
    stack.advanceClock(120_000);
    await stack.poll();

    const ended = await stack.ask(nora, 'gameday end', { channel: where });
    if (read(ended).includes('End anyway')) await ended.click('End anyway');
    const file = await stack.fake.waitFor(() => reportFiles()[0], 'the report file');
    expect(sectionOf(file, watched)).toContain('created on the platform by search-oncall@acme.test');
    expect(file.text).not.toContain(unwatched);
  });

  it('gameday report later covers the teams watched while the game day ran, not those watched now', async () => {
    const nora = namedPerson('Nora Quinn');
    await stack.login(nora, users().owner, { team: 'Platform' });
    await stack.ask(nora, 'watch Search', { channel: where });
    await startGameDay(nora, 'Watch change drill');
    await startedAttack(nora, 'attack cpu -l 30 -c 1 --target-tags role=web');
    const watched = stack.sim.createAttackDirectly(teams().search.id, {
      type: 'cpu',
      args: ['-l', '30'],
      createUser: 'search-oncall@acme.test',
    });
    const watchedLater = stack.sim.createAttackDirectly(teams().payments.id, { type: 'cpu', args: ['-l', '30'] });
    stack.advanceClock(120_000);
    await stack.poll();
    const ended = await stack.ask(nora, 'gameday end', { channel: where });
    if (read(ended).includes('End anyway')) await ended.click('End anyway');
    await stack.fake.waitFor(() => reportFiles()[0], 'the report file');

    // The channel watches other teams after the game day.
    expect(read(await stack.ask(nora, 'unwatch Search', { channel: where }))).toContain(
      'no longer watches team Search',
    );
    await stack.ask(nora, 'watch Payments', { channel: where });
    expect(read(await stack.ask(nora, 'gameday report', { channel: where }))).toContain('is shared in this channel');
    const again = reportFiles()[1]!;
    expect(sectionOf(again, watched)).toContain('created on the platform by search-oncall@acme.test');
    expect(again.text).not.toContain(watchedLater);
  });

  it("gameday report shares the last ended game day's report again, or one named by its id", async () => {
    const day = await gameDayWithTwoAttacks('Repost drill');
    await stack.ask(day.nora, 'gameday end', { channel: where });
    const first = await stack.fake.waitFor(() => reportFiles()[0], 'the report file');
    const id = /id `([0-9a-f]{8})`/.exec(first.initialComment ?? '')?.[1];
    expect(id).toBeDefined();

    const again = await stack.ask(day.nora, 'gameday report', { channel: where });
    const second = reportFiles()[1]!;
    // It names the file, as the channel shows it, so it can be found there.
    expect(second.channel).toBe(where);
    expect(read(again)).toBe(
      `:clipboard: The report of game day Repost drill is shared in this channel as ${second.filename}: 2 attacks.`,
    );
    expect(second.title).toBe('Game day report: Repost drill');
    for (const part of [
      day.inChat,
      day.elsewhere,
      day.chatTicket.key,
      day.elsewhereTicket.key,
      'Nora Quinn',
      'web-user@acme.test',
      '`platform-cache-1`: Successful',
    ])
      expect(second.text).toContain(part);

    expect(read(await stack.ask(day.nora, `gameday report ${id}`, { channel: where }))).toContain(
      'is shared in this channel',
    );
    expect(reportFiles()).toHaveLength(3);
    expect(read(await stack.ask(day.nora, 'gameday report 0000000000', { channel: where }))).toMatch(
      /No ended game day of this channel has the id/,
    );
    expect(reportFiles()).toHaveLength(3);
  });

  it('gameday report in a channel where no game day ended says so and shares nothing', async () => {
    const lead = namedPerson('Ida Lund');
    await stack.login(lead, users().owner, { team: 'Platform' });
    expect(read(await stack.ask(lead, 'gameday report', { channel: where }))).toMatch(
      /No game day has ended in this channel/,
    );
    await startGameDay(lead, 'Still going');
    expect(read(await stack.ask(lead, 'gameday report', { channel: where }))).toMatch(
      /Still going is still running; its report is shared here when it ends/,
    );
    expect(reportFiles()).toEqual([]);
  });

  it('a report that cannot be made does not stop the end: the summary posts, the channel is told how to retry, and the retry works', async () => {
    const lead = namedPerson('Omar Haddad');
    await stack.login(lead, users().owner, { team: 'Platform' });
    await startGameDay(lead, 'Outage drill');
    const { attack } = await startedAttack(lead, 'attack cpu -l 30 --target-tags role=web');
    stack.advanceClock(120_000);
    await stack.poll();

    stack.sim.faults.inject({ kind: 'status', status: 500, path: '/attacks/range', times: Infinity });
    expect(read(await stack.ask(lead, 'gameday end', { channel: where }))).toContain('ended');
    expect(summaryOf('Outage drill')).toBeDefined();
    const told = await stack.fake.waitFor(
      () =>
        stack.fake
          .channel(where)
          .messages()
          .find((m) => read(m).includes('could not be made')),
      'the failure told in the channel',
    );
    expect(read(told)).toMatch(
      /full report of game day Outage drill could not be made: the platform failed while handling it\. The summary above stands\. Try again with \/chaos gameday report [0-9a-f]{8}\./,
    );
    expect(reportFiles()).toEqual([]);

    stack.sim.faults.clear();
    const retry = /\/chaos gameday report [0-9a-f]{8}/.exec(read(told))![0].replace('/chaos ', '');
    expect(read(await stack.ask(lead, retry, { channel: where }))).toContain('is shared in this channel');
    expect(reportFiles()).toHaveLength(1);
    expect(reportFiles()[0]!.text).toContain(attack.guid);
  });
});
