/**
 * The Slack adapter alone, with Bolt's arguments built by hand and handlers written for each
 * test: ack first, replies turned into the right Slack calls, every failure into words. The
 * end-to-end tests cover the same paths through the real Bolt app and the fake Slack.
 */
import { Writable } from 'node:stream';
import type { ModalView } from '@slack/types';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { UnauthorizedError } from '../../src/client/errors.ts';
import type { Bot } from '../../src/bootstrap.ts';
import { UserInputError } from '../../src/errors.ts';
import { createLogger } from '../../src/logger.ts';
import { createMetrics, type Metrics } from '../../src/metrics.ts';
import { SlackAdapter, type Listeners } from '../../src/slack/adapter.ts';
import { once, type Reply } from '../../src/commands/command.ts';
import type { Actor } from '../../src/store/sessions.ts';
import { modal, section } from '../../src/views/blocks.ts';
import { LOGIN_BUTTON } from '../../src/views/login/login.ts';
import { restartingText } from '../../src/views/notice.ts';
import {
  actionDelivery,
  commandDelivery,
  eventDelivery,
  optionsDelivery,
  RecordingApp,
  responseUrl,
  shortcutDelivery,
  viewDelivery,
  workspace,
  unitBot,
  type Delivery,
} from '../support/bolt.ts';

let deps: Bot;
let metrics: Metrics;
let logs: { level: string; msg: string }[];

beforeEach(() => {
  logs = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean))
        logs.push(JSON.parse(line) as { level: string; msg: string });
      done();
    },
  });
  deps = unitBot(createLogger('debug', destination));
  metrics = createMetrics();
});

afterEach(async () => {
  vi.useRealTimers();
  await deps.platform.close();
  await deps.store.close();
});

const errorLogs = () => logs.filter((line) => line.level === 'error' || line.level === 'fatal').map((line) => line.msg);

function listeners(overrides: Partial<Listeners> = {}): Listeners {
  return {
    command: () => async () => ({ kind: 'none' }),
    actions: {},
    views: {},
    options: {},
    shortcuts: {},
    steps: {},
    events: {},
    ...overrides,
  };
}

/** An adapter registered on a RecordingApp with these listeners. */
function register(overrides: Partial<Listeners>) {
  const adapter = new SlackAdapter(deps.services, { store: deps.store, metrics });
  const app = new RecordingApp();
  adapter.register(app.app, listeners(overrides));
  return { adapter, app };
}

/** A handler that fails with `error`. */
const failing = (error: Error) => async (): Promise<never> => {
  throw error;
};
const say = (text: string): Reply => ({ kind: 'message', message: { text } });
const form = (title: string): ModalView => modal('form', title, [section(title)]);

describe('slash commands', () => {
  it('acks before the handler runs, then answers ephemerally through response_url', async () => {
    let delivery!: Delivery;
    const seen: { text: string; actor: Actor; responseUrl: string | undefined }[] = [];
    const { app } = register({
      command: (text, actor, responseUrl) => async () => {
        delivery.log.push('handler');
        seen.push({ text, actor, responseUrl });
        return say('done');
      },
    });
    delivery = commandDelivery('list active', { userId: 'U0ALICE', channelId: 'C0OPS' });
    await app.deliver('command', '/chaos', delivery);

    expect(delivery.log).toEqual(['ack', 'handler', 'respond']);
    expect(delivery.acks).toEqual([undefined]);
    expect(seen).toEqual([
      {
        text: 'list active',
        actor: { workspaceId: workspace, userId: 'U0ALICE', userName: 'u0alice', channelId: 'C0OPS' },
        responseUrl,
      },
    ]);
    expect(delivery.responds).toEqual([{ response_type: 'ephemeral', replace_original: false, text: 'done' }]);
  });

  it('listens on the configured slash command only', () => {
    const { app } = register({});
    expect(app.registered('command')).toEqual([deps.config.slack.command]);
  });

  it('answers a UserInputError with its words and the usage under the slash command, logging no error', async () => {
    const { app } = register({ command: () => failing(new UserInputError('Give a team name.', 'team [name or id]')) });
    const delivery = commandDelivery('team');
    await app.deliver('command', '/chaos', delivery);
    expect(delivery.log).toEqual(['ack', 'respond']);
    expect(delivery.replyText()).toBe('Give a team name.\nUsage: `/chaos team [name or id]`');
    expect(errorLogs()).toEqual([]);
  });

  it('on a 401 drops the stored session, counts the platform error and offers Log in', async () => {
    const actor = { workspaceId: workspace, userId: 'U0REVOKED' };
    await deps.sessions.save(actor, {
      header: 'Bearer unit',
      expires_at: new Date(Date.now() + 3_600_000).toISOString(),
      teams: [],
      roles: [],
      privileges: [],
    });
    expect(await deps.sessions.get(actor)).toBeDefined();
    const { app } = register({
      command: () => failing(new UnauthorizedError('session', { method: 'GET', path: '/attacks/active', status: 401 })),
    });
    const delivery = commandDelivery('list', { userId: 'U0REVOKED' });
    await app.deliver('command', '/chaos', delivery);

    expect(await deps.sessions.get(actor)).toBeUndefined();
    expect(JSON.stringify(delivery.responds[0]!['blocks'])).toContain(LOGIN_BUTTON);
    expect(delivery.replyText()).toContain('Log in again');
    expect((await metrics.platformErrors.get()).values).toEqual([
      expect.objectContaining({ labels: { type: 'UnauthorizedError' }, value: 1 }),
    ]);
    expect(errorLogs()).toEqual([]);
  });

  it('logs an unexpected failure as an error and answers without its details', async () => {
    const { app } = register({ command: () => failing(new Error('connection string postgres://admin:hunter2@db')) });
    const delivery = commandDelivery('whoami');
    await app.deliver('command', '/chaos', delivery);
    expect(delivery.replyText()).toMatch(/^Something went wrong in Faultline/);
    expect(delivery.replyText()).not.toContain('hunter2');
    expect(errorLogs()).toEqual(['handler failed']);
    expect((await metrics.interactions.get()).values).toEqual([
      expect.objectContaining({ labels: { kind: 'command', outcome: 'ok' }, value: 1 }),
    ]);
  });

  it('opens a modal with the trigger, then replaces it with what the slower follow-up gives', async () => {
    const { app } = register({
      command: () => async () => ({ kind: 'openModal', view: form('Loading'), followUp: async () => form('Ready') }),
    });
    const delivery = commandDelivery('ticket 6f1c2d3e-aaaa');
    await app.deliver('command', '/chaos', delivery);
    expect(delivery.log).toEqual(['ack', 'views.open', 'views.update']);
    expect(delivery.calls[0]!.args).toMatchObject({
      trigger_id: 'trigger-command',
      view: { title: { text: 'Loading' } },
    });
    expect(delivery.calls[1]!.args).toMatchObject({
      view_id: 'V0OPENED',
      hash: 'hash-1',
      view: { title: { text: 'Ready' } },
    });
  });

  it('shows a failing follow-up as words in the modal it opened', async () => {
    const { app } = register({
      command: () => async () => ({
        kind: 'openModal',
        view: form('File a ticket'),
        followUp: failing(new UserInputError('That attack is gone.')),
      }),
    });
    const delivery = commandDelivery('ticket 6f1c2d3e-aaaa');
    await app.deliver('command', '/chaos', delivery);
    expect(delivery.calls.map((c) => c.method)).toEqual(['views.open', 'views.update']);
    expect(delivery.calls[1]!.args).toMatchObject({ view_id: 'V0OPENED', view: { title: { text: 'File a ticket' } } });
    expect(JSON.stringify(delivery.calls[1]!.args['view'])).toContain('That attack is gone.');
  });
});

describe('buttons', () => {
  it('acks first, passes the value, and replaces the clicked message when the reply asks to', async () => {
    let delivery!: Delivery;
    const { app } = register({
      actions: {
        attack_halt: async (action) => {
          delivery.log.push(`handler:${action.value}:${action.container}`);
          return { kind: 'message', message: { text: 'halted' }, replaceOriginal: true };
        },
      },
    });
    delivery = actionDelivery('attack_halt', { value: 'ref-1' });
    await app.deliver('action', 'attack_halt', delivery);
    expect(delivery.log).toEqual(['ack', 'handler:ref-1:message', 'respond']);
    expect(delivery.responds).toEqual([{ response_type: 'ephemeral', replace_original: true, text: 'halted' }]);
  });

  it('shows a reply to a click inside a modal on top of it', async () => {
    const { app } = register({ actions: { attack_details: async () => say('details') } });
    const delivery = actionDelivery('attack_details', { container: 'modal' });
    await app.deliver('action', 'attack_details', delivery);
    expect(delivery.log).toEqual(['ack', 'views.push']);
    expect(delivery.calls[0]!.args).toMatchObject({ trigger_id: 'trigger-action' });
    expect(JSON.stringify(delivery.calls[0]!.args['view'])).toContain('details');
  });

  it('redraws App Home after a click there', async () => {
    const refreshed: string[] = [];
    const { app } = register({
      actions: { home_switch_team: async () => ({ kind: 'openModal', view: form('Team') }) },
      refreshHome: async (actor) => {
        refreshed.push(actor.userId);
      },
    });
    const delivery = actionDelivery('home_switch_team', { container: 'home', userId: 'U0HOME' });
    await app.deliver('action', 'home_switch_team', delivery);
    expect(delivery.log).toEqual(['ack', 'views.open']);
    expect(refreshed).toEqual(['U0HOME']);
  });

  it("answers a message shortcut in the app's messages, where nothing else can show it", async () => {
    const { app } = register({
      shortcuts: { file_ticket: async ({ channel, messageTs }) => say(`not a card: ${channel} ${messageTs}`) },
    });
    const delivery = shortcutDelivery('file_ticket', {
      userId: 'U0SHORT',
      channelId: 'C0OPS',
      messageTs: '1700000000.000100',
    });
    await app.deliver('shortcut', 'file_ticket', delivery);
    expect(delivery.log).toEqual(['ack', 'chat.postMessage']);
    expect(delivery.calls[0]!.args).toEqual({ channel: 'U0SHORT', text: 'not a card: C0OPS 1700000000.000100' });
  });

  it('updates the modal a select changed', async () => {
    const { app } = register({
      actions: { attack_type_select: async () => ({ kind: 'updateModal', view: form('Builder') }) },
    });
    const delivery = actionDelivery('attack_type_select', { container: 'modal', viewId: 'V0BUILDER' });
    await app.deliver('action', 'attack_type_select', delivery);
    expect(delivery.calls).toEqual([{ method: 'views.update', args: { view_id: 'V0BUILDER', view: form('Builder') } }]);
  });
});

describe('an entry that changes state', () => {
  const repeats = () => logs.filter((line) => line.msg === 'a request came again; what it asked was done once').length;

  it('runs once per delivery: the same click sent again does nothing and gets no answer', async () => {
    let runs = 0;
    const { app } = register({
      actions: {
        approval_approve: once(async () => {
          runs += 1;
          return say('approved');
        }),
      },
    });
    const first = actionDelivery('approval_approve');
    await app.deliver('action', 'approval_approve', first);
    const again = actionDelivery('approval_approve');
    await app.deliver('action', 'approval_approve', again);
    expect(runs).toBe(1);
    expect(first.log).toEqual(['ack', 'respond']);
    expect(again.log).toEqual(['ack']);
    expect(repeats()).toBe(1);
  });

  it('runs an entry that changes nothing every time it comes', async () => {
    let runs = 0;
    const { app } = register({
      actions: {
        attack_details: async () => {
          runs += 1;
          return say('details');
        },
      },
    });
    await app.deliver('action', 'attack_details', actionDelivery('attack_details'));
    await app.deliver('action', 'attack_details', actionDelivery('attack_details'));
    expect(runs).toBe(2);
    expect(repeats()).toBe(0);
  });

  it('gives back a form answered with field errors: the corrected one is taken, and only once', async () => {
    const seen: (string | undefined)[] = [];
    const { app } = register({
      views: {
        note: once(async (submission) => {
          const text = submission.inputs['note_text'];
          seen.push(text);
          return text ? { kind: 'close' } : { kind: 'errors', errors: { note_text: 'Write the note first.' } };
        }),
      },
    });
    const empty = viewDelivery('note', {});
    await app.deliver('view', 'note', empty);
    expect(empty.acks).toEqual([{ response_action: 'errors', errors: { note_text: 'Write the note first.' } }]);
    // The same view at the same hash, corrected: Slack keeps both while the modal stays open.
    await app.deliver('view', 'note', viewDelivery('note', { note_text: 'checkout held' }));
    const again = viewDelivery('note', { note_text: 'checkout held' });
    await app.deliver('view', 'note', again);
    expect(seen).toEqual([undefined, 'checkout held']);
    expect(again.acks).toEqual([undefined]);
    expect(repeats()).toBe(1);
  });

  it('gives back a command that refused its input: sent again it is taken, and then only once', async () => {
    const outcomes = [
      () => {
        throw new UserInputError('Give a team name.', 'team [name or id]');
      },
      () => say('Team selected.'),
    ];
    let runs = 0;
    const { app } = register({ command: () => once(async () => outcomes[runs++]!()) });
    const refused = commandDelivery('team');
    await app.deliver('command', '/chaos', refused);
    expect(refused.replyText()).toContain('Give a team name.');
    const taken = commandDelivery('team');
    await app.deliver('command', '/chaos', taken);
    expect(taken.replyText()).toBe('Team selected.');
    await app.deliver('command', '/chaos', commandDelivery('team'));
    expect(runs).toBe(2);
    expect(repeats()).toBe(1);
  });

  it('keeps the claim of a delivery whose work failed past its checks: sent again, it does nothing', async () => {
    let runs = 0;
    const { app } = register({
      actions: {
        halt_all_confirmed: once(async () => {
          runs += 1;
          throw new Error('platform went away halfway');
        }),
      },
    });
    await app.deliver('action', 'halt_all_confirmed', actionDelivery('halt_all_confirmed'));
    await app.deliver('action', 'halt_all_confirmed', actionDelivery('halt_all_confirmed'));
    expect(runs).toBe(1);
    expect(repeats()).toBe(1);
    expect(errorLogs()).toEqual(['handler failed']);
  });
});

describe('modal submissions', () => {
  it("acks with the handler's response action when it answers in time", async () => {
    const seen: Record<string, string | undefined>[] = [];
    const { app } = register({
      views: {
        login: async (submission) => {
          seen.push(submission.inputs);
          return { kind: 'errors', errors: { login_email: 'Enter an e-mail.' } };
        },
      },
    });
    const delivery = viewDelivery('login', { login_email: 'nobody' });
    await app.deliver('view', 'login', delivery);
    expect(seen).toEqual([{ login_email: 'nobody' }]);
    expect(delivery.acks).toEqual([{ response_action: 'errors', errors: { login_email: 'Enter an e-mail.' } }]);
    expect(delivery.calls).toEqual([]);
  });

  it('closes the modal with a bare ack', async () => {
    const { app } = register({ views: { note: async () => ({ kind: 'close' }) } });
    const delivery = viewDelivery('note');
    await app.deliver('view', 'note', delivery);
    expect(delivery.acks).toEqual([undefined]);
  });

  it('tells Slack to wait when the handler is slow, then puts the outcome in the modal', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let finish!: () => void;
    const { app } = register({
      views: {
        ticket: () =>
          new Promise((resolve) => {
            finish = () => resolve({ kind: 'update', view: form('Ticket filed') });
          }),
      },
    });
    const delivery = viewDelivery('ticket');
    const delivered = app.deliver('view', 'ticket', delivery);
    await vi.advanceTimersByTimeAsync(1_999);
    expect(delivery.acks).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(delivery.acks).toEqual([
      { response_action: 'update', view: expect.objectContaining({ callback_id: 'ticket' }) },
    ]);
    expect(JSON.stringify(delivery.acks[0])).toContain('Working on it');
    finish();
    await delivered;
    expect(delivery.calls).toEqual([
      { method: 'views.update', args: { view_id: 'V0SUBMITTED', view: form('Ticket filed') } },
    ]);
  });

  it('shows a failure as words in the modal', async () => {
    const { app } = register({ views: { team_picker: failing(new UserInputError('Choose one of your teams.')) } });
    const delivery = viewDelivery('team_picker');
    await app.deliver('view', 'team_picker', delivery);
    expect(delivery.acks).toEqual([{ response_action: 'update', view: expect.objectContaining({ type: 'modal' }) }]);
    expect(JSON.stringify(delivery.acks[0])).toContain('Choose one of your teams.');
  });

  it('redraws App Home after the views that change it', async () => {
    const refreshed: string[] = [];
    const { app } = register({
      views: { login: async () => ({ kind: 'close' }), note: async () => ({ kind: 'close' }) },
      refreshHome: async (actor) => {
        refreshed.push(actor.userId);
      },
      refreshHomeAfterViews: ['login'],
    });
    await app.deliver('view', 'note', viewDelivery('note', {}, { userId: 'U0NOTE' }));
    await app.deliver('view', 'login', viewDelivery('login', {}, { userId: 'U0LOGIN' }));
    expect(refreshed).toEqual(['U0LOGIN']);
  });
});

describe('option lists', () => {
  it("acks with the options found, text cut to Slack's 75 characters", async () => {
    const { app } = register({
      options: { team_choice: async ({ query }) => [{ text: `${query} ${'x'.repeat(100)}`, value: 't-1' }] },
    });
    const delivery = optionsDelivery('Pay');
    await app.deliver('options', 'team_choice', delivery);
    const [ack] = delivery.acks as { options: { text: { text: string }; value: string }[] }[];
    expect(ack!.options).toHaveLength(1);
    expect(ack!.options[0]!.text.text).toHaveLength(75);
    expect(ack!.options[0]!.value).toBe('t-1');
  });

  it('acks with no options when the lookup fails', async () => {
    const { app } = register({ options: { team_choice: failing(new Error('store down')) } });
    const delivery = optionsDelivery('Pay');
    await app.deliver('options', 'team_choice', delivery);
    expect(delivery.acks).toEqual([{ options: [] }]);
    expect(logs.some((line) => line.msg === 'options lookup failed')).toBe(true);
  });
});

describe('events', () => {
  it('runs app_home_opened for the Home tab only', async () => {
    const opened: string[] = [];
    const { app } = register({
      events: {
        app_home_opened: async (actor) => {
          opened.push(actor.userId);
        },
      },
    });
    await app.deliver(
      'event',
      'app_home_opened',
      eventDelivery({ type: 'app_home_opened', user: 'U0MSG', tab: 'messages' }),
    );
    await app.deliver(
      'event',
      'app_home_opened',
      eventDelivery({ type: 'app_home_opened', user: 'U0HOME', tab: 'home' }),
    );
    expect(opened).toEqual(['U0HOME']);
  });
});

describe('stopping', () => {
  it('lets work in flight finish and refuses what comes after, still answering Slack', async () => {
    let release!: () => void;
    const started: string[] = [];
    const { adapter, app } = register({
      command: (text) => async () => {
        started.push(text);
        if (text === 'slow') await new Promise<void>((resolve) => (release = resolve));
        return say(`done ${text}`);
      },
      views: { login: async () => ({ kind: 'close' }) },
      actions: { halt_attack: async () => say('halted') },
      shortcuts: { file_ticket: async () => say('ticket') },
    });
    const slow = commandDelivery('slow');
    const inFlight = app.deliver('command', '/chaos', slow);
    await vi.waitUntil(() => started.length === 1);
    let drained = false;
    const draining = adapter.drain().then(() => (drained = true));

    // Everything that arrives now is acked and answered with the restarting message, never dropped.
    const late = commandDelivery('late');
    await app.deliver('command', '/chaos', late);
    expect(late.acks).toEqual([{ response_type: 'ephemeral', text: restartingText }]);
    const submission = viewDelivery('login');
    await app.deliver('view', 'login', submission);
    expect(JSON.stringify(submission.acks)).toContain(restartingText);
    const click = actionDelivery('halt_attack');
    await app.deliver('action', 'halt_attack', click);
    expect(click.log).toEqual(['ack', 'respond']);
    expect(click.responds).toEqual([expect.objectContaining({ response_type: 'ephemeral', text: restartingText })]);
    const inModal = actionDelivery('halt_attack', { container: 'modal' });
    await app.deliver('action', 'halt_attack', inModal);
    expect(inModal.log).toEqual(['ack', 'views.push']);
    expect(JSON.stringify(inModal.calls[0]!.args)).toContain(restartingText);
    const shortcut = shortcutDelivery('file_ticket');
    await app.deliver('shortcut', 'file_ticket', shortcut);
    expect(shortcut.log).toEqual(['ack', 'views.open']);
    expect(JSON.stringify(shortcut.calls[0]!.args)).toContain(restartingText);
    expect(drained).toBe(false);

    release();
    await Promise.all([inFlight, draining]);
    expect(started).toEqual(['slow']);
    expect(errorLogs()).toEqual([]);
    expect(slow.responds).toEqual([expect.objectContaining({ text: 'done slow' })]);
  });
});
