import { ErrorCode, type WebClient } from '@slack/web-api';
import type { HomeView } from '@slack/types';
import type { Message } from '../views/message.ts';
import type { MessageRef } from '../attacks/cards.ts';
import type { Logger } from '../logger.ts';
import { isSlackResponseUrl, respondTo } from './replies.ts';

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
 * Which queued card updates go first when Slack's limit holds them back: `urgent` (a halt, an
 * attack that finished) before `routine` (a stage moving on, everything else). Within each,
 * first queued first; a newer content of a queued message takes its place and keeps the higher
 * of the two priorities.
 */
export type UpdatePriority = 'urgent' | 'routine';

interface QueuedUpdate {
  channel: string;
  ts: string;
  message: Message | (() => Message);
}

/**
 * The bot's own Slack calls outside an interaction's reply: channel messages, thread replies,
 * card updates and App Home. Card updates are queued and coalesced (the newest content of a
 * message wins) and paced under Slack's rate limit; on a 429 only that queue waits Retry-After.
 */
export class Messenger {
  readonly #client: WebClient;
  readonly #updates: WebClient;
  readonly #logger: Logger;
  /** Queued updates by `channel/ts`, a map per priority, each in the order first queued. */
  readonly #urgent = new Map<string, QueuedUpdate>();
  readonly #routine = new Map<string, QueuedUpdate>();
  readonly #intervalMs: number;
  readonly #burst: number;
  readonly #slackApiUrl: string;
  #tokens: number;
  #refilledAt = Date.now();
  /** Slack's Retry-After of the last 429 on chat.update, as a time. */
  #pausedUntil = 0;
  #draining: Promise<void> | undefined;
  #sending: MessageRef | undefined;
  #wake: (() => void) | undefined;
  /** Set by the last flush, at shutdown: no wait may end after it. */
  #deadline = Number.POSITIVE_INFINITY;
  #stopped = false;

  constructor(clients: MessengerClients, logger: Logger, options: MessengerOptions = {}) {
    this.#client = clients.calls;
    this.#updates = clients.cardUpdates;
    this.#logger = logger;
    this.#intervalMs = 60_000 / (options.updatesPerMinute ?? 50);
    this.#burst = options.updateBurst ?? 10;
    this.#slackApiUrl = options.slackApiUrl ?? 'https://slack.com/api/';
    this.#tokens = this.#burst;
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

  /**
   * Queues an in-place update; a newer update of the same message replaces one still queued.
   * Urgent ones (halts, finished attacks) go out before routine ones still waiting.
   * `message` may be given as the function that words it, called only when the update is sent:
   * a poll pass queues thousands of cards, and most are replaced before their turn.
   */
  update(channel: string, ts: string, message: Message | (() => Message), priority: UpdatePriority = 'routine'): void {
    const key = `${channel}/${ts}`;
    const queued = { channel, ts, message };
    if (this.#urgent.has(key) || priority === 'urgent') {
      this.#routine.delete(key);
      this.#urgent.set(key, queued);
    } else {
      this.#routine.set(key, queued);
    }
    this.#kick();
  }

  get #size(): number {
    return this.#urgent.size + this.#routine.size;
  }

  #has(key: string): boolean {
    return this.#urgent.has(key) || this.#routine.has(key);
  }

  #kick(): void {
    if (this.#stopped || this.#draining || !this.#size) return;
    this.#draining = this.#drain().finally(() => {
      this.#draining = undefined;
      this.#kick();
    });
  }

  /**
   * Resolves once every queued update has been sent (or has failed and been logged). With
   * `withinMs`, for shutdown, it stops sending past that time, or at once when Slack has asked to
   * wait longer, and returns the messages whose last update may not have reached Slack.
   */
  async flush(options: { withinMs?: number } = {}): Promise<MessageRef[]> {
    if (options.withinMs === undefined) {
      while (this.#draining) await this.#draining;
      return [];
    }
    this.#deadline = Date.now() + options.withinMs;
    this.#wake?.();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, options.withinMs);
    });
    await Promise.race([
      (async () => {
        while (this.#draining) await this.#draining;
      })(),
      late,
    ]);
    clearTimeout(timer);
    this.#stopped = true;
    this.#wake?.();
    const unsent: MessageRef[] = [...this.#urgent.values(), ...this.#routine.values()].map(({ channel, ts }) => ({
      channel,
      ts,
    }));
    if (this.#sending && !this.#has(`${this.#sending.channel}/${this.#sending.ts}`)) unsent.push(this.#sending);
    this.#urgent.clear();
    this.#routine.clear();
    return unsent;
  }

  /** Queued updates not yet sent, for metrics and tests. */
  get queued(): number {
    return this.#size;
  }

  async #drain(): Promise<void> {
    while (this.#size && !this.#stopped) {
      const wait = this.#waitMs();
      if (wait > 0) {
        if (Date.now() + wait > this.#deadline) {
          // Stopping, and Slack would not take this update in time: leave it to the next replica.
          this.#stopped = true;
          return;
        }
        await this.#sleep(wait);
        continue;
      }
      this.#tokens -= 1;
      const lane = this.#urgent.size ? this.#urgent : this.#routine;
      const next = lane.values().next().value!;
      const key = `${next.channel}/${next.ts}`;
      lane.delete(key);
      this.#sending = { channel: next.channel, ts: next.ts };
      try {
        const message = typeof next.message === 'function' ? next.message() : next.message;
        await this.#updates.chat.update({
          channel: next.channel,
          ts: next.ts,
          text: message.text,
          blocks: message.blocks ?? [],
          ...(message.metadata ? { metadata: message.metadata } : {}),
        });
      } catch (error) {
        const retryAfter = rateLimitedFor(error);
        if (retryAfter === undefined) {
          this.#logger.warn({ err: error, channel: next.channel, ts: next.ts }, 'could not update a message');
        } else {
          this.#pausedUntil = Date.now() + retryAfter * 1000;
          // Back at the head of its queue, unless a newer content of the message is queued already.
          if (!this.#has(key)) {
            const rest = [...lane];
            lane.clear();
            lane.set(key, next);
            for (const [k, v] of rest) lane.set(k, v);
          }
          this.#logger.warn(
            { channel: next.channel, ts: next.ts, retryAfterSeconds: retryAfter, queued: this.#size },
            'Slack rate-limited card updates; they wait, other messages do not',
          );
        }
      } finally {
        this.#sending = undefined;
      }
    }
  }

  /** How long until the next update may go: Slack's Retry-After, then the pacing. */
  #waitMs(): number {
    const now = Date.now();
    this.#tokens = Math.min(this.#burst, this.#tokens + (now - this.#refilledAt) / this.#intervalMs);
    this.#refilledAt = now;
    const paced = this.#tokens >= 1 ? 0 : Math.ceil((1 - this.#tokens) * this.#intervalMs);
    return Math.max(paced, this.#pausedUntil - now);
  }

  /** Sleeps, or less when a flush for shutdown wakes it to look at its deadline. */
  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#wake = done;
    });
  }
}

/** Seconds Slack asked to wait, when the error is a 429 the client rejected. */
function rateLimitedFor(error: unknown): number | undefined {
  const { code, retryAfter } = (error ?? {}) as { code?: unknown; retryAfter?: unknown };
  return code === ErrorCode.RateLimitedError && typeof retryAfter === 'number' ? retryAfter : undefined;
}
