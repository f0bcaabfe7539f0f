import { randomUUID } from 'node:crypto';
import type { App, RespondFn } from '@slack/bolt';
import { StartUnfinishedError } from '../attacks/start.ts';
import { ForbiddenError, PlatformError, UnauthorizedError } from '../client/errors.ts';
import { NoTeamSelectedError, NotLoggedInError, UserInputError } from '../errors.ts';
import { StoreUnavailableError } from '../store/errors.ts';
import { keys } from '../store/keys.ts';
import { describeError } from '../views/errorReply.ts';
import {
  type ActionHandler,
  type Entry,
  isOnce,
  type OptionsHandler,
  type Reply,
  type SlackbotTool,
  type SubmissionHandler,
  type WorkflowStepHandler,
} from '../commands/command.ts';
import type { Services } from '../services.ts';
import type { KeyValueStore } from '../store/keyValue.ts';
import type { Logger } from '../logger.ts';
import { arrivals } from '../http.ts';
import type { Metrics } from '../metrics.ts';
import type { Actor } from '../store/sessions.ts';
import type { Message } from '../views/message.ts';
import { deliver, type ReplySender, type Respond, responsePayload, type Target } from './replies.ts';
import {
  listenToActions,
  listenToCommand,
  listenToEvents,
  listenToOptions,
  listenToShortcuts,
} from './interactions.ts';
import { listenToSubmissions } from './submissions.ts';
import { listenToWorkflowSteps } from './workflowSteps.ts';

type Kind = 'command' | 'action' | 'view' | 'options' | 'shortcut' | 'event' | 'step' | 'tool';

/**
 * Every id the app answers to, mapped to its handler: the one registration table. An entry that
 * changes state says so (`once`), and runs once per delivery (see oncePerDelivery).
 */
export interface Listeners {
  /** The subcommand a slash command's text names, its arguments read: what runs on them. */
  command: (text: string, actor: Actor, responseUrl: string | undefined) => Entry<(deps: Services) => Promise<Reply>>;
  actions: Record<string, Entry<ActionHandler>>;
  views: Record<string, Entry<SubmissionHandler>>;
  options: Record<string, OptionsHandler>;
  /** Message shortcuts by callback id (each must be in manifest.yml). */
  shortcuts: Record<string, ShortcutHandler>;
  /** Workflow Builder custom steps by callback id (each must be a function in manifest.yml). */
  steps: Record<string, WorkflowStepHandler>;
  /** The tools Slackbot calls on /mcp, with MCP_ENABLED (src/slack/mcp.ts). */
  tools?: SlackbotTool[];
  /** Events API event types (each must be a bot event in manifest.yml). */
  events: Record<string, (actor: Actor, deps: Services) => Promise<void>>;
  /**
   * Redraws a person's App Home after they act from it, or submit a view listed here; with the
   * answer to an action taken on Home, which has no response_url and no modal to show it in.
   */
  refreshHome?: (actor: Actor, deps: Services, answer?: { notice?: Message | undefined }) => Promise<void>;
  refreshHomeAfterViews?: string[];
  /** Buttons in a modal whose click changes what Home lists (a start from the builder Home opens). */
  refreshHomeAfterActions?: string[];
  /** Draws Home again for whoever halted an attack there, once it has ended (a background job). */
  followHomeHalts?: (services: Services) => Promise<void>;
}

export type ShortcutHandler = (
  shortcut: { actor: Actor; channel: string; messageTs: string },
  deps: Services,
) => Promise<Reply>;

/**
 * The only code that knows Bolt: it registers every entry of the listener table, each kind in the
 * file that says how it is answered (interactions.ts, submissions.ts, workflowSteps.ts).
 * What every request shares is here: it is counted while it runs (drain awaits it), answered
 * "restarting" while stopping, run once per delivery if its entry changes state, its reply turned
 * into Slack calls (replies.ts) and its failure into words (explainFailure).
 */
export class SlackAdapter {
  readonly deps: Services;
  readonly #metrics: Metrics;
  readonly #inFlight = new Set<Promise<unknown>>();
  #accepting = true;
  /** Replies to response_urls; without it, Bolt's `respond` (one new connection per reply). */
  readonly #replies: ReplySender | undefined;
  /** A failure in words for the person (and a dropped session on 401): see explainFailure. */
  readonly explain: (actor: Actor, error: unknown) => Promise<Message>;

  /** Where a delivery is claimed, so an entry that changes state runs once per delivery. */
  readonly #claims: { store: KeyValueStore; logger: Logger };

  constructor(
    deps: Services,
    parts: { store: KeyValueStore; metrics: Metrics },
    options: { replies?: ReplySender } = {},
  ) {
    const { metrics } = parts;
    this.deps = deps;
    this.#claims = { store: parts.store, logger: deps.logger };
    this.#metrics = metrics;
    this.#replies = options.replies;
    this.explain = explainFailure(deps, metrics);
  }

  /** Runs a handler; any failure becomes an ephemeral explanation (and a dropped session on 401). */
  async safely(actor: Actor, run: () => Promise<Reply>): Promise<Reply> {
    try {
      return await run();
    } catch (error) {
      return { kind: 'message', message: await this.explain(actor, error) };
    }
  }

  deliver(reply: Reply, target: Target): Promise<void> {
    return deliver(reply, target, this.explain);
  }

  /**
   * Called right after an ack: in a burst every delivery is taken and acked first, then the work
   * they asked for runs (see Arrivals). Slack's 3 s count to the ack only; a reply may follow for
   * 30 minutes.
   */
  afterAcks(): Promise<void> {
    return arrivals.giveWay();
  }

  /** How a message goes back to the response_url of the delivery: through the reply pool when there is one. */
  respond(respond: RespondFn | undefined, responseUrl: string | undefined): Respond | undefined {
    const replies = this.#replies;
    if (replies && responseUrl) return (message) => replies(responseUrl, message);
    if (!respond) return undefined;
    return async (message) => {
      await respond(responsePayload(message));
    };
  }

  /**
   * Resolves when the work already started has finished. From now on every request is still
   * answered, with "Faultline is restarting", so nobody's click or command vanishes unanswered.
   */
  async drain(): Promise<void> {
    this.#accepting = false;
    while (this.#inFlight.size) await Promise.allSettled([...this.#inFlight]);
  }

  /** Runs an entry of the listener table; one that changes state, once per delivery (see oncePerDelivery). */
  run<H, R>(entry: Entry<H>, delivery: string | undefined, call: (handler: H) => Promise<R>, answers: OnceAnswers<R>) {
    if (!isOnce(entry)) return call(entry);
    return oncePerDelivery(this.#claims, delivery, () => call(entry.run), answers);
  }

  /**
   * Runs the work for one request, counted and awaited by drain(). While stopping, `refuse`
   * runs instead: it still acks, and tells the person Faultline is restarting.
   */
  async track(kind: Kind, work: () => Promise<void>, refuse?: () => Promise<void>): Promise<void> {
    if (!this.#accepting) {
      if (!refuse) return;
      const refusing = refuse().then(
        () => this.#metrics.interactions.inc({ kind, outcome: 'refused' }),
        (error: unknown) =>
          this.deps.logger.warn({ err: error, kind }, 'could not tell a person that Faultline is restarting'),
      );
      this.#inFlight.add(refusing);
      await refusing.finally(() => this.#inFlight.delete(refusing));
      return;
    }
    const end = this.#metrics.handlerSeconds.startTimer({ kind });
    const running = work().then(
      () => this.#metrics.interactions.inc({ kind, outcome: 'ok' }),
      (error: unknown) => {
        this.#metrics.interactions.inc({ kind, outcome: 'failed' });
        this.deps.logger.error({ err: error, kind }, 'could not answer a Slack request');
      },
    );
    this.#inFlight.add(running);
    try {
      await running;
    } finally {
      this.#inFlight.delete(running);
      end();
    }
  }

  register(app: App, listeners: Listeners): void {
    listenToCommand(app, this, listeners.command);
    listenToActions(app, this, listeners);
    listenToShortcuts(app, this, listeners.shortcuts);
    listenToWorkflowSteps(app, this, listeners.steps);
    listenToEvents(app, this, listeners.events);
    listenToSubmissions(app, this, listeners);
    listenToOptions(app, this, listeners.options);
  }
}

/** What a request sent again gets, and which answer refused the input (nothing was done). */
interface OnceAnswers<R> {
  /** The answer to a request sent again: nothing, or a bare ack. */
  none: R;
  /** An answer that refused the input (field errors): nothing was done. */
  refused?: ((reply: R) => boolean) | undefined;
}

/** Input refused before anything was done: the person may send it again, corrected. */
const refusedInput = (error: unknown) =>
  error instanceof UserInputError || error instanceof NotLoggedInError || error instanceof NoTeamSelectedError;

/**
 * Runs what a request that changes state asked for, once per delivery (Slack's id of this very
 * request: a trigger id, a view's id and hash). Slack's signature on a request holds for five
 * minutes, so anyone who saw one can send it again byte for byte (and Socket Mode may deliver one
 * twice): the delivery is claimed before the work runs, and every later time changes nothing and
 * gets no answer. Work that refuses its input before doing anything (field errors, a
 * UserInputError, no session) gives the claim back, so the corrected form or command is taken.
 */
async function oncePerDelivery<R>(
  parts: { store: KeyValueStore; logger: Logger },
  delivery: string | undefined,
  work: () => Promise<R>,
  answers: OnceAnswers<R>,
): Promise<R> {
  if (!delivery) return work();
  const key = keys.delivery.key(delivery);
  const owner = randomUUID();
  if (!(await parts.store.claim(key, keys.delivery.ttlMs, owner))) {
    parts.logger.info('a request came again; what it asked was done once');
    return answers.none;
  }
  const giveBack = () => parts.store.release(key, owner).then(() => undefined);
  let reply: R;
  try {
    reply = await work();
  } catch (error) {
    if (refusedInput(error)) await giveBack().catch(() => undefined);
    throw error;
  }
  if (answers.refused?.(reply)) await giveBack();
  return reply;
}

/**
 * Turns a handler's failure into words for the person who acted (describeError). A 401, or a
 * session found expired, drops the stored session first, so the words offer Log in; the failure
 * is logged as loud as it deserves: input refused or no session is not the bot's fault.
 */
function explainFailure({ login, logger, command }: Services, metrics: Metrics) {
  return async (actor: Actor, error: unknown): Promise<Message> => {
    if (error instanceof UnauthorizedError || (error instanceof NotLoggedInError && error.expired)) {
      await login
        .forget(actor)
        .catch((dropError: unknown) => logger.error({ err: dropError }, 'could not drop a rejected session'));
    }
    if (error instanceof ForbiddenError && error.privilege) {
      // The person's role, not a fault of the bot: they are told which privilege; no stack trace.
      metrics.platformErrors.inc({ type: error.name });
      const { privilege, method, path } = error;
      logger.info({ userId: actor.userId, privilege, method, path }, 'the platform refused a person a privilege');
    } else if (error instanceof PlatformError) {
      metrics.platformErrors.inc({ type: error.name });
      logger.warn({ err: error }, 'platform call failed');
    } else if (
      error instanceof StoreUnavailableError ||
      (error instanceof StartUnfinishedError && error.cause instanceof StoreUnavailableError)
    ) {
      logger.warn({ err: error }, 'store unreachable');
    } else if (!refusedInput(error)) {
      logger.error({ err: error }, 'handler failed');
    }
    return describeError(error, { command });
  };
}
