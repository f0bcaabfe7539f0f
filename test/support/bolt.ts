import { randomBytes } from 'node:crypto';
import type { App } from '@slack/bolt';
import { type Bot, createBot } from '../../src/bootstrap.ts';
import { loadConfig } from '../../src/config.ts';
import type { Logger } from '../../src/logger.ts';

/**
 * Bolt's side of the adapter, small enough for unit tests: an App that keeps the listeners
 * registered on it, and the arguments Bolt hands a listener (body, ack, respond, client) built
 * from a few fields. Everything the listener does with them lands, in order, in one `log`, so a
 * test can see that the ack came before the work.
 */

type Listener = (args: Record<string, unknown>) => Promise<void>;
type Kind = 'command' | 'action' | 'view' | 'options' | 'shortcut' | 'event' | 'function';

export const workspace = 'T0UNIT';
export const responseUrl = 'https://hooks.slack.test/commands/1';

/** The bot as built for an adapter under unit test: a memory store, a platform nobody calls. */
export function unitBot(logger: Logger): Bot {
  const config = loadConfig({
    PLATFORM_API_URL: 'https://platform.example/v1',
    SLACK_BOT_TOKEN: 'xoxb-unit',
    SLACK_SIGNING_SECRET: 'unit-secret',
    SESSION_KEY: randomBytes(32).toString('base64'),
    STORE_URL: 'memory://',
  });
  return createBot(config, { logger });
}

/** Registers like Bolt's App; `deliver` runs the listener for an id as Bolt would. */
export class RecordingApp {
  readonly #listeners = new Map<string, Listener>();

  readonly command = this.#on('command');
  readonly action = this.#on('action');
  readonly view = this.#on('view');
  readonly options = this.#on('options');
  readonly shortcut = this.#on('shortcut');
  readonly event = this.#on('event');
  readonly function = this.#on('function');

  #on(kind: Kind) {
    return (id: string | { action_id?: string; callback_id?: string }, listener: Listener) => {
      const key = typeof id === 'string' ? id : (id.action_id ?? id.callback_id);
      this.#listeners.set(`${kind}:${key}`, listener);
    };
  }

  get app(): App {
    return this as unknown as App;
  }

  registered(kind: Kind): string[] {
    return [...this.#listeners.keys()]
      .filter((key) => key.startsWith(`${kind}:`))
      .map((key) => key.slice(kind.length + 1));
  }

  async deliver(kind: Kind, id: string, delivery: Delivery): Promise<void> {
    const listener = this.#listeners.get(`${kind}:${id}`);
    if (!listener) throw new Error(`Nothing registered for ${kind} ${id}`);
    await listener(delivery.args);
  }
}

export interface WebApiCall {
  method: string;
  args: Record<string, unknown>;
}

/** One delivery: the arguments for the listener, and what it did with them. */
export class Delivery {
  /** `ack`, `respond` and Web API method names, plus whatever the test adds, in order. */
  readonly log: string[] = [];
  readonly acks: unknown[] = [];
  readonly responds: Record<string, unknown>[] = [];
  readonly calls: WebApiCall[] = [];
  readonly args: Record<string, unknown>;

  constructor(fields: Record<string, unknown>) {
    const record = (method: string) => async (args: Record<string, unknown>) => {
      this.log.push(method);
      this.calls.push({ method, args });
      return method === 'views.open' ? { ok: true, view: { id: 'V0OPENED', hash: 'hash-1' } } : { ok: true };
    };
    this.args = {
      context: {},
      ...fields,
      ack: async (response?: unknown) => {
        this.log.push('ack');
        this.acks.push(response);
      },
      respond: async (message: Record<string, unknown>) => {
        this.log.push('respond');
        this.responds.push(message);
      },
      client: {
        views: { open: record('views.open'), update: record('views.update'), push: record('views.push') },
        chat: { postMessage: record('chat.postMessage') },
      },
    };
  }

  /** The text of the one reply the person saw, wherever it went. */
  replyText(): string {
    const texts = [...this.responds.map((r) => r['text']), ...this.calls.map((c) => JSON.stringify(c.args))];
    if (texts.length !== 1) throw new Error(`Expected one reply, got ${texts.length}`);
    return String(texts[0]);
  }
}

const user = (userId: string, workspaceId = workspace) => ({
  id: userId,
  username: userId.toLowerCase(),
  name: userId.toLowerCase(),
  team_id: workspaceId,
});

/** A slash command, as Bolt passes it to `app.command`. */
export function commandDelivery(
  text: string,
  options: { userId?: string; channelId?: string; command?: string } = {},
): Delivery {
  const userId = options.userId ?? 'U0UNIT';
  return new Delivery({
    body: {
      command: options.command ?? '/chaos',
      text,
      user_id: userId,
      user_name: userId.toLowerCase(),
      team_id: workspace,
      channel_id: options.channelId ?? 'C0UNIT',
      response_url: responseUrl,
      trigger_id: 'trigger-command',
    },
  });
}

/** A button click in a message, a modal (`view`) or App Home (`home`). */
export function actionDelivery(
  actionId: string,
  options: { value?: string; userId?: string; container?: 'message' | 'modal' | 'home'; viewId?: string } = {},
): Delivery {
  const container = options.container ?? 'message';
  const view =
    container === 'message'
      ? undefined
      : {
          id: options.viewId ?? 'V0CURRENT',
          type: container === 'home' ? 'home' : 'modal',
          private_metadata: '',
          state: { values: {} },
        };
  return new Delivery({
    body: {
      type: 'block_actions',
      user: user(options.userId ?? 'U0UNIT'),
      team: { id: workspace },
      actions: [
        { action_id: actionId, type: 'button', ...(options.value !== undefined ? { value: options.value } : {}) },
      ],
      trigger_id: 'trigger-action',
      ...(view ? { view } : { channel: { id: 'C0UNIT' } }),
    },
  });
}

/** A modal submitted with text inputs (block id = action id = the key of `inputs`). */
export function viewDelivery(
  callbackId: string,
  inputs: Record<string, string> = {},
  options: { userId?: string; privateMetadata?: string; workspaceId?: string; viewId?: string } = {},
): Delivery {
  const view = {
    // Every form a person opens is a view of its own; the same id again would be a replay.
    id: options.viewId ?? 'V0SUBMITTED',
    type: 'modal',
    callback_id: callbackId,
    title: { type: 'plain_text', text: 'Form' },
    blocks: [],
    private_metadata: options.privateMetadata ?? '',
    state: {
      values: Object.fromEntries(
        Object.entries(inputs).map(([id, value]) => [id, { [id]: { type: 'plain_text_input', value } }]),
      ),
    },
  };
  const workspaceId = options.workspaceId ?? workspace;
  return new Delivery({
    body: {
      type: 'view_submission',
      user: user(options.userId ?? 'U0UNIT', workspaceId),
      team: { id: workspaceId },
      view,
    },
    view,
  });
}

/** An external select asking for options as the person types. */
export function optionsDelivery(query: string, options: { userId?: string } = {}): Delivery {
  return new Delivery({
    body: { type: 'block_suggestion', user: user(options.userId ?? 'U0UNIT'), team: { id: workspace }, value: query },
    options: { value: query },
  });
}

/** A message shortcut run on a message in a channel. */
export function shortcutDelivery(
  callbackId: string,
  options: { userId?: string; channelId?: string; messageTs?: string } = {},
): Delivery {
  return new Delivery({
    body: {
      type: 'message_action',
      callback_id: callbackId,
      user: user(options.userId ?? 'U0UNIT'),
      team: { id: workspace },
      channel: { id: options.channelId ?? 'C0UNIT' },
      message: { ts: options.messageTs ?? '1700000000.000100', text: 'a message' },
      trigger_id: 'trigger-shortcut',
    },
  });
}

/** An Events API event for a user, e.g. `app_home_opened`. */
export function eventDelivery(event: Record<string, unknown>): Delivery {
  return new Delivery({ event, body: { team_id: workspace, event } });
}
