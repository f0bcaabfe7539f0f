import { Agent, request } from 'undici';
import type { Message } from '../views/message.ts';

/** A reply to an interaction's response_url: ephemeral, and in place of the message clicked when asked. */
export type ResponseUrlReply = Message & { replaceOriginal?: boolean };

/** Sends one reply to a response_url; throws when Slack refuses it or does not answer. */
export type ReplySender = (responseUrl: string, message: ResponseUrlReply) => Promise<void>;

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
    const body = JSON.stringify({
      response_type: 'ephemeral',
      replace_original: message.replaceOriginal ?? false,
      text: message.text,
      ...(message.blocks ? { blocks: message.blocks } : {}),
    });
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

/** The process's reply pool: every interaction's response_url goes through it. */
export const responseUrlReplies = new ResponseUrlReplies();

/**
 * Posts to an interaction's response_url (valid for 30 minutes, five times): the way to answer
 * a person in the channel a command came from once the interaction itself has been answered.
 */
export const respondTo: ReplySender = (responseUrl, message) => responseUrlReplies.send(responseUrl, message);
