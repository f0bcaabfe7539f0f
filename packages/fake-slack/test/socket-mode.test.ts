import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startFakeSlack, DEFAULT_CHANNEL, type FakeSlack } from '../src/index.ts';
import { APP_TOKEN, BOT_TOKEN, SIGNING_SECRET, startMinimalApp, type MinimalApp } from './minimal-app.ts';

let fake: FakeSlack;

afterEach(async () => {
  await fake.stop();
});

describe('a Bolt app in Socket Mode', () => {
  let bot: MinimalApp;

  beforeEach(async () => {
    fake = await startFakeSlack({ signingSecret: SIGNING_SECRET, botToken: BOT_TOKEN, appToken: APP_TOKEN });
    bot = await startMinimalApp(fake, { appToken: APP_TOKEN });
  });

  afterEach(async () => {
    await bot.stop();
    expect(bot.errors).toEqual([]);
  });

  it('connects with the app token and gets commands over the socket, with no request URL at all', async () => {
    expect(fake.callsTo('apps.connections.open')).toMatchObject([
      { ok: true, response: { url: expect.stringMatching(/^ws:\/\/127\.0\.0\.1:\d+\/link\/\?ticket=/) } },
    ]);
    expect(fake.socketConnections()).toBe(1);

    const response = await fake.user('U0ALICE', { name: 'alice' }).command('noop');
    expect(response).toEqual({ status: 200, body: undefined });
    expect(bot.seen.commands[0]).toMatchObject({
      command: '/chaos',
      text: 'noop',
      user_id: 'U0ALICE',
      channel_id: DEFAULT_CHANNEL,
    });
  });

  it('opens the modal, shows field errors from the ack, offers options, then accepts and closes it', async () => {
    const alice = fake.user('U0ALICE');
    await alice.command('login');
    const modal = await fake.waitFor(() => alice.modal(), 'the login modal');

    const options = await modal.search('Team', 'p');
    expect(options.map((option) => option.text)).toEqual(['Platform', 'Payments']);

    modal.fill('Email', 'not-an-email').fill('Password', 'hunter2').choose('Team', 'Payments');
    const rejected = await modal.submit();
    expect(rejected.body).toEqual({ response_action: 'errors', errors: { email: 'Enter an email address' } });
    expect(modal.isOpen).toBe(true);
    expect(modal.errors()).toEqual({ Email: 'Enter an email address' });

    await modal.fill('Email', 'alice@example.com').submit();
    expect(modal.isOpen).toBe(false);
    const note = await fake.waitFor(() => alice.lastEphemeral(), 'the login confirmation');
    expect(note.text()).toBe('Logged in as alice@example.com in team Payments');
    expect(fake.failures()).toEqual([]);
  });

  it("refuses an options list over Slack's limit, as it does over HTTP", async () => {
    const alice = fake.user('U0ALICE');
    await alice.command('login');
    const modal = await fake.waitFor(() => alice.modal(), 'the login modal');
    expect(await modal.search('Team', 'everything')).toEqual([]);
    expect(fake.failures().map((call) => call.method)).toEqual(['options_response']);
  });

  it('shows the ack of a command as its reply, and a confirmed button click updates the card', async () => {
    const alice = fake.user('U0ALICE');
    await alice.command('card');
    expect(alice.lastEphemeral()?.text()).toBe('Starting the attack…');
    const card = await fake.waitFor(() => alice.channel(DEFAULT_CHANNEL).messages()[0], 'the attack card');

    await card.click('Halt', { confirm: true });
    await fake.waitFor(() => alice.channel(DEFAULT_CHANNEL).thread(card.ts)[0], 'the halt note');
    expect(alice.channel(DEFAULT_CHANNEL).messages()[0]?.text()).toContain('Stage: Halted');
    expect(bot.seen.actions[0]).toMatchObject({ type: 'block_actions', actions: [{ action_id: 'halt' }] });
    await fake.waitFor(
      () => alice.lastEphemeral()?.text() === 'You halted the attack.',
      'the reply through response_url',
    );
    expect(fake.failures()).toEqual([]);
  });

  it('sends view_closed and events, and redelivers an event as a numbered retry', async () => {
    const alice = fake.user('U0ALICE');
    await alice.command('login');
    await (await fake.waitFor(() => alice.modal(), 'the login modal')).close();
    await fake.waitFor(() => bot.seen.closed.length > 0, 'view_closed');

    await alice.openHome();
    await fake.waitFor(() => alice.home(), 'the App Home tab');
    await fake.redeliverLast();
    expect(bot.seen.homeOpened).toEqual([
      { retryNum: 0, retryReason: '' },
      { retryNum: 1, retryReason: 'http_timeout' },
    ]);
  });
});

describe('the Socket Mode protocol', () => {
  beforeEach(async () => {
    fake = await startFakeSlack({
      signingSecret: SIGNING_SECRET,
      botToken: BOT_TOKEN,
      appToken: APP_TOKEN,
      ackTimeoutMs: 200,
    });
  });

  /** apps.connections.open as @slack/socket-mode calls it. */
  async function connectionsOpen(token?: string): Promise<Record<string, unknown>> {
    const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
    const response = await fetch(`${fake.apiUrl}apps.connections.open`, { method: 'POST', headers });
    return (await response.json()) as Record<string, unknown>;
  }

  /** A bare client: records every message, acks nothing by itself. */
  async function connect(): Promise<{ socket: WebSocket; messages: Record<string, unknown>[] }> {
    const { url } = await connectionsOpen(APP_TOKEN);
    const socket = new WebSocket(String(url));
    const messages: Record<string, unknown>[] = [];
    socket.on('message', (data) => messages.push(JSON.parse(String(data)) as Record<string, unknown>));
    await fake.waitFor(() => messages.length > 0, 'the hello message');
    return { socket, messages };
  }

  it('takes only the app-level token, and each URL once', async () => {
    expect(await connectionsOpen()).toEqual({ ok: false, error: 'not_authed' });
    expect(await connectionsOpen(BOT_TOKEN)).toEqual({ ok: false, error: 'not_allowed_token_type' });
    expect(await connectionsOpen('xapp-1-someone-else')).toEqual({ ok: false, error: 'invalid_auth' });

    const { url } = await connectionsOpen(APP_TOKEN);
    const first = new WebSocket(String(url));
    await new Promise((resolve) => first.once('open', resolve));
    const second = new WebSocket(String(url));
    const refusal = await new Promise<number | undefined>((resolve) => {
      second.once('unexpected-response', (_request, response) => resolve(response.statusCode));
      second.once('open', () => resolve(undefined));
    });
    expect(refusal).toBe(401);
    expect(fake.socketConnections()).toBe(1);
  });

  it('says hello, then sends each delivery as an envelope and answers with the ack', async () => {
    const { socket, messages } = await connect();
    expect(messages[0]).toMatchObject({
      type: 'hello',
      num_connections: 1,
      connection_info: { app_id: expect.any(String) },
    });

    const replied = fake.user('U0ALICE').command('help');
    const envelope = await fake.waitFor(
      () => messages.find((message) => message['type'] === 'slash_commands'),
      'the command envelope',
    );
    expect(envelope).toEqual({
      envelope_id: expect.any(String),
      type: 'slash_commands',
      accepts_response_payload: true,
      payload: expect.objectContaining({
        command: '/chaos',
        text: 'help',
        user_id: 'U0ALICE',
        trigger_id: expect.any(String),
      }),
    });
    socket.send(JSON.stringify({ envelope_id: envelope['envelope_id'], payload: { text: 'Usage: /chaos login' } }));
    expect(await replied).toEqual({ status: 200, body: { text: 'Usage: /chaos login' } });
    expect(fake.user('U0ALICE').lastEphemeral()?.text()).toBe('Usage: /chaos login');

    const opened = fake.user('U0ALICE').openHome();
    const event = await fake.waitFor(
      () => messages.find((message) => message['type'] === 'events_api'),
      'the event envelope',
    );
    expect(event).toMatchObject({
      accepts_response_payload: false,
      retry_attempt: 0,
      retry_reason: '',
      payload: { type: 'event_callback', event: { type: 'app_home_opened' } },
    });
    socket.send(JSON.stringify({ envelope_id: event['envelope_id'], payload: {} }));
    expect(await opened).toEqual({ status: 200, body: undefined });
  });

  it('fails a delivery nobody acknowledges in time, and retries it with a new envelope and retry_attempt', async () => {
    const { messages } = await connect();
    await expect(fake.user('U0ALICE').command('help')).rejects.toThrow(
      /did not acknowledge the slash_commands envelope/,
    );
    const retried = fake.redeliverLast().catch((error: unknown) => error);
    await fake.waitFor(
      () => messages.filter((message) => message['type'] === 'slash_commands').length === 2,
      'the retry',
    );
    const [first, retry] = messages.filter((message) => message['type'] === 'slash_commands');
    expect(retry).toMatchObject({ retry_attempt: 1, retry_reason: 'http_timeout', payload: first?.['payload'] });
    expect(retry?.['envelope_id']).not.toBe(first?.['envelope_id']);
    expect(await retried).toBeInstanceOf(Error);
  });

  it('fails a delivery at once when its connection closes, and has nowhere to deliver afterwards', async () => {
    const { socket, messages } = await connect();
    const pending = fake.user('U0ALICE').command('help');
    await fake.waitFor(() => messages.length > 1, 'the command envelope');
    socket.close();
    await expect(pending).rejects.toThrow(/connection closed before the app acknowledged/);
    await fake.waitFor(() => fake.socketConnections() === 0, 'the connection to go');
    await expect(fake.user('U0ALICE').command('help')).rejects.toThrow(
      'No Socket Mode connection is open and the bot URL is not set',
    );
  });
});
