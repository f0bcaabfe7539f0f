import type { ModalView } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import { Agent, request } from 'undici';
import type { Reply } from '../commands/command.ts';
import type { Actor } from '../store/sessions.ts';
import type { Message } from '../views/message.ts';
import { messageModal, restartingText } from '../views/notice.ts';

/** A reply to an interaction's response_url: ephemeral, and in place of the message clicked when asked. */
export type ResponseUrlReply = Message & { replaceOriginal?: boolean };

/** Sends one reply to a response_url; throws when Slack refuses it or does not answer. */
export type ReplySender = (responseUrl: string, message: ResponseUrlReply) => Promise<void>;

/** What a response_url is posted, by the reply pool or by Bolt's `respond`. */
export const responsePayload = (message: ResponseUrlReply) => ({
  response_type: 'ephemeral' as const,
  replace_original: message.replaceOriginal ?? false,
  text: message.text,
  ...(message.blocks ? { blocks: message.blocks } : {}),
});

/** Slack answers a response_url post at once; a reply later than this is no use to anyone. */
const replyTimeoutMs = 10_000;

/**
 * Posts to interactions' response_urls over kept-alive connections, a pool per origin (in
 * production one: hooks.slack.com). Bolt's `respond` goes through fetch and leaves the answer
 * unread, so every reply paid for a new connection (and a TLS handshake), and fetch's web streams
 * on top; here the answer is read and dropped, and the connection goes back to the pool.
 */
export class ResponseUrlReplies {
  readonly #agent: Agent;

  constructor(options: { connectionsPerOrigin?: number; keepAliveMs?: number } = {}) {
    this.#agent = new Agent({
      connections: options.connectionsPerOrigin ?? 32,
      keepAliveTimeout: options.keepAliveMs ?? 30_000,
      headersTimeout: replyTimeoutMs,
      bodyTimeout: replyTimeoutMs,
    });
  }

  readonly send: ReplySender = async (responseUrl, message) => {
    const body = JSON.stringify(responsePayload(message));
    const response = await request(responseUrl, {
      dispatcher: this.#agent,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    // Read to the end, so the connection can carry the next reply.
    await response.body.dump();
    if (response.statusCode < 200 || response.statusCode >= 300)
      throw new Error(`Slack refused the reply (${response.statusCode})`);
  };

  /** Closes the idle connections and refuses further replies. */
  close(): Promise<void> {
    return this.#agent.close();
  }
}

const loopbackHosts = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Whether a response_url may be answered: Slack's own (https://hooks.slack.com/, Enterprise Grid
 * too), or the origin of SLACK_API_URL when that is a loopback fake Slack (tests, the demo). Any
 * other URL (one read back from a view's private_metadata, say) gets nothing.
 */
export function isSlackResponseUrl(responseUrl: string, slackApiUrl: string): boolean {
  const url = URL.parse(responseUrl);
  if (!url || url.username || url.password) return false;
  if (url.protocol === 'https:' && url.host === 'hooks.slack.com') return true;
  const api = URL.parse(slackApiUrl);
  return api !== null && loopbackHosts.has(api.hostname) && url.origin === api.origin;
}

/**
 * Posts to an interaction's response_url (valid for 30 minutes, five times): the way to answer
 * a person in the channel a command came from once the interaction itself has been answered.
 * Every reply of the process goes through this one pool.
 */
export const respondTo: ReplySender = new ResponseUrlReplies().send;

/** Sends a message to the response_url of the delivery being answered. */
export type Respond = (message: ResponseUrlReply) => Promise<void>;

/** Where a reply goes: the delivery's response_url, the modal it came from, or the person's DM. */
export interface Target {
  client: WebClient;
  respond: Respond | undefined;
  triggerId: string | undefined;
  viewId?: string | undefined;
  actor: Actor;
}

export const restarting: Reply = { kind: 'message', message: { text: restartingText } };

/**
 * Turns a handler's plain reply into Slack calls. A modal's slower follow-up that fails shows its
 * failure in the modal's place, in the words `explain` gives.
 */
export async function deliver(
  reply: Reply,
  target: Target,
  explain: (actor: Actor, error: unknown) => Promise<Message>,
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
      if (reply.opened && opened.view?.id) await reply.opened(opened.view.id);
      if (!reply.followUp) return;
      let next: ModalView;
      try {
        next = await reply.followUp();
      } catch (error) {
        next = messageModal(reply.view.title.text, await explain(actor, error));
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
