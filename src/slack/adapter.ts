import { randomUUID } from 'node:crypto';
import type { App, RespondFn } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { KnownBlock, ModalView } from '@slack/types';
import { PlatformError, UnauthorizedError } from '../client/errors.ts';
import type { ReplySender, ResponseUrlReply } from './replies.ts';
import {
  type ActionHandler,
  type Entry,
  isOnce,
  type OptionsHandler,
  type Reply,
  type WorkflowStepHandler,
  type WorkflowStepResult,
  type SubmissionHandler,
  type SubmissionReply,
} from '../commands/reply.ts';
import {
  stepErrorText,
  stepFailedText,
  stepLoginPrompt,
  stepNotLoggedInText,
  stepPersonUnvouchedText,
  stepRestartingText,
} from '../views/workflow/workflowSteps.ts';
import { keys } from '../store/keys.ts';
import { NotLoggedInError, UserInputError } from '../errors.ts';
import type { Actor } from '../store/sessions.ts';
import type { Message } from '../views/message.ts';
import type { Deps } from '../deps.ts';
import type { Metrics } from '../metrics.ts';
import { StoreUnavailableError } from '../store/errors.ts';
import { arrivals } from '../eventLoop.ts';
import { StartUnfinishedError } from '../attacks/start.ts';
import { holdLease } from '../attacks/startIntents.ts';
import { STEP_PERSON_INPUT, type WorkflowStepRun, vouchedPerson } from './workflowSteps.ts';
import { describeError } from '../views/errorReply.ts';
import { type OnceAnswers, oncePerDelivery } from './once.ts';
import { actorFrom, type BodyIdentity, type InputState, readInputs, responseUrlOf } from './requestBody.ts';
import { modal, section } from '../views/blocks.ts';
import { messageModal, noticeModal, restartingText } from '../views/notice.ts';

/**
 * Every id the app answers to, mapped to its handler: the one registration table. An entry that
 * changes state says so (`once`), and runs once per delivery (see oncePerDelivery).
 */
export interface Listeners {
  /** The subcommand a slash command's text names, its arguments read: what runs on them. */
  command: (text: string, actor: Actor, responseUrl: string | undefined) => Entry<(deps: Deps) => Promise<Reply>>;
  actions: Record<string, Entry<ActionHandler>>;
  views: Record<string, Entry<SubmissionHandler>>;
  options: Record<string, OptionsHandler>;
  /** Message shortcuts by callback id (each must be in manifest.yml). */
  shortcuts: Record<string, ShortcutHandler>;
  /** Workflow Builder custom steps by callback id (each must be a function in manifest.yml). */
  steps: Record<string, WorkflowStepHandler>;
  /** Events API event types (each must be a bot event in manifest.yml). */
  events: Record<string, (actor: Actor, deps: Deps) => Promise<void>>;
  /**
   * Redraws a person's App Home after they act from it, or submit a view listed here; with the
   * answer to an action taken on Home, which has no response_url and no modal to show it in.
   */
  refreshHome?: (actor: Actor, deps: Deps, answer?: { notice?: Message | undefined }) => Promise<void>;
  refreshHomeAfterViews?: string[];
}

export type ShortcutHandler = (
  shortcut: { actor: Actor; channel: string; messageTs: string },
  deps: Deps,
) => Promise<Reply>;

/**
 * Slack gives a view submission 3 s, counted at Slack: past this the modal is told to wait and
 * is updated later. The rest of the 3 s is for the network both ways and a busy event loop.
 */
const submissionDeadlineMs = 2_000;

const restarting: Reply = { kind: 'message', message: { text: restartingText } };

/** Sends a message to the response_url of the delivery being answered. */
type Respond = (message: ResponseUrlReply) => Promise<void>;

type Kind = 'command' | 'action' | 'view' | 'options' | 'shortcut' | 'event' | 'step';

/**
 * The only code that knows Bolt: it acks within Slack's deadline, turns handler results into
 * Slack calls, and turns every failure into words through describeError.
 */
export class SlackAdapter {
  readonly #deps: Deps;
  readonly #metrics: Metrics;
  readonly #inFlight = new Set<Promise<unknown>>();
  #accepting = true;

  /** Replies to response_urls; without it, Bolt's `respond` (one new connection per reply). */
  readonly #replies: ReplySender | undefined;

  constructor(deps: Deps, metrics: Metrics, options: { replies?: ReplySender } = {}) {
    this.#deps = deps;
    this.#metrics = metrics;
    this.#replies = options.replies;
  }

  /** How a message goes back to the response_url of the delivery: through the reply pool when there is one. */
  #respond(respond: RespondFn | undefined, responseUrl: string | undefined): Respond | undefined {
    const replies = this.#replies;
    if (replies && responseUrl) return (message) => replies(responseUrl, message);
    if (!respond) return undefined;
    return async (message) => {
      await respond({
        response_type: 'ephemeral',
        replace_original: message.replaceOriginal ?? false,
        text: message.text,
        ...(message.blocks ? { blocks: message.blocks } : {}),
      });
    };
  }

  /**
   * Called right after an ack: in a burst every delivery is taken and acked first, then the work
   * they asked for runs (see Arrivals). Slack's 3 s count to the ack only; a reply may follow for
   * 30 minutes.
   */
  #afterAcks(): Promise<void> {
    return arrivals.giveWay();
  }

  /**
   * Resolves when the work already started has finished. From now on every request is still
   * answered, with "Faultline is restarting", so nobody's click or command vanishes unanswered.
   */
  async drain(): Promise<void> {
    this.#accepting = false;
    while (this.#inFlight.size) await Promise.allSettled([...this.#inFlight]);
  }

  register(app: App, listeners: Listeners): void {
    const { command } = this.#deps.config.slack;

    app.command(command, async ({ ack, body, respond, client }) => {
      await this.#track(
        'command',
        async () => {
          await ack();
          await this.#afterAcks();
          const actor = actorFrom(body);
          const reply = await this.#safely(actor, async () =>
            this.#run(
              listeners.command(body.text ?? '', actor, body.response_url),
              body.trigger_id ?? body.response_url,
              (run) => run(this.#deps),
              { none: { kind: 'none' } },
            ),
          );
          await this.#deliver(reply, {
            client,
            respond: this.#respond(respond, body.response_url),
            triggerId: body.trigger_id,
            actor,
          });
        },
        () => ack({ response_type: 'ephemeral', text: restartingText }),
      );
    });

    for (const [actionId, handler] of Object.entries(listeners.actions)) {
      app.action(actionId, async ({ ack, body, respond, client }) => {
        await this.#track(
          'action',
          async () => {
            await ack();
            // A click in an open modal changes the view the person is looking at: it goes on at
            // once, so that it lands before their next click or their submission.
            if (body.type !== 'block_actions') return;
            if (body.view?.type !== 'modal') await this.#afterAcks();
            const actor = actorFrom(body as BodyIdentity);
            const action = body.actions.find((a) => a.action_id === actionId);
            const value =
              action && 'value' in action
                ? action.value
                : action && 'selected_option' in action
                  ? action.selected_option?.value
                  : undefined;
            const container = body.view ? (body.view.type === 'home' ? 'home' : 'modal') : 'message';
            const clicked = {
              actor,
              actionId,
              value: value ?? undefined,
              inputs: readInputs(body.view?.state?.values),
              privateMetadata: body.view?.private_metadata ?? '',
              container,
            } as const;
            const reply = await this.#safely(actor, () =>
              this.#run(handler, body.trigger_id, (run) => run(clicked, this.#deps), { none: { kind: 'none' } }),
            );
            if (container === 'home' && listeners.refreshHome) {
              // Home has no response_url and no modal to push onto: its answer shows on Home itself.
              if (reply.kind !== 'message')
                await this.#deliver(reply, { client, respond: undefined, triggerId: body.trigger_id, actor });
              await listeners.refreshHome(actor, this.#deps, {
                notice: reply.kind === 'message' ? reply.message : undefined,
              });
              return;
            }
            await this.#deliver(reply, {
              client,
              respond: container === 'message' ? this.#respond(respond, responseUrlOf(body)) : undefined,
              triggerId: body.trigger_id,
              viewId: container === 'modal' ? body.view?.id : undefined,
              actor,
            });
          },
          async () => {
            await ack();
            if (body.type !== 'block_actions') return;
            const container = body.view ? (body.view.type === 'home' ? 'home' : 'modal') : 'message';
            await this.#deliver(restarting, {
              client,
              respond: container === 'message' ? this.#respond(respond, responseUrlOf(body)) : undefined,
              triggerId: body.trigger_id,
              viewId: container === 'modal' ? body.view?.id : undefined,
              actor: actorFrom(body as BodyIdentity),
            });
          },
        );
      });
    }

    for (const [callbackId, handler] of Object.entries(listeners.shortcuts)) {
      app.shortcut(callbackId, async ({ ack, body, client }) => {
        await this.#track(
          'shortcut',
          async () => {
            await ack();
            if (body.type !== 'message_action') return;
            const actor = { ...actorFrom(body as BodyIdentity), channelId: body.channel.id };
            const reply = await this.#safely(actor, () =>
              handler({ actor, channel: body.channel.id, messageTs: body.message.ts }, this.#deps),
            );
            await this.#deliver(reply, { client, respond: undefined, triggerId: body.trigger_id, actor });
          },
          async () => {
            await ack();
            await client.views.open({
              trigger_id: body.trigger_id,
              view: messageModal('Faultline', { text: restartingText }),
            });
          },
        );
      });
    }

    for (const [callbackId, handler] of Object.entries(listeners.steps)) {
      // Bolt acks function_executed before this runs, well within Slack's 3 seconds; the step is
      // then completed or failed through the Web API, once, however often Slack delivers it.
      app.function(callbackId, async ({ body, event, complete, fail }) => {
        const finish = async (result: WorkflowStepResult) => {
          if ('outputs' in result) await complete({ outputs: result.outputs });
          else if ('error' in result) await fail({ error: result.error });
        };
        await this.#track(
          'step',
          async () => {
            let claimed: boolean;
            try {
              claimed = await this.#deps.store.claim(keys.stepRun.key(event.function_execution_id), keys.stepRun.ttlMs);
            } catch (error) {
              // Nothing was done: the step says so rather than stay running.
              this.#deps.logger.warn({ err: error, step: callbackId }, 'store unreachable');
              const words = describeError(error, { command: this.#deps.config.slack.command });
              await finish({ error: stepErrorText(words.text) });
              return;
            }
            if (!claimed) {
              this.#deps.logger.info({ step: callbackId }, 'a step delivered again was already taken');
              return;
            }
            // Held while the step runs: a replica finishes it only once this process is gone (recover-steps).
            const executionId = event.function_execution_id;
            const owner = randomUUID();
            await this.#deps.store.claim(keys.stepLease.key(executionId), keys.stepLease.ttlMs, owner);
            const letGo = holdLease(this.#deps.store, 'step', executionId, owner);
            try {
              const result = await this.#runStep(handler, body as BodyIdentity, event, callbackId);
              try {
                await finish(result);
              } catch (error) {
                // Outputs Slack refused: the step must still end, and say it could not finish.
                this.#deps.logger.error({ err: error, step: callbackId }, 'could not complete a step');
                if (!fail.hasBeenCalled()) await fail({ error: stepFailedText });
              }
              await this.#deps.store.delete(keys.stepOpen.key(executionId));
            } finally {
              await letGo().catch(() => undefined);
            }
          },
          () => finish({ error: stepRestartingText }).then(() => undefined),
        );
      });
    }

    for (const [type, handler] of Object.entries(listeners.events)) {
      app.event(type, async ({ event, body }) => {
        await this.#track('event', async () => {
          const user = (event as { user?: string }).user;
          if (!user) return;
          if (type === 'app_home_opened' && (event as { tab?: string }).tab !== 'home') return;
          const actor = actorFrom({
            user_id: user,
            team_id: (body as { team_id?: string }).team_id ?? '',
            ...((body as { enterprise_id?: string }).enterprise_id
              ? { enterprise_id: (body as { enterprise_id: string }).enterprise_id }
              : {}),
          });
          await handler(actor, this.#deps);
        });
      });
    }

    for (const [callbackId, handler] of Object.entries(listeners.views)) {
      app.view(callbackId, async ({ ack, body, view, client }) => {
        await this.#track(
          'view',
          async () => {
            const actor = actorFrom(body as BodyIdentity);
            const submitted = {
              actor,
              viewId: view.id,
              inputs: readInputs(view.state.values),
              privateMetadata: view.private_metadata ?? '',
            };
            const work = this.#safelySubmit(actor, () =>
              this.#run(handler, `${view.id}:${view.hash}`, (run) => run(submitted, this.#deps), {
                // A submission sent again closes the form, as one that changed nothing does.
                none: { kind: 'close' },
                refused: (reply) => reply.kind === 'errors',
              }),
            );
            let timer: NodeJS.Timeout | undefined;
            const late = new Promise<'late'>((resolve) => {
              timer = setTimeout(() => resolve('late'), submissionDeadlineMs);
            });
            const first = await Promise.race([work, late]);
            clearTimeout(timer);
            const refresh = async () => {
              if (listeners.refreshHome && listeners.refreshHomeAfterViews?.includes(callbackId))
                await listeners.refreshHome(actor, this.#deps);
            };
            if (first !== 'late') {
              await ack(responseAction(first) as never);
              // Field errors changed nothing, so App Home has nothing new to show.
              if (first.kind !== 'errors') await refresh();
              return;
            }
            // Too slow for Slack's deadline: say so in the modal, then put the outcome in its place.
            await ack({
              response_action: 'update',
              view: modal(callbackId, view.title.text, [section(':hourglass_flowing_sand: Working on it…')]),
            });
            const outcome = await work;
            const next =
              outcome.kind === 'update' || outcome.kind === 'push'
                ? outcome.view
                : outcome.kind === 'errors'
                  ? withNotice(view, Object.values(outcome.errors).join(' '))
                  : modal(callbackId, view.title.text, [section(':white_check_mark: Done.')]);
            await client.views.update({ view_id: view.id, view: next });
            await refresh();
          },
          () => ack({ response_action: 'update', view: noticeModal(view.title.text, restartingText) }),
        );
      });
    }

    for (const [actionId, handler] of Object.entries(listeners.options)) {
      app.options(actionId, async ({ ack, body, options }) => {
        await this.#track(
          'options',
          async () => {
            const actor = actorFrom(body as BodyIdentity);
            try {
              const view = (
                body as {
                  view?: { state?: { values?: Record<string, Record<string, InputState>> }; private_metadata?: string };
                }
              ).view;
              const found = await handler(
                {
                  actor,
                  query: options.value ?? '',
                  inputs: readInputs(view?.state?.values),
                  privateMetadata: view?.private_metadata ?? '',
                },
                this.#deps,
              );
              await ack({
                options: found.map((o) => ({
                  text: { type: 'plain_text', text: o.text.slice(0, 75) },
                  value: o.value,
                })),
              });
            } catch (error) {
              this.#deps.logger.warn({ err: error }, 'options lookup failed');
              await ack({ options: [] });
            }
          },
          () => ack({ options: [] }),
        );
      });
    }
  }

  /** Runs an entry of the listener table; one that changes state, once per delivery (see oncePerDelivery). */
  #run<H, R>(entry: Entry<H>, delivery: string | undefined, call: (handler: H) => Promise<R>, answers: OnceAnswers<R>) {
    if (!isOnce(entry)) return call(entry);
    return oncePerDelivery(this.#deps, delivery, () => call(entry.run), answers);
  }

  /**
   * Runs the work for one request, counted and awaited by drain(). While stopping, `refuse`
   * runs instead: it still acks, and tells the person Faultline is restarting.
   */
  async #track(kind: Kind, work: () => Promise<void>, refuse?: () => Promise<void>): Promise<void> {
    if (!this.#accepting) {
      if (!refuse) return;
      const refusing = refuse().then(
        () => this.#metrics.interactions.inc({ kind, outcome: 'refused' }),
        (error: unknown) =>
          this.#deps.logger.warn({ err: error, kind }, 'could not tell a person that Faultline is restarting'),
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
        this.#deps.logger.error({ err: error, kind }, 'could not answer a Slack request');
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

  /**
   * Runs a step as the person who used the workflow, as Slack vouches for them in its `user`
   * input (a user context), in the channel of its `channel` input if any. Any other person is
   * refused before anything is done. A failure becomes the step's error; a person not logged in
   * also gets the Log in entry by DM.
   */
  async #runStep(
    handler: WorkflowStepHandler,
    body: BodyIdentity,
    event: { inputs: Record<string, unknown>; function_execution_id: string; function: { title: string } },
    callbackId: string,
  ): Promise<WorkflowStepResult> {
    const { function_execution_id: executionId } = event;
    const { [STEP_PERSON_INPUT]: person, ...inputs } = event.inputs;
    const title = event.function.title;
    const userId = vouchedPerson(person);
    if (userId === undefined) {
      this.#deps.logger.warn({ step: callbackId }, 'a step whose person Slack did not vouch for was refused');
      return { error: stepPersonUnvouchedText };
    }
    const channel = typeof inputs['channel'] === 'string' && inputs['channel'] ? inputs['channel'] : undefined;
    const workspace = body.enterprise_id ? { enterprise_id: body.enterprise_id } : {};
    let actor: Actor;
    try {
      actor = { ...actorFrom({ user_id: userId, team_id: body.team_id ?? '', ...workspace }), channelId: channel };
    } catch {
      return { error: stepFailedText };
    }
    actor.userName = await this.#deps.people.name(userId).catch(() => userId);
    try {
      // From here the step may act: a bot that dies before it finishes leaves this for recover-steps.
      const run: WorkflowStepRun = { executionId, callbackId, title, actor, inputs };
      await this.#deps.store.set(keys.stepOpen.key(executionId), run, keys.stepOpen.ttlMs);
      return await handler({ actor, inputs, executionId }, this.#deps);
    } catch (error) {
      const words = await this.#explain(actor, error);
      if (error instanceof NotLoggedInError || error instanceof UnauthorizedError) {
        await this.#deps.slack
          .post(actor.userId, stepLoginPrompt(title))
          .catch((dmError: unknown) => this.#deps.logger.warn({ err: dmError }, 'could not send the login entry'));
        return { error: stepNotLoggedInText };
      }
      return { error: stepErrorText(words.text) };
    }
  }

  /** Runs a handler; any failure becomes an ephemeral explanation (and a dropped session on 401). */
  async #safely(actor: Actor, run: () => Promise<Reply>): Promise<Reply> {
    try {
      return await run();
    } catch (error) {
      return { kind: 'message', message: await this.#explain(actor, error) };
    }
  }

  async #safelySubmit(actor: Actor, run: () => Promise<SubmissionReply>): Promise<SubmissionReply> {
    try {
      return await run();
    } catch (error) {
      const words = await this.#explain(actor, error);
      return { kind: 'update', view: messageModal('Faultline', words) };
    }
  }

  async #explain(actor: Actor, error: unknown): Promise<Message> {
    const { logger } = this.#deps;
    if (error instanceof UnauthorizedError || (error instanceof NotLoggedInError && error.expired)) {
      await this.#deps.sessions
        .drop(actor)
        .catch((dropError: unknown) => logger.error({ err: dropError }, 'could not drop a rejected session'));
    }
    if (error instanceof PlatformError) {
      this.#metrics.platformErrors.inc({ type: error.name });
      logger.warn({ err: error }, 'platform call failed');
    } else if (
      error instanceof StoreUnavailableError ||
      (error instanceof StartUnfinishedError && error.cause instanceof StoreUnavailableError)
    ) {
      logger.warn({ err: error }, 'store unreachable');
    } else if (
      !(error instanceof UserInputError) &&
      !(error instanceof NotLoggedInError) &&
      !(error instanceof Error && error.name === 'NoTeamSelectedError')
    ) {
      logger.error({ err: error }, 'handler failed');
    }
    return describeError(error, { command: this.#deps.config.slack.command });
  }

  async #deliver(
    reply: Reply,
    target: {
      client: WebClient;
      respond: Respond | undefined;
      triggerId: string | undefined;
      viewId?: string | undefined;
      actor: Actor;
    },
  ): Promise<void> {
    const { client, respond, triggerId, viewId, actor } = target;
    switch (reply.kind) {
      case 'none':
        return;
      case 'message': {
        const { text, blocks } = reply.message;
        if (respond) {
          await respond({
            text,
            ...(blocks ? { blocks } : {}),
            ...(reply.replaceOriginal !== undefined ? { replaceOriginal: reply.replaceOriginal } : {}),
          });
        } else if (viewId && reply.replaceOriginal) {
          // A button in a modal whose answer replaces what it was on: the modal shows the answer.
          await client.views.update({ view_id: viewId, view: messageModal('Faultline', reply.message) });
        } else if (viewId && triggerId) {
          // An answer to something done inside a modal shows on top of it.
          await client.views.push({ trigger_id: triggerId, view: messageModal('Faultline', reply.message) });
        } else {
          // From App Home: the app's Messages tab is the person's own channel with the bot.
          await client.chat.postMessage({ channel: actor.userId, text, ...(blocks ? { blocks } : {}) });
        }
        return;
      }
      case 'openModal': {
        if (!triggerId) throw new Error('A modal was asked for without a trigger');
        const opened = await client.views.open({ trigger_id: triggerId, view: reply.view });
        if (!reply.followUp) return;
        let next: ModalView;
        try {
          next = await reply.followUp();
        } catch (error) {
          next = messageModal(reply.view.title.text, await this.#explain(actor, error));
        }
        await client.views.update({
          view_id: opened.view!.id!,
          ...(opened.view?.hash ? { hash: opened.view.hash } : {}),
          view: next,
        });
        return;
      }
      case 'pushModal':
        if (!triggerId) throw new Error('A modal was asked for without a trigger');
        await client.views.push({ trigger_id: triggerId, view: reply.view });
        return;
      case 'updateModal':
        if (!viewId) throw new Error('A modal update without a view');
        await client.views.update({ view_id: viewId, view: reply.view });
        return;
    }
  }
}

function responseAction(reply: SubmissionReply): object | undefined {
  switch (reply.kind) {
    case 'errors':
      return { response_action: 'errors', errors: reply.errors };
    case 'update':
      return { response_action: 'update', view: reply.view };
    case 'push':
      return { response_action: 'push', view: reply.view };
    case 'clear':
      return { response_action: 'clear' };
    case 'close':
      return undefined;
  }
}

/** The submitted view again, with a notice on top: how late field errors are shown. */
function withNotice(
  view: {
    callback_id: string;
    title: { text: string };
    blocks: unknown[];
    private_metadata?: string;
    submit?: { text: string } | null;
  },
  notice: string,
): ModalView {
  return modal(view.callback_id, view.title.text, [section(`:warning: ${notice}`), ...(view.blocks as KnownBlock[])], {
    ...(view.submit ? { submit: view.submit.text } : {}),
    ...(view.private_metadata ? { privateMetadata: view.private_metadata } : {}),
  });
}
