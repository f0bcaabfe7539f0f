import type { HomeView, ModalView } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { MessageRef } from '../attacks/cards.ts';
import type { Logger } from '../logger.ts';
import type { Message } from '../views/message.ts';
import { CardUpdates, type UpdatePriority } from './cardUpdates.ts';
import { isSlackResponseUrl, respondTo } from './replies.ts';

export type { UpdatePriority } from './cardUpdates.ts';

export interface MessengerOptions {
  /** chat.update is a Tier 3 method (about 50 a minute); queued card updates stay under this. */
  updatesPerMinute?: number;
  /** How many updates may go out at once after a quiet spell. */
  updateBurst?: number;
  /** SLACK_API_URL: a loopback fake Slack's response_urls are answered too (tests, the demo). */
  slackApiUrl?: string;
}

/**
 * Two Web API clients, because a client waits out a 429 by pausing every call queued on it: card
 * updates go through their own, so a rate limit on chat.update never holds up a thread reply, a
 * halt's confirmation or the channel check before a start.
 */
export interface MessengerClients {
  /** Messages, thread replies, checks and App Home. */
  calls: WebClient;
  /** chat.update of queued card updates only; built with rejectRateLimitedCalls, the queue waits. */
  cardUpdates: WebClient;
}

/**
 * The bot's own Slack calls outside an interaction's reply: channel messages, thread replies,
 * card updates and App Home. Card updates go through their own queue (see CardUpdates).
 */
export class Messenger {
  readonly #client: WebClient;
  readonly #cards: CardUpdates;
  readonly #logger: Logger;
  readonly #slackApiUrl: string;

  constructor(clients: MessengerClients, logger: Logger, options: MessengerOptions = {}) {
    this.#client = clients.calls;
    this.#cards = new CardUpdates(clients.cardUpdates, logger, options);
    this.#logger = logger;
    this.#slackApiUrl = options.slackApiUrl ?? 'https://slack.com/api/';
  }

  async post(channel: string, message: Message, options: { threadTs?: string | undefined } = {}): Promise<MessageRef> {
    const result = await this.#client.chat.postMessage({
      channel,
      text: message.text,
      ...(message.blocks ? { blocks: message.blocks } : {}),
      ...(message.metadata ? { metadata: message.metadata } : {}),
      ...(options.threadTs ? { thread_ts: options.threadTs } : {}),
      unfurl_links: false,
    });
    return { channel: result.channel ?? channel, ts: result.ts! };
  }

  /**
   * Answers an interaction's response_url (valid 30 minutes, five times), ephemerally. A URL
   * that is not Slack's (one read back from a view's private_metadata, say) gets nothing.
   */
  async respond(responseUrl: string, message: Message): Promise<'sent' | 'not Slack' | 'refused'> {
    if (!isSlackResponseUrl(responseUrl, this.#slackApiUrl)) return 'not Slack';
    return respondTo(responseUrl, message).then(
      () => 'sent' as const,
      () => 'refused' as const,
    );
  }

  async postEphemeral(channel: string, user: string, message: Message): Promise<void> {
    await this.#client.chat.postEphemeral({
      channel,
      user,
      text: message.text,
      ...(message.blocks ? { blocks: message.blocks } : {}),
    });
  }

  async permalink(channel: string, ts: string): Promise<string | undefined> {
    try {
      return (await this.#client.chat.getPermalink({ channel, message_ts: ts })).permalink;
    } catch (error) {
      this.#logger.warn({ err: error }, 'could not get a permalink');
      return undefined;
    }
  }

  /**
   * Why an attack card could not be posted and kept up to date in a channel, or undefined when
   * it can: direct messages and archived channels are refused, and so are private channels the
   * app is not in.
   */
  async cardProblem(channel: string): Promise<string | undefined> {
    try {
      const { channel: info } = await this.#client.conversations.info({ channel });
      if (!info) return 'Slack did not describe this conversation; start attacks from a channel.';
      if (info.is_im || info.is_mpim)
        return 'Start attacks from a channel, where everyone can see the card and its Halt button, not from a direct message.';
      if (info.is_archived) return 'This channel is archived; start attacks from a live one.';
      if (info.is_private && !info.is_member)
        return 'Faultline is not in this private channel, so it could not post the attack card. Invite it (/invite @Faultline), then try again.';
      return undefined;
    } catch (error) {
      const code = (error as { data?: { error?: string } }).data?.error;
      if (code === 'channel_not_found')
        return 'Faultline cannot see this conversation, so it could not post the attack card. Invite it to a channel (/invite @Faultline) and start the attack there.';
      this.#logger.warn({ err: error, channel }, 'could not check the channel for an attack card');
      return 'Slack did not answer a check of this channel, so no attack was started. Try again in a moment.';
    }
  }

  /** The public and private channels a person is in (needs channels:read and groups:read). */
  async channelsOf(user: string): Promise<Set<string>> {
    const channels = new Set<string>();
    let cursor: string | undefined;
    do {
      const page = await this.#client.users.conversations({
        user,
        types: 'public_channel,private_channel',
        exclude_archived: true,
        limit: 200,
        ...(cursor ? { cursor } : {}),
      });
      for (const channel of page.channels ?? []) if (channel.id) channels.add(channel.id);
      cursor = page.response_metadata?.next_cursor || undefined;
    } while (cursor && channels.size < 10_000);
    return channels;
  }

  async publishHome(user: string, view: HomeView): Promise<void> {
    await this.#client.views.publish({ user_id: user, view });
  }

  /** Changes a modal a person still has open (one closed since is an error Slack gives). */
  async updateView(viewId: string, view: ModalView): Promise<void> {
    await this.#client.views.update({ view_id: viewId, view });
  }

  /** Queues an in-place update of a message (see CardUpdates.update). */
  update(channel: string, ts: string, message: Message | (() => Message), priority: UpdatePriority = 'routine'): void {
    this.#cards.update(channel, ts, message, priority);
  }

  /** See CardUpdates.flush: every queued update sent, or, with `withinMs`, those left unsent. */
  flush(options: { withinMs?: number } = {}): Promise<MessageRef[]> {
    return this.#cards.flush(options);
  }

  /** Queued updates not yet sent, for metrics and tests. */
  get queued(): number {
    return this.#cards.queued;
  }
}
