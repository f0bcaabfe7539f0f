import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message } from '@faultline/fake-slack';
import { describe, expect, it } from 'vitest';
import { Stack, stackForFile, trackerEnv } from './harness.ts';

const read = Stack.read;
const channel = 'C0GENERAL';
let stack: Stack;
stackForFile({ env: trackerEnv }, (started) => (stack = started));

let n = 0;
const nextPerson = () => `U0SURFACE${++n}`;
const users = () => stack.sim.seed.users;
const tickets = () => stack.sim.state.trackerIssues;

const startedAttack = (s: Stack, personId: string, text: string, where = channel) =>
  s.startAttack(personId, text, where);

async function fillTicket(personId: string) {
  const person = stack.person(personId);
  const modal = await stack.fake.waitFor(
    () => person.modal()?.callbackId === 'ticket' && person.modal(),
    'the ticket form',
  );
  modal.choose('Priority', 'High').choose('Environment', 'Production');
  return modal;
}

describe('tracker tickets', () => {
  it('from the card button: prefilled, required fields asked, filed once, key in the thread', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const { attack, card } = await startedAttack(stack, id, 'attack cpu -l 30 -c 1 --target-tags role=web');
    await card.click('File ticket');
    const modal = await fillTicket(id);
    const values = JSON.stringify(modal.values());
    expect(values).toContain(attack.guid);
    expect(values).toContain('-l 30 -c 1');
    expect(values).toContain('Chaos attack cpu');

    await modal.submit();
    await stack.fake.waitFor(() => stack.person(id).modal()?.title === 'Ticket filed', 'the filed confirmation');
    await stack.fake.redeliverLast({ as: 'duplicate' });
    expect(tickets()).toHaveLength(1);
    expect(tickets()[0]).toMatchObject({
      entity: { id: attack.guid, type: 'ATTACK' },
      fields: { priority: { id: '2' }, customfield_10050: { id: '20001' } },
    });
    const key = tickets()[0]!.key;
    const reply = await stack.fake.waitFor(
      () =>
        stack.fake
          .channel(channel)
          .thread(card.ts)
          .find((m) => m.text().includes(key)),
      'the key in the thread',
    );
    expect(read(reply)).toContain(`<@${id}> filed`);
    await stack.built.services.slack.flush();
    expect(
      read(
        stack
          .person(id)
          .channel(channel)
          .messages()
          .find((m) => m.text().includes(attack.guid)),
      ),
    ).toContain('1 ticket filed');

    const listed = await stack.ask(id, `tickets ${attack.guid}`, { channel });
    expect(read(listed)).toContain(key);
  });

  it('the message shortcut and /chaos ticket reach the same form', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const { attack, card } = await startedAttack(stack, id, 'attack memory -l 30 -p 10');
    const person = stack.person(id);
    await person.shortcut('file_ticket', card);
    const fromShortcut = await fillTicket(id);
    expect(JSON.stringify(fromShortcut.values())).toContain(attack.guid);
    await fromShortcut.close();

    await person.command(`ticket ${attack.guid}`, { channel });
    const fromCommand = await fillTicket(id);
    expect(JSON.stringify(fromCommand.values())).toContain(attack.guid);
    await fromCommand.submit();
    await stack.fake.waitFor(() => tickets().length === 1, 'the ticket');

    const plainMessage = await stack.built.services.slack.post(channel, { text: 'deploy finished' });
    await person.shortcut('file_ticket', { channel, ts: plainMessage.ts });
    await stack.fake.waitFor(() => person.modal()?.text().includes('not an attack card'), 'the explanation');
  });

  it('explains a team without a tracker integration, and files nothing', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Payments' });
    const { card } = await startedAttack(stack, id, 'attack cpu -l 30');
    await card.click('File ticket');
    const person = stack.person(id);
    await stack.fake.waitFor(() => person.modal()?.text().includes('no issue-tracker integration'), 'the explanation');
    expect(tickets()).toHaveLength(0);
  });

  it('shows the tracker refusing a field on that field, and keeps the form', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const { card } = await startedAttack(stack, id, 'attack cpu -l 30');
    await card.click('File ticket');
    const modal = await fillTicket(id);
    stack.sim.faults.inject({
      method: 'POST',
      path: '/tracker/issues',
      kind: 'status',
      status: 400,
      body: 'Bad request: field "customfield_10050" must be one of its allowed values',
    });
    await modal.submit();
    expect(stack.person(id).modal()?.errors()).toEqual({
      Environment: 'The tracker did not accept Environment. Check it and submit again.',
    });
    expect(tickets()).toHaveLength(0);
    await stack.person(id).modal()!.submit();
    await stack.fake.waitFor(() => tickets().length === 1, 'the ticket on the second try');
  });
});

describe('short attack ids', () => {
  it('take the first 8 characters of an id in show, note, ticket, tickets and halt', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const { attack } = await startedAttack(stack, id, 'attack cpu -l 300');
    const short = attack.guid.slice(0, 8);
    expect(read(await stack.ask(id, `show ${short}`, { channel }))).toContain(attack.guid);
    expect(read(await stack.ask(id, `note ${short} p99 doubled`, { channel }))).toContain('Note added');
    expect(read(await stack.ask(id, `tickets ${short}`, { channel }))).toContain(attack.guid);
    const person = stack.person(id);
    await person.command(`ticket ${short.toUpperCase()}`, { channel });
    const form = await fillTicket(id);
    expect(JSON.stringify(form.values())).toContain(attack.guid);
    await form.close();
    expect(read(await stack.ask(id, `halt ${short}`, { channel }))).toContain(
      `Halt requested for attack ${attack.guid}`,
    );
    expect(stack.sim.state.attacks.get(attack.guid)!.halt).toBeTruthy();
  });

  it('say which attacks a prefix matches when it is not unique, and act on none', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const { attack } = await startedAttack(stack, id, 'attack cpu -l 300');
    const short = attack.guid.slice(0, 8);
    const twin = `${short}-ffff-4fff-8fff-ffffffffffff`;
    stack.sim.createAttackDirectly(stack.sim.seed.teams.platform.id, { guid: twin, args: ['-l', '300'] });
    const reply = read(await stack.ask(id, `halt ${short}`, { channel }));
    expect(reply).toContain(attack.guid);
    expect(reply).toContain(twin);
    expect(reply).toContain('more of the id');
    expect(stack.sim.requests.some((r) => r.path.endsWith('/halt'))).toBe(false);
    expect(read(await stack.ask(id, `show ${attack.guid.slice(0, 13)}`, { channel }))).toContain('Executions');
    // Fewer than 8 characters name no attack: the reply says how many it takes.
    expect(read(await stack.ask(id, `show ${attack.guid.slice(0, 6)}`, { channel }))).toContain(
      'its first 8 characters or more',
    );
  });
});

describe('tracker tickets whose outcome is unknown', () => {
  it('says so, points at /chaos tickets, and cannot file a second one', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const { attack, card } = await startedAttack(stack, id, 'attack cpu -l 30');
    await card.click('File ticket');
    const modal = await fillTicket(id);
    stack.sim.faults.inject({ method: 'POST', path: '/tracker/issues', kind: 'status', status: 503 });
    await modal.submit();
    const notice = await stack.fake.waitFor(
      () => stack.person(id).modal()?.text().includes('not known whether') && stack.person(id).modal(),
      'the unknown-outcome notice',
    );
    expect(notice.text()).toContain(`/chaos tickets ${attack.guid}`);
    await stack.fake.redeliverLast({ as: 'duplicate' });
    expect(stack.sim.requests.filter((r) => r.method === 'POST' && r.path === '/tracker/issues')).toHaveLength(1);
  });
});

describe('where attacks may start', () => {
  it('refuses a direct message, where no card could be posted, and sends nothing', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const reply = await stack.ask(id, 'attack cpu -l 30 --yes', { channel: 'D0DIRECT' });
    expect(read(reply)).toContain('not from a direct message');
    expect(stack.sim.state.attacks.size).toBe(0);
  });
});

describe('App Home', () => {
  it('offers Log in to someone logged out', async () => {
    const home = await stack.openHome(nextPerson());
    expect(home.buttons().map((b) => b.text)).toContain('Log in');
  });

  it("lists the team's active attacks with Halt buttons that work, and redraws after", async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const [guid] = stack.sim.addAttacks(stack.sim.seed.teams.platform.id, 1);
    const home = await stack.openHome(id);
    expect(read(home)).toContain('owner@acme.test');
    expect(read(home)).toContain(guid);
    const redrawn = stack.homePublishes(id);
    await home.click('Halt');
    await stack.fake.waitFor(() => stack.sim.state.attacks.get(guid!)!.halt, 'the halt');
    await stack.fake.waitFor(() => stack.homePublishes(id) > redrawn, 'Home redrawn after the halt');
  });

  it('Halt on a row shows it halting at once, then says what the halt did, there on Home', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const person = stack.person(id);
    const [guid] = stack.sim.addAttacks(stack.sim.seed.teams.platform.id, 1);
    const home = await stack.openHome(id);
    // The platform takes its time to answer the halt.
    stack.sim.faults.inject({ method: 'POST', path: `/attacks/${guid}/halt`, kind: 'latency', ms: 60_000 });
    const callsBefore = stack.fake.calls.length;
    const click = home.click('Halt');
    const row = () => {
      const lines = read(person.home()).split('\n');
      const at = lines.findIndex((line) => line.includes(guid!));
      return lines.slice(Math.max(0, at - 1), at + 1).join('\n');
    };
    await stack.fake.waitFor(() => row().includes('Halting'), 'the row halting');
    expect(
      person
        .home()!
        .buttons()
        .filter((b) => b.text === 'Halt'),
    ).toEqual([]);
    expect(stack.sim.state.attacks.get(guid!)!.halt).toBeFalsy();
    stack.sim.faults.clear();
    expect((await click)?.status).toBe(200);
    await stack.fake.waitFor(() => read(person.home()).includes(`Halt requested for attack ${guid}`), 'the outcome');
    // Home has no response_url: nothing was pushed or posted elsewhere for it.
    expect(stack.fake.calls.slice(callsBefore).map((call) => call.method)).not.toContain('views.push');
    expect(stack.sim.state.attacks.get(guid!)!.halt).toBeTruthy();
  });

  it('New attack opens the builder, which asks where the card goes, and shows the preview in the modal, saying where', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const person = stack.person(id);
    await (await stack.openHome(id)).click('New attack');
    let modal = await stack.fake.waitFor(
      () => person.modal()?.callbackId === 'attack_builder' && person.modal(),
      'the builder',
    );
    await modal.select('Attack type', 'cpu');
    modal = await stack.fake.waitFor(
      () => person.modal()?.text().includes('Cores') && person.modal(),
      'the cpu arguments',
    );
    await modal.select('Target', 'Every active client of the team');
    modal = await stack.fake.waitFor(() => person.modal(), 'the builder for every client');
    await modal.fill('Length in seconds', '45').choose('Channel for its card', channel).submit();
    // Where the person is: the builder becomes the preview, naming the channel the card goes to.
    const preview = await stack.fake.waitFor(
      () => (person.modal()?.text().includes('-l 45') ? person.modal() : undefined),
      'the preview in the modal',
    );
    expect(read(preview)).toContain('every active client of team Platform');
    expect(read(preview)).toContain(`<#${channel}>`);
    expect(person.ephemerals(channel)).toEqual([]);
    await preview.click('Start');
    await stack.fake.waitFor(() => stack.sim.state.attacks.size === 1, 'the attack');
    const started = await stack.fake.waitFor(
      () => (read(person.modal()).includes('Started cpu attack') ? person.modal() : undefined),
      'the start confirmation in the modal',
    );
    expect(started.buttons().map((b) => b.text)).not.toContain('Start');
    // Home lists it at once, among the active attacks.
    const [guid] = [...stack.sim.state.attacks.keys()];
    await stack.fake.waitFor(() => read(person.home()).includes(guid!) || undefined, 'the new attack on Home');
  });

  it('follows a row halted there to the end of its attack, and says at the top what the halt did', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const person = stack.person(id);
    const [guid] = stack.sim.addAttacks(stack.sim.seed.teams.platform.id, 1);
    await (await stack.openHome(id)).click('Halt');
    await stack.fake.waitFor(() => read(person.home()).includes(`Halt requested for attack ${guid}`), 'the outcome');
    const activeRows = () => {
      const text = read(person.home());
      return text.slice(text.indexOf('Active attacks'), text.indexOf('Recent attacks'));
    };
    const published = stack.homePublishes(id);
    stack.advanceClock(60_000);
    await stack.poll();
    await stack.fake.waitFor(() => stack.homePublishes(id) > published || undefined, 'Home redrawn at the end');
    const top = read(person.home()).split('\n').slice(0, 3).join('\n');
    expect(top).toMatch(new RegExp(`Attack ${guid} you halted has ended: .*halted`, 'i'));
    expect(activeRows()).not.toContain(guid);
    expect(read(person.home()).slice(read(person.home()).indexOf('Recent attacks'))).toContain(guid);
    // Followed once: a later pass publishes nothing more for it.
    const after = stack.homePublishes(id);
    await stack.poll();
    expect(stack.homePublishes(id)).toBe(after);
  });

  it('switches team from Home', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const person = stack.person(id);
    await (await stack.openHome(id)).click('Switch team');
    const picker = await stack.fake.waitFor(
      () => person.modal()?.callbackId === 'team_picker' && person.modal(),
      'the team picker',
    );
    await picker.choose('Team', 'Search').submit();
    await stack.fake.waitFor(() => read(person.home()).includes('Team: Search'), 'Home redrawn with the new team');
    // A switch is no login: the picker's answer says what changed.
    const answer = person.modal()!;
    expect(answer.title).toBe('Team chosen');
    expect(read(answer)).toContain('Now using team Search');
  });

  it('shows a game day running in a channel the person is in, and not one elsewhere', async () => {
    const id = nextPerson();
    const outsider = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    await stack.ask(id, 'gameday start Checkout drill', { channel: 'C0GAMEDAY' });
    expect(read(await stack.openHome(id))).toContain('Checkout drill');
    expect(read(await stack.openHome(outsider))).not.toContain('Checkout drill');
  });
});

describe('game days', () => {
  it('collects attacks, halts, notes and tickets, survives a restart, and ends with a summary', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'faultline-gameday-'));
    const local = await Stack.start({ storeUrl: `sqlite://${join(dir, 'bot.db')}`, env: trackerEnv });
    const where = 'C0GAMEDAY';
    try {
      const lead = 'U0LEAD';
      const sre = 'U0SRE';
      await local.login(lead, local.sim.seed.users.owner, { team: 'Platform' });
      await local.login(sre, local.sim.seed.users.sre, { team: 'Platform', mfaCode: local.sim.seed.mfaCode });
      expect(read(await local.ask(lead, 'gameday start Checkout resilience', { channel: where }))).toContain('started');
      expect(read(await local.ask(sre, 'gameday start Another one', { channel: where }))).toContain('already running');
      const gameCard = await local.fake.waitFor(
        () =>
          local.fake
            .channel(where)
            .messages()
            .find((m) => read(m).includes('Game day: Checkout resilience')),
        'the game-day card',
      );

      const first = await startedAttack(local, lead, 'attack cpu -l 30 --target-tags role=web', where);
      const second = await startedAttack(local, sre, 'attack latency -l 300 -m 200', where);
      await local
        .person(lead)
        .channel(where)
        .messages()
        .find((m) => m.text().includes(second.attack.guid))!
        .click('Halt');
      await local.fake.waitFor(() => local.sim.state.attacks.get(second.attack.guid)!.halt, 'the halt');
      await local.ask(sre, `note ${first.attack.guid} error rate stayed flat`, { channel: where });
      await first.card.click('File ticket');
      const person = local.person(lead);
      const modal = await local.fake.waitFor(
        () => person.modal()?.callbackId === 'ticket' && person.modal(),
        'the ticket form',
      );
      await modal.choose('Priority', 'Low').choose('Environment', 'Staging').submit();
      await local.fake.waitFor(() => local.sim.state.trackerIssues.length === 1, 'the ticket');
      const key = local.sim.state.trackerIssues[0]!.key;
      const timeline = () => local.fake.channel(where).thread(gameCard.ts).map(read).join('\n');
      await local.fake.waitFor(() => timeline().includes(key), 'the ticket in the timeline');
      expect(timeline()).toContain('cpu');
      expect(timeline()).toContain('latency');
      expect(timeline()).toContain('error rate stayed flat');

      await local.stopBot();
      await local.startBot();
      expect(read(await local.ask(lead, 'gameday status', { channel: where }))).toContain('Checkout resilience');

      local.advanceClock(120_000);
      await local.ask(lead, 'gameday end', { channel: where });
      const summary = await local.fake.waitFor(
        () =>
          local
            .person(lead)
            .channel(where)
            .messages()
            .find((m: Message) => /summary/i.test(read(m))),
        'the summary',
      );
      const text = read(summary);
      expect(text).toContain(first.attack.guid.slice(0, 8));
      expect(text).toMatch(/cpu[\s\S]*Successful/);
      expect(text).toMatch(/latency[\s\S]*User Halted/);
      expect(text).toContain(`<@${lead}>`);
      expect(text).toContain(`<@${sre}>`);
      expect(text).toContain('error rate stayed flat');
      expect(text).toContain(key);
      expect(summary.buttons().map((b) => b.text)).toContain('File ticket for the game day');
      await local.built.services.slack.flush();
      expect(
        local
          .person(lead)
          .channel(where)
          .messages()
          .find((m) => m.ts === gameCard.ts)!
          .buttons(),
      ).toEqual([]);

      await summary.click('File ticket for the game day');
      const dayTicket = await local.fake.waitFor(
        () => person.modal()?.callbackId === 'ticket' && person.modal(),
        'the game-day ticket form',
      );
      expect(JSON.stringify(dayTicket.values())).toContain('Checkout resilience');
      await dayTicket.choose('Priority', 'Medium').choose('Environment', 'Production').submit();
      await local.fake.waitFor(() => local.sim.state.trackerIssues.length === 2, 'the game-day ticket');
      expect(local.sim.state.trackerIssues[1]!.entity.type).toBe('GAME_DAY');
      expect(local.errorLogs()).toEqual([]);
      expect(local.fake.failures()).toEqual([]);
    } finally {
      await local.stop();
    }
  });

  it('status and end say so when no game day runs', async () => {
    const id = nextPerson();
    expect(read(await stack.ask(id, 'gameday status', { channel }))).toContain('No game day');
    expect(read(await stack.ask(id, 'gameday end', { channel }))).toContain('No game day');
    expect(read(await stack.ask(id, 'gameday start', { channel }))).toContain('Give the game day a title');
  });
});
