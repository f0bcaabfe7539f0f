import type { App, BlockAction, RespondFn, ViewStateValue } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Actor } from '../store/sessions.ts';
import { messageModal, restartingText } from '../views/notice.ts';
import type { Listeners, SlackAdapter } from './adapter.ts';
import { restarting, type Target } from './replies.ts';

/** The slash command: acked at once, its subcommand run after the acks, its reply delivered. */
export function listenToCommand(app: App, adapter: SlackAdapter, command: Listeners['command']): void {
  const { deps } = adapter;
  app.command(deps.command, async ({ ack, body, respond, client }) => {
    await adapter.track(
      'command',
      async () => {
        await ack();
        await adapter.afterAcks();
        const actor = actorFrom(body);
        const reply = await adapter.safely(actor, async () =>
          adapter.run(
            command(body.text ?? '', actor, body.response_url),
            body.trigger_id ?? body.response_url,
            (run) => run(deps),
            { none: { kind: 'none' } },
          ),
        );
        await adapter.deliver(reply, {
          client,
          respond: adapter.respond(respond, body.response_url),
          triggerId: body.trigger_id,
          actor,
        });
      },
      () => ack({ response_type: 'ephemeral', text: restartingText }),
    );
  });
}

const containerOf = (body: BlockAction) => (body.view ? (body.view.type === 'home' ? 'home' : 'modal') : 'message');

/** Where a click's answer goes: the response_url of its message, or the modal it was in (none from Home). */
function clickTarget(
  adapter: SlackAdapter,
  body: BlockAction,
  client: WebClient,
  respond: RespondFn,
  actor: Actor,
): Target {
  const container = containerOf(body);
  return {
    client,
    respond: container === 'message' ? adapter.respond(respond, body.response_url || undefined) : undefined,
    triggerId: body.trigger_id,
    viewId: container === 'modal' ? body.view?.id : undefined,
    actor,
  };
}

/** Buttons and selects, in messages, modals and App Home. */
export function listenToActions(app: App, adapter: SlackAdapter, listeners: Listeners): void {
  const { deps } = adapter;
  for (const [actionId, handler] of Object.entries(listeners.actions)) {
    app.action({ type: 'block_actions', action_id: actionId }, async ({ ack, body, respond, client }) => {
      await adapter.track(
        'action',
        async () => {
          await ack();
          // A click in an open modal changes the view the person is looking at: it goes on at
          // once, so that it lands before their next click or their submission.
          if (body.view?.type !== 'modal') await adapter.afterAcks();
          const actor = actorFrom(body);
          const action = body.actions.find((a) => a.action_id === actionId);
          const value =
            action && 'value' in action
              ? action.value
              : action && 'selected_option' in action
                ? action.selected_option?.value
                : undefined;
          const container = containerOf(body);
          const clicked = {
            actor,
            actionId,
            value: value ?? undefined,
            inputs: readInputs(body.view?.state?.values),
            privateMetadata: body.view?.private_metadata ?? '',
            container,
          } as const;
          const reply = await adapter.safely(actor, () =>
            adapter.run(handler, body.trigger_id, (run) => run(clicked, deps), { none: { kind: 'none' } }),
          );
          const target = clickTarget(adapter, body, client, respond, actor);
          if (container === 'home' && listeners.refreshHome) {
            // Home has no response_url and no modal to push onto: its answer shows on Home itself.
            if (reply.kind !== 'message') await adapter.deliver(reply, target);
            await listeners.refreshHome(actor, deps, { notice: reply.kind === 'message' ? reply.message : undefined });
            return;
          }
          await adapter.deliver(reply, target);
          if (container === 'modal' && listeners.refreshHome && listeners.refreshHomeAfterActions?.includes(actionId))
            await listeners.refreshHome(actor, deps).catch((error: unknown) => {
              deps.logger.warn({ err: error }, 'could not redraw App Home after a start');
            });
        },
        async () => {
          await ack();
          await adapter.deliver(restarting, clickTarget(adapter, body, client, respond, actorFrom(body)));
        },
      );
    });
  }
}

/** Message shortcuts: the reply goes where the shortcut's trigger allows (a modal, or the person's DM). */
export function listenToShortcuts(app: App, adapter: SlackAdapter, shortcuts: Listeners['shortcuts']): void {
  for (const [callbackId, handler] of Object.entries(shortcuts)) {
    app.shortcut({ type: 'message_action', callback_id: callbackId }, async ({ ack, body, client }) => {
      await adapter.track(
        'shortcut',
        async () => {
          await ack();
          const actor = { ...actorFrom(body), channelId: body.channel.id };
          const reply = await adapter.safely(actor, () =>
            handler({ actor, channel: body.channel.id, messageTs: body.message.ts }, adapter.deps),
          );
          await adapter.deliver(reply, { client, respond: undefined, triggerId: body.trigger_id, actor });
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
}

/** External selects asking for options as the person types: a failed lookup offers none. */
export function listenToOptions(app: App, adapter: SlackAdapter, options: Listeners['options']): void {
  for (const [actionId, handler] of Object.entries(options)) {
    app.options(actionId, async ({ ack, body, options: typed }) => {
      await adapter.track(
        'options',
        async () => {
          const actor = actorFrom(body);
          try {
            const view = body.type === 'block_suggestion' ? body.view : undefined;
            const found = await handler(
              {
                actor,
                query: typed.value ?? '',
                inputs: readInputs(view?.state?.values),
                privateMetadata: view?.private_metadata ?? '',
              },
              adapter.deps,
            );
            await ack({
              options: found.map((o) => ({ text: { type: 'plain_text', text: o.text.slice(0, 75) }, value: o.value })),
            });
          } catch (error) {
            adapter.deps.logger.warn({ err: error }, 'options lookup failed');
            await ack({ options: [] });
          }
        },
        () => ack({ options: [] }),
      );
    });
  }
}

/** Events API events, as the person they are about (App Home opened: its Home tab only). */
export function listenToEvents(app: App, adapter: SlackAdapter, events: Listeners['events']): void {
  for (const [type, handler] of Object.entries(events)) {
    app.event(type, async ({ event, body }) => {
      await adapter.track('event', async () => {
        const user = (event as { user?: string }).user;
        if (!user) return;
        if (type === 'app_home_opened' && (event as { tab?: string }).tab !== 'home') return;
        const { team_id, enterprise_id } = body as { team_id?: string; enterprise_id?: string };
        const actor = actorFrom({ user_id: user, team_id: team_id ?? '', ...(enterprise_id ? { enterprise_id } : {}) });
        await handler(actor, adapter.deps);
      });
    });
  }
}

// What Slack's request bodies say: who sent them, what a form holds, where to answer.

export interface BodyIdentity {
  user?: { id: string; name?: string; username?: string; team_id?: string } | undefined;
  user_id?: string;
  user_name?: string;
  team?: { id: string } | null;
  team_id?: string;
  enterprise?: { id: string } | null;
  enterprise_id?: string;
  is_enterprise_install?: boolean | string;
  channel?: { id: string };
  channel_id?: string;
}

/** The person behind a request. Enterprise Grid installs key sessions by org, others by workspace. */
export function actorFrom(body: BodyIdentity): Actor {
  const userId = body.user?.id ?? body.user_id ?? '';
  const workspaceId =
    body.enterprise?.id ?? body.enterprise_id ?? body.user?.team_id ?? body.team?.id ?? body.team_id ?? '';
  if (!userId || !workspaceId) throw new Error('Slack request without a user or workspace');
  return {
    workspaceId,
    userId,
    userName: body.user?.username ?? body.user?.name ?? body.user_name ?? userId,
    channelId: body.channel?.id ?? body.channel_id,
  };
}

/** Text inputs and selections of a submitted view, by action id; several selections comma-joined. */
export function readInputs(
  values: Record<string, Record<string, ViewStateValue>> | undefined,
): Record<string, string | undefined> {
  const inputs: Record<string, string | undefined> = {};
  for (const block of Object.values(values ?? {})) {
    for (const [actionId, state] of Object.entries(block)) {
      inputs[actionId] =
        state.value ??
        state.selected_option?.value ??
        state.selected_date ??
        state.selected_user ??
        state.selected_conversation ??
        state.selected_channel ??
        state.selected_options?.map((o) => o.value).join(',') ??
        undefined;
    }
  }
  return inputs;
}
