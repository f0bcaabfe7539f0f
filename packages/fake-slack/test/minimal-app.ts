import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { App, HTTPReceiver, LogLevel, type Logger } from '@slack/bolt';
import { onTestFinished } from 'vitest';
import { startFakeSlack, type FakeSlack } from '../src/index.ts';

export const SIGNING_SECRET = 'test-signing-secret';
export const BOT_TOKEN = 'xoxb-test-token';
export const APP_TOKEN = 'xapp-1-A0FAULTLN-1-test';
export const TEAMS = ['Platform', 'Payments', 'Search', 'Storage'];

/**
 * A small Bolt app, in HTTP mode or (given an app token) Socket Mode, with one listener of each
 * kind the bot uses, so the fake is exercised by the real Bolt request handling, the real
 * @slack/socket-mode client and the real @slack/web-api client.
 */
export interface MinimalApp {
  app: App;
  /** The request URL in HTTP mode; undefined in Socket Mode. */
  url: string | undefined;
  /** Errors Bolt or a listener logged. */
  errors: string[];
  /** What listeners saw, for assertions on payload shape and delivery headers. */
  seen: {
    commands: Record<string, unknown>[];
    actions: Record<string, unknown>[];
    homeOpened: { retryNum?: number; retryReason?: string }[];
    closed: string[];
  };
  /** Holds `/chaos slow` before it opens its modal, until released. */
  holdSlow(): () => void;
  stop(): Promise<void>;
}

/**
 * A Bolt and Web API logger that keeps errors in `errors` and drops the rest, so a refusal a test
 * asks for is not printed as an error of the run.
 */
export function capturingLogger(errors: string[]): Logger {
  let level = LogLevel.ERROR;
  return {
    debug: () => undefined,
    info: () => undefined,
    warn: () => undefined,
    error: (...messages: unknown[]) => errors.push(messages.map(String).join(' ')),
    setLevel: (next) => {
      level = next;
    },
    getLevel: () => level,
    setName: () => undefined,
  };
}

const plain = (text: string) => ({ type: 'plain_text' as const, text });

function loginModal(channel: string) {
  return {
    type: 'modal' as const,
    callback_id: 'login',
    notify_on_close: true,
    private_metadata: channel,
    title: plain('Log in'),
    submit: plain('Log in'),
    close: plain('Cancel'),
    blocks: [
      {
        type: 'input',
        block_id: 'email',
        label: plain('Email'),
        element: { type: 'plain_text_input', action_id: 'value' },
      },
      {
        type: 'input',
        block_id: 'password',
        label: plain('Password'),
        element: { type: 'plain_text_input', action_id: 'value' },
      },
      {
        type: 'input',
        block_id: 'team',
        label: plain('Team'),
        element: {
          type: 'external_select',
          action_id: 'team_search',
          min_query_length: 1,
          placeholder: plain('Find a team'),
        },
      },
      {
        type: 'input',
        block_id: 'region',
        label: plain('Region'),
        optional: true,
        element: {
          type: 'static_select',
          action_id: 'value',
          options: ['eu', 'us'].map((region) => ({ text: plain(region.toUpperCase()), value: region })),
        },
      },
    ],
  };
}

/** A modal with the selects whose values Slack sends as ids or lists rather than one option. */
function placeModal(channel: string) {
  return {
    type: 'modal' as const,
    callback_id: 'place',
    private_metadata: channel,
    title: plain('Where'),
    submit: plain('Save'),
    blocks: [
      {
        type: 'input',
        block_id: 'card_channel',
        label: plain('Channel for its card'),
        element: {
          type: 'conversations_select',
          action_id: 'value',
          default_to_current_conversation: true,
          filter: { include: ['public', 'private'] },
        },
      },
      {
        type: 'input',
        block_id: 'labels',
        label: plain('Labels'),
        optional: true,
        element: {
          type: 'multi_static_select',
          action_id: 'value',
          options: ['cpu', 'latency', 'drill'].map((label) => ({ text: plain(label), value: label })),
        },
      },
    ],
  };
}

function attackCard(stage: string, withHalt: boolean) {
  return [
    { type: 'section', block_id: 'summary', text: { type: 'mrkdwn', text: `*CPU attack* on web-1\nStage: ${stage}` } },
    {
      type: 'section',
      block_id: 'length',
      text: { type: 'mrkdwn', text: 'Change length' },
      accessory: {
        type: 'static_select',
        action_id: 'set_length',
        placeholder: plain('Length'),
        options: ['5 minutes', '10 minutes'].map((length) => ({ text: plain(length), value: length.split(' ')[0] })),
      },
    },
    {
      type: 'actions',
      block_id: 'card_actions',
      elements: [
        ...(withHalt
          ? [
              {
                type: 'button',
                action_id: 'halt',
                text: plain('Halt'),
                style: 'danger',
                value: 'attack-1',
                confirm: {
                  title: plain('Halt attack?'),
                  text: plain('This stops the attack now.'),
                  confirm: plain('Halt'),
                  deny: plain('Keep running'),
                },
              },
            ]
          : []),
        { type: 'button', action_id: 'details', text: plain('Details'), value: 'attack-1' },
      ],
    },
  ];
}

/** One row per attack, each with a Halt button of the same text and action id, as lists have. */
function attackList(guids: string[]) {
  return guids.map((guid) => ({
    type: 'section',
    text: { type: 'mrkdwn', text: `*CPU attack* \`${guid}\`` },
    accessory: { type: 'button', action_id: 'halt_listed', text: plain('Halt'), style: 'danger', value: guid },
  }));
}

export async function startMinimalApp(fake: FakeSlack, options: { appToken?: string } = {}): Promise<MinimalApp> {
  const errors: string[] = [];
  const logger = capturingLogger(errors);
  const seen: MinimalApp['seen'] = { commands: [], actions: [], homeOpened: [], closed: [] };
  let slowGate: Promise<void> = Promise.resolve();

  const clientOptions = { slackApiUrl: fake.apiUrl };
  const app =
    options.appToken === undefined
      ? new App({
          token: BOT_TOKEN,
          receiver: new HTTPReceiver({ signingSecret: SIGNING_SECRET, logger }),
          logger,
          clientOptions,
        })
      : new App({ token: BOT_TOKEN, appToken: options.appToken, socketMode: true, logger, clientOptions });

  app.command('/chaos', async ({ command, ack, respond, client }) => {
    seen.commands.push({ ...command });
    const [subcommand] = command.text.split(' ');
    switch (subcommand) {
      case 'login':
        await ack();
        await client.views.open({ trigger_id: command.trigger_id, view: loginModal(command.channel_id) });
        return;
      case 'place':
        await ack();
        await client.views.open({ trigger_id: command.trigger_id, view: placeModal(command.channel_id) });
        return;
      case 'slow':
        await ack();
        await slowGate;
        await client.views.open({ trigger_id: command.trigger_id, view: loginModal(command.channel_id) });
        return;
      case 'twice':
        await ack();
        await client.views.open({ trigger_id: command.trigger_id, view: loginModal(command.channel_id) });
        await client.views.open({ trigger_id: command.trigger_id, view: loginModal(command.channel_id) });
        return;
      case 'card': {
        await ack({ text: 'Starting the attack…' });
        await client.chat.postMessage({
          channel: command.channel_id,
          text: 'CPU attack on web-1',
          blocks: attackCard('Running', true),
        });
        return;
      }
      case 'list':
        await ack();
        await client.chat.postMessage({
          channel: command.channel_id,
          text: 'Active attacks',
          blocks: attackList(['attack-1', 'attack-2', 'attack-3']),
        });
        return;
      case 'announce':
        await ack();
        await respond({ response_type: 'in_channel', text: `<@${command.user_id}> started a game day` });
        return;
      case 'noop':
        await ack();
        return;
      default:
        await ack({
          text: 'Usage: /chaos login | card | announce',
          blocks: [
            { type: 'section', text: { type: 'mrkdwn', text: 'Usage: `/chaos login | card | announce`' } },
            { type: 'actions', elements: [{ type: 'button', action_id: 'dismiss', text: plain('Dismiss') }] },
          ],
        });
    }
  });

  app.options('team_search', async ({ options, ack }) => {
    const query = options.value.toLowerCase();
    if (query === 'everything') {
      await ack({
        options: Array.from({ length: 101 }, (_, index) => ({ text: plain(`Team ${index}`), value: `team-${index}` })),
      });
      return;
    }
    await ack({
      options: TEAMS.filter((team) => team.toLowerCase().includes(query)).map((team) => ({
        text: plain(team),
        value: team.toLowerCase(),
      })),
    });
  });

  app.view('login', async ({ view, body, ack, client }) => {
    const values = view.state.values;
    const email = values['email']?.['value']?.value ?? '';
    if (email === 'misplaced-error') {
      await ack({ response_action: 'errors', errors: { username: 'No such field in this modal' } });
      return;
    }
    if (email === 'mfa@example.com' || email === 'broken@example.com') {
      const title = email === 'mfa@example.com' ? 'Two-factor code' : 'A title far too long for Slack';
      await ack({
        response_action: 'update',
        view: {
          type: 'modal',
          callback_id: 'mfa',
          title: plain(title),
          submit: plain('Verify'),
          blocks: [
            {
              type: 'input',
              block_id: 'code',
              label: plain('Code'),
              element: { type: 'plain_text_input', action_id: 'value' },
            },
          ],
        },
      });
      return;
    }
    if (!email.includes('@')) {
      await ack({ response_action: 'errors', errors: { email: 'Enter an email address' } });
      return;
    }
    await ack();
    const team = values['team']?.['team_search']?.selected_option?.text.text ?? 'none';
    await client.chat.postEphemeral({
      channel: view.private_metadata,
      user: body.user.id,
      text: `Logged in as ${email} in team ${team}`,
    });
  });

  app.view('place', async ({ view, body, ack, client }) => {
    await ack();
    const values = view.state.values;
    const channel = values['card_channel']?.['value']?.selected_conversation ?? 'none';
    const labels =
      (values['labels']?.['value']?.selected_options ?? []).map((option) => option.value).join(',') || 'none';
    await client.chat.postEphemeral({
      channel: view.private_metadata,
      user: body.user.id,
      text: `Card in ${channel}; labels ${labels}`,
    });
  });

  app.view({ callback_id: 'login', type: 'view_closed' }, async ({ ack, body }) => {
    await ack();
    seen.closed.push(body.user.id);
  });

  app.action('halt', async ({ ack, body, client, respond }) => {
    await ack();
    seen.actions.push({ ...body });
    if (body.type !== 'block_actions' || body.message === undefined || body.channel === undefined) return;
    const channel = body.channel.id;
    const ts = body.message.ts;
    await client.chat.update({
      channel,
      ts,
      text: 'CPU attack on web-1 (halted)',
      blocks: attackCard('Halted', false),
    });
    await client.chat.postMessage({ channel, thread_ts: ts, text: `Halted by <@${body.user.id}>` });
    await respond({ text: 'You halted the attack.' });
  });

  app.action('halt_listed', async ({ ack, body }) => {
    // Seen before the ack, so the click that sent it has already been recorded when it returns.
    seen.actions.push({ ...body });
    await ack();
  });

  app.action('set_length', async ({ ack, body, action, client }) => {
    await ack();
    if (
      body.type !== 'block_actions' ||
      action.type !== 'static_select' ||
      body.channel === undefined ||
      body.message === undefined
    )
      return;
    await client.chat.postMessage({
      channel: body.channel.id,
      thread_ts: body.message.ts,
      text: `Length set to ${action.selected_option.text.text} by <@${body.user.id}>`,
    });
  });

  app.action('dismiss', async ({ ack, respond }) => {
    await ack();
    await respond({ delete_original: true });
  });

  app.action('details', async ({ ack, respond }) => {
    await ack();
    await respond({ replace_original: true, text: 'Details: CPU 80% for 60 s' });
  });

  app.shortcut('file_ticket', async ({ shortcut, ack, client }) => {
    await ack();
    if (shortcut.type !== 'message_action') return;
    const { permalink } = await client.chat.getPermalink({
      channel: shortcut.channel.id,
      message_ts: shortcut.message.ts,
    });
    await client.views.open({
      trigger_id: shortcut.trigger_id,
      view: {
        type: 'modal',
        callback_id: 'ticket',
        title: plain('File ticket'),
        submit: plain('File'),
        private_metadata: JSON.stringify({ channel: shortcut.channel.id, ts: shortcut.message.ts }),
        blocks: [
          {
            type: 'input',
            block_id: 'summary',
            label: plain('Summary'),
            element: { type: 'plain_text_input', action_id: 'value', initial_value: shortcut.message.text ?? '' },
          },
          { type: 'context', elements: [{ type: 'mrkdwn', text: `From ${permalink ?? ''}` }] },
        ],
      },
    });
  });

  app.view('ticket', async ({ ack }) => {
    await ack({
      response_action: 'push',
      view: {
        type: 'modal',
        callback_id: 'ticket_filed',
        title: plain('Ticket filed'),
        submit: plain('Done'),
        blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'Filed *OPS-42*' } }],
      },
    });
  });

  app.view('ticket_filed', async ({ ack }) => {
    await ack({ response_action: 'clear' });
  });

  app.event('app_home_opened', async ({ event, client, context }) => {
    seen.homeOpened.push({
      ...(context.retryNum !== undefined ? { retryNum: context.retryNum } : {}),
      ...(context.retryReason !== undefined ? { retryReason: context.retryReason } : {}),
    });
    await client.views.publish({
      user_id: event.user,
      view: {
        type: 'home',
        blocks: [
          { type: 'header', text: plain('Faultline') },
          { type: 'section', text: { type: 'mrkdwn', text: `Welcome, <@${event.user}>` } },
          {
            type: 'actions',
            elements: [
              { type: 'button', action_id: 'home_login', text: plain('Log in') },
              { type: 'button', action_id: 'home_place', text: plain('Choose a place') },
            ],
          },
        ],
      },
    });
  });

  app.action('home_login', async ({ ack, body, client }) => {
    await ack();
    if (body.type !== 'block_actions') return;
    await client.views.open({ trigger_id: body.trigger_id, view: loginModal('C0GENERAL') });
  });

  app.action('home_place', async ({ ack, body, client }) => {
    await ack();
    if (body.type !== 'block_actions') return;
    await client.views.open({ trigger_id: body.trigger_id, view: placeModal('C0GENERAL') });
  });

  let url: string | undefined;
  if (options.appToken === undefined) {
    const server = (await app.start({ port: 0, host: '127.0.0.1' })) as Server;
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
    fake.setBotUrl(url);
  } else {
    // Resolves once the fake Slack has said hello on the socket.
    await app.start();
  }
  return {
    app,
    url,
    errors,
    seen,
    holdSlow() {
      let release!: () => void;
      slowGate = new Promise<void>((resolve) => {
        release = resolve;
      });
      return release;
    },
    stop: () => app.stop() as Promise<void>,
  };
}

/**
 * A fake Slack and the minimal app in HTTP mode, for the test that is running (call it from the
 * test or its beforeEach): both stop when that test finishes, the app first.
 */
export async function startFakeSlackWithApp(): Promise<{ fake: FakeSlack; bot: MinimalApp }> {
  const fake = await startFakeSlack({ signingSecret: SIGNING_SECRET, botToken: BOT_TOKEN });
  onTestFinished(() => fake.stop());
  const bot = await startMinimalApp(fake);
  onTestFinished(() => bot.stop());
  return { fake, bot };
}
