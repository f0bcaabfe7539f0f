import { beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_CHANNEL, type FakeSlack } from '../src/index.ts';
import { startFakeSlackWithApp, type MinimalApp } from './minimal-app.ts';

let fake: FakeSlack;
let bot: MinimalApp;

beforeEach(async () => {
  ({ fake, bot } = await startFakeSlackWithApp());
});

describe('slash command and modal', () => {
  it('sends the command as Slack does and lets Bolt verify it (auth.test at start)', async () => {
    const alice = fake.user('U0ALICE', { name: 'alice' });
    const response = await alice.command('noop');

    expect(response.status).toBe(200);
    expect(fake.callsTo('auth.test')).toHaveLength(1);
    expect(bot.seen.commands[0]).toMatchObject({
      command: '/chaos',
      text: 'noop',
      user_id: 'U0ALICE',
      user_name: 'alice',
      team_id: fake.teamId,
      channel_id: DEFAULT_CHANNEL,
      api_app_id: expect.any(String),
      trigger_id: expect.stringMatching(/^\d+\.\d+\.[0-9a-f]{32}$/),
      response_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/hooks\/commands\//),
    });
  });

  it('opens the modal, shows field errors by label, then accepts and closes it', async () => {
    const alice = fake.user('U0ALICE');
    await alice.command('login');
    const modal = await fake.waitFor(() => alice.modal(), 'the login modal');

    expect(modal.title).toBe('Log in');
    expect(modal.callbackId).toBe('login');
    expect(modal.privateMetadata).toBe(DEFAULT_CHANNEL);
    expect(modal.text()).toContain('Password');

    const options = await modal.search('Team', 'p');
    expect(options.map((option) => option.text)).toEqual(['Platform', 'Payments']);

    modal.fill('Email', 'not-an-email').fill('Password', 'hunter2').choose('Team', 'Payments').choose('Region', 'EU');
    const rejected = await modal.submit();
    expect(rejected.body).toEqual({ response_action: 'errors', errors: { email: 'Enter an email address' } });
    expect(modal.isOpen).toBe(true);
    expect(modal.errors()).toEqual({ Email: 'Enter an email address' });

    modal.fill('Email', 'alice@example.com');
    const accepted = await modal.submit();
    expect(accepted.status).toBe(200);
    expect(modal.isOpen).toBe(false);
    expect(alice.modal()).toBeUndefined();

    const note = await fake.waitFor(() => alice.lastEphemeral(), 'the login confirmation');
    expect(note.text()).toBe('Logged in as alice@example.com in team Payments');
    expect(note.channel).toBe(DEFAULT_CHANNEL);
    expect(fake.failures()).toEqual([]);
    expect(bot.errors).toEqual([]);
  });

  it('replaces the modal in place on response_action update', async () => {
    const alice = fake.user('U0ALICE');
    await alice.command('login');
    const modal = await fake.waitFor(() => alice.modal(), 'the login modal');
    const { viewId } = modal;
    await modal.search('Team', 'search');
    await modal.fill('Email', 'mfa@example.com').fill('Password', 'hunter2').choose('Team', 'Search').submit();

    expect(modal.isOpen).toBe(true);
    expect(modal.title).toBe('Two-factor code');
    expect(modal.viewId).toBe(viewId);
    expect(modal.values()).toEqual({ code: { value: { type: 'plain_text_input', value: null } } });
    expect(alice.modal()?.callbackId).toBe('mfa');
    expect(fake.callsTo('response_action')).toMatchObject([{ ok: true, args: { response_action: 'update' } }]);
  });

  it('refuses to submit while a required field is empty, as the Slack client does', async () => {
    const alice = fake.user('U0ALICE');
    await alice.command('login');
    const modal = await fake.waitFor(() => alice.modal(), 'the login modal');
    modal.fill('Email', 'alice@example.com');

    await expect(modal.submit()).rejects.toThrow(/required fields are empty: "Password", "Team"/);
  });

  it('names what exists when a driver looks for something that is not there', async () => {
    const alice = fake.user('U0ALICE');
    await alice.command('login');
    const modal = await fake.waitFor(() => alice.modal(), 'the login modal');

    expect(() => modal.fill('Username', 'x')).toThrow(/inputs: "Email", "Password", "Team", "Region"/);
    expect(() => modal.choose('Region', 'Mars')).toThrow(/options: "EU", "US"/);
    expect(() => modal.choose('Team', 'Search')).toThrow(/search the external select first/);
  });

  it('starts a conversation select on the conversation the modal was opened from, and sends ids and lists as Slack does', async () => {
    const alice = fake.user('U0ALICE');
    await alice.command('place', { channel: 'C0GAMEDAY' });
    const modal = await fake.waitFor(() => alice.modal(), 'the place modal');
    expect(modal.values()['card_channel']?.['value']).toEqual({
      type: 'conversations_select',
      selected_conversation: 'C0GAMEDAY',
    });
    expect(modal.values()['labels']?.['value']).toEqual({ type: 'multi_static_select', selected_options: [] });

    modal
      .choose('Channel for its card', 'C0GENERAL')
      .choose('Labels', 'cpu')
      .choose('Labels', 'drill')
      .choose('Labels', 'latency');
    modal.unchoose('Labels', 'cpu');
    expect(() => modal.unchoose('Labels', 'cpu')).toThrow(/not chosen/);
    expect(() => modal.unchoose('Channel for its card', 'C0GENERAL')).toThrow(/holds one choice/);
    await modal.submit();

    const note = await fake.waitFor(() => alice.lastEphemeral(), 'the saved place');
    expect(note.text()).toBe('Card in C0GENERAL; labels drill,latency');
    expect(fake.failures()).toEqual([]);
    expect(bot.errors).toEqual([]);
  });

  it('leaves a conversation select empty when the modal was not opened from a conversation', async () => {
    const alice = fake.user('U0ALICE');
    await alice.openHome();
    const home = await fake.waitFor(() => alice.home(), 'the home tab');
    await home.click('Choose a place');
    const modal = await fake.waitFor(() => alice.modal(), 'the place modal from home');
    expect(modal.values()['card_channel']?.['value']).toEqual({
      type: 'conversations_select',
      selected_conversation: null,
    });
    await expect(modal.submit()).rejects.toThrow(/required fields are empty: "Channel for its card"/);
  });

  it('sends view_closed when the modal asks for it', async () => {
    const alice = fake.user('U0ALICE');
    await alice.command('login');
    const modal = await fake.waitFor(() => alice.modal(), 'the login modal');

    const closed = await modal.close();
    expect(closed?.status).toBe(200);
    expect(bot.seen.closed).toEqual(['U0ALICE']);
    expect(alice.modal()).toBeUndefined();
  });
});

describe('messages', () => {
  it('shows an ack body as the command reply and deletes it through response_url', async () => {
    const alice = fake.user('U0ALICE');
    await alice.command('help');
    const usage = alice.lastEphemeral();
    expect(usage?.text()).toContain('Usage: `/chaos login | card | announce`');
    expect(usage?.buttons().map((button) => button.text)).toEqual(['Dismiss']);

    await usage?.click('Dismiss');
    await fake.waitFor(() => usage?.deleted, 'the usage message to be deleted');
    expect(alice.ephemerals()).toEqual([]);
    expect(fake.callsTo('response_url')[0]?.args).toEqual({ delete_original: true });
  });

  it('posts in_channel replies through response_url for everyone', async () => {
    const alice = fake.user('U0ALICE');
    await alice.command('announce');
    const [announcement] = await fake.waitFor(
      () => fake.channel(DEFAULT_CHANNEL).messages().length === 1 && fake.channel(DEFAULT_CHANNEL).messages(),
      'the announcement',
    );

    expect(announcement?.text()).toBe('<@U0ALICE> started a game day');
    expect(announcement?.ephemeral).toBe(false);
    expect(alice.ephemerals()).toEqual([]);
  });

  it('asks for confirmation, then updates the card in place and replies in its thread', async () => {
    const alice = fake.user('U0ALICE');
    const bob = fake.user('U0BOB');
    await alice.command('card');
    expect(alice.lastEphemeral()?.text()).toBe('Starting the attack…');
    const card = await fake.waitFor(() => bob.channel(DEFAULT_CHANNEL).messages()[0], 'the attack card');
    expect(card.buttons().map((button) => button.text)).toEqual(['Halt', 'Details']);

    await expect(card.click('Halt')).rejects.toThrow(/confirmation dialog first \("Halt attack\?"/);
    await expect(card.click('Stop')).rejects.toThrow(/No button "Stop".*buttons: "Halt", "Details"/);
    await card.click('Halt', { confirm: true });

    await fake.waitFor(() => bob.lastEphemeral(), 'the halt confirmation');
    expect(bob.lastEphemeral()?.text()).toBe('You halted the attack.');
    expect(alice.ephemerals().map((message) => message.text())).toEqual(['Starting the attack…']);
    const [updated] = fake.channel(DEFAULT_CHANNEL).messages();
    expect(updated?.ts).toBe(card.ts);
    expect(updated?.text()).toContain('Stage: Halted');
    expect(updated?.buttons().map((button) => button.text)).toEqual(['Details']);
    const replies = fake.channel(DEFAULT_CHANNEL).thread(card.ts);
    expect(replies.map((reply) => reply.text())).toEqual(['Halted by <@U0BOB>']);
    expect(replies[0]?.threadTs).toBe(card.ts);
    expect(fake.channel(DEFAULT_CHANNEL).messages()).toHaveLength(1);

    const update = fake.callsTo('chat.update')[0];
    expect(update?.args).toMatchObject({ channel: DEFAULT_CHANNEL, ts: card.ts });
    expect(fake.failures()).toEqual([]);
  });

  it("sends block_actions shaped like Slack's", async () => {
    const alice = fake.user('U0ALICE', { name: 'alice' });
    await alice.command('card');
    const card = await fake.waitFor(() => alice.channel(DEFAULT_CHANNEL).messages()[0], 'the attack card');
    await card.click('Halt', { confirm: true });

    const payload = await fake.waitFor(() => bot.seen.actions[0], 'the halt action');
    expect(payload).toMatchObject({
      type: 'block_actions',
      user: { id: 'U0ALICE', username: 'alice', team_id: fake.teamId },
      team: { id: fake.teamId, domain: 'faultline-test' },
      api_app_id: expect.any(String),
      trigger_id: expect.stringMatching(/^\d+\.\d+\.[0-9a-f]{32}$/),
      container: { type: 'message', message_ts: card.ts, channel_id: DEFAULT_CHANNEL, is_ephemeral: false },
      channel: { id: DEFAULT_CHANNEL },
      message: { ts: card.ts, text: 'CPU attack on web-1', bot_id: expect.any(String) },
      response_url: expect.stringMatching(/\/hooks\/actions\//),
      state: { values: { length: { set_length: { type: 'static_select', selected_option: null } } } },
      actions: [
        {
          type: 'button',
          action_id: 'halt',
          block_id: 'card_actions',
          value: 'attack-1',
          text: { text: 'Halt' },
          action_ts: expect.any(String),
        },
      ],
    });
  });

  it('clicks one of several buttons of the same text by its value or its place among them', async () => {
    const alice = fake.user('U0ALICE');
    await alice.command('list');
    const list = await fake.waitFor(() => alice.channel(DEFAULT_CHANNEL).messages()[0], 'the attack list');
    const rows = list.buttons();
    expect(rows.map((button) => [button.text, button.value])).toEqual([
      ['Halt', 'attack-1'],
      ['Halt', 'attack-2'],
      ['Halt', 'attack-3'],
    ]);

    /** The action the click sent, as the app received it. */
    const sent = async (click: Promise<unknown>) => {
      await click;
      const payload = bot.seen.actions.at(-1) as { actions: { value: string; block_id: string }[] } | undefined;
      return payload?.actions[0];
    };
    expect(await sent(list.click('Halt', { value: 'attack-2' }))).toMatchObject({
      value: 'attack-2',
      block_id: rows[1]?.blockId,
    });
    expect(await sent(list.click('Halt', { index: 2 }))).toMatchObject({
      value: 'attack-3',
      block_id: rows[2]?.blockId,
    });
    expect(await sent(list.click('Halt'))).toMatchObject({ value: 'attack-1', block_id: rows[0]?.blockId });
    expect(await sent(list.click('Halt', { value: 'attack-3', index: 0 }))).toMatchObject({ value: 'attack-3' });
    expect(bot.seen.actions).toHaveLength(4);

    await expect(list.click('Halt', { value: 'attack-9' })).rejects.toThrow(
      /No button "Halt" with value "attack-9" .*values: "attack-1", "attack-2", "attack-3"/,
    );
    await expect(list.click('Halt', { index: 3 })).rejects.toThrow(/No button "Halt" at index 3 .*only 3 match/);
    await expect(list.click('Halt', { value: 'attack-2', index: 1 })).rejects.toThrow(
      /No button "Halt" with value "attack-2" at index 1 .*only 1 match/,
    );
    expect(bot.seen.actions).toHaveLength(4);
    expect(fake.failures()).toEqual([]);
    expect(bot.errors).toEqual([]);
  });

  it('picks an option in a message select by its placeholder and dispatches it', async () => {
    const alice = fake.user('U0ALICE');
    await alice.command('card');
    const card = await fake.waitFor(() => alice.channel(DEFAULT_CHANNEL).messages()[0], 'the attack card');

    await expect(card.select('Length', '1 hour')).rejects.toThrow(/options: "5 minutes", "10 minutes"/);
    await card.select('Length', '10 minutes');
    const [reply] = await fake.waitFor(
      () => fake.channel(DEFAULT_CHANNEL).thread(card.ts).length > 0 && fake.channel(DEFAULT_CHANNEL).thread(card.ts),
      'the thread reply',
    );
    expect(reply?.text()).toBe('Length set to 10 minutes by <@U0ALICE>');
  });

  it('replaces the original message through response_url', async () => {
    const alice = fake.user('U0ALICE');
    await alice.command('card');
    const card = await fake.waitFor(() => alice.channel(DEFAULT_CHANNEL).messages()[0], 'the attack card');

    await card.click('Details');
    await fake.waitFor(() => card.text() === 'Details: CPU 80% for 60 s', 'the card replaced by its details');
    expect(card.blocks).toEqual([]);
    expect(fake.channel(DEFAULT_CHANNEL).messages()).toHaveLength(1);
  });

  it('reads but does not act on messages read without a person', async () => {
    await fake.user('U0ALICE').command('card');
    const card = await fake.waitFor(() => fake.channel(DEFAULT_CHANNEL).messages()[0], 'the attack card');
    await expect(card.click('Details')).rejects.toThrow(/read it through a person/);
  });
});

describe('shortcuts and App Home', () => {
  it('runs a message shortcut that opens a prefilled modal with a permalink, then push and clear', async () => {
    const alice = fake.user('U0ALICE');
    await alice.command('card');
    const card = await fake.waitFor(() => alice.channel(DEFAULT_CHANNEL).messages()[0], 'the attack card');

    await alice.shortcut('file_ticket', card);
    const ticket = await fake.waitFor(() => alice.modal(), 'the ticket modal');
    expect(ticket.title).toBe('File ticket');
    expect(ticket.values()['summary']?.['value']).toEqual({ type: 'plain_text_input', value: 'CPU attack on web-1' });
    expect(ticket.text()).toContain(`/archives/${DEFAULT_CHANNEL}/p${card.ts.replace('.', '')}`);

    await ticket.submit();
    const filed = alice.modal();
    expect(filed?.title).toBe('Ticket filed');
    expect(() => ticket.fill('Summary', 'x')).toThrow(/covered by another modal/);

    await filed?.submit();
    expect(alice.modal()).toBeUndefined();
    expect(ticket.isOpen).toBe(false);
    expect(fake.failures()).toEqual([]);
  });

  it('publishes the home tab on app_home_opened and opens a modal from its button', async () => {
    const alice = fake.user('U0ALICE');
    const response = await alice.openHome();
    expect(response.status).toBe(200);

    const home = await fake.waitFor(() => alice.home(), 'the home tab');
    expect(home.text()).toBe('Faultline\nWelcome, <@U0ALICE>\nLog in\nChoose a place');
    await home.click('Log in');
    const modal = await fake.waitFor(() => alice.modal(), 'the login modal from home');
    expect(modal.title).toBe('Log in');
    expect(fake.user('U0BOB').home()).toBeUndefined();
  });

  it('redelivers an event as a Slack retry that Bolt reports', async () => {
    const alice = fake.user('U0ALICE');
    await alice.openHome();
    await fake.waitFor(() => fake.callsTo('views.publish').length === 1, 'the first publish');

    const retried = await fake.redeliverLast();
    expect(retried.status).toBe(200);
    await fake.waitFor(() => fake.callsTo('views.publish').length === 2, 'the second publish');
    expect(bot.seen.homeOpened).toEqual([{}, { retryNum: 1, retryReason: 'http_timeout' }]);
  });
});
