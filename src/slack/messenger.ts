import type { WebClient } from '@slack/web-api';
import type { HomeView } from '@slack/types';
import type { Message } from '../views/message.ts';
import type { Logger } from '../logger.ts';

export interface MessengerOptions {
  /** chat.update is a Tier 3 method (about 50 a minute); queued card updates stay under this. */
  updatesPerMinute?: number;
  /** How many updates may go out at once after a quiet spell. */
  updateBurst?: number;
}

/**
 * The bot's own Slack calls outside an interaction's reply: channel messages, thread replies,
 * card updates and App Home. Card updates are queued and coalesced (the newest content of a
 * message wins) and paced under Slack's rate limit; the Web API client honours Retry-After.
 */
export class Messenger {
  readonly #client: WebClient;
  readonly #logger: Logger;
  readonly #pending = new Map<string, { channel: string; ts: string; message: Message }>();
  readonly #intervalMs: number;
  readonly #burst: number;
  #tokens: number;
  #refilledAt = Date.now();
  #draining: Promise<void> | undefined;

  constructor(client: WebClient, logger: Logger, options: MessengerOptions = {}) {
    this.#client = client;
    this.#logger = logger;
    this.#intervalMs = 60_000 / (options.updatesPerMinute ?? 50);
    this.#burst = options.updateBurst ?? 10;
    this.#tokens = this.#burst;
  }

  async post(channel: string, message: Message, options: { threadTs?: string | undefined } = {}): Promise<{ channel: string; ts: string }> {
    const result = await this.#client.chat.postMessage({
      channel,
      text: message.text,
      ...(message.blocks ? { blocks: message.blocks } : {}),
      ...(options.threadTs ? { thread_ts: options.threadTs } : {}),
      unfurl_links: false,
    });
    return { channel: result.channel ?? channel, ts: result.ts! };
  }

  async postEphemeral(channel: string, user: string, message: Message): Promise<void> {
    await this.#client.chat.postEphemeral({ channel, user, text: message.text, ...(message.blocks ? { blocks: message.blocks } : {}) });
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
      if (info.is_im || info.is_mpim) return 'Start attacks from a channel, where everyone can see the card and its Halt button, not from a direct message.';
      if (info.is_archived) return 'This channel is archived; start attacks from a live one.';
      if (info.is_private && !info.is_member) return 'Faultline is not in this private channel, so it could not post the attack card. Invite it (/invite @Faultline), then try again.';
      return undefined;
    } catch (error) {
      const code = (error as { data?: { error?: string } }).data?.error;
      if (code === 'channel_not_found') return 'Faultline cannot see this conversation, so it could not post the attack card. Invite it to a channel (/invite @Faultline) and start the attack there.';
      this.#logger.warn({ err: error, channel }, 'could not check the channel for an attack card');
      return 'Slack did not answer a check of this channel, so no attack was started. Try again in a moment.';
    }
  }

  /** The public and private channels a person is in (needs channels:read and groups:read). */
  async channelsOf(user: string): Promise<Set<string>> {
    const channels = new Set<string>();
    let cursor: string | undefined;
    do {
      const page = await this.#client.users.conversations({ user, types: 'public_channel,private_channel', exclude_archived: true, limit: 200, ...(cursor ? { cursor } : {}) });
      for (const channel of page.channels ?? []) if (channel.id) channels.add(channel.id);
      cursor = page.response_metadata?.next_cursor || undefined;
    } while (cursor && channels.size < 10_000);
    return channels;
  }

  async publishHome(user: string, view: HomeView): Promise<void> {
    await this.#client.views.publish({ user_id: user, view });
  }

  /** Queues an in-place update; a newer update of the same message replaces one still queued. */
  update(channel: string, ts: string, message: Message): void {
    this.#pending.set(`${channel}/${ts}`, { channel, ts, message });
    this.#kick();
  }

  #kick(): void {
    if (this.#draining || !this.#pending.size) return;
    this.#draining = this.#drain().finally(() => {
      this.#draining = undefined;
      this.#kick();
    });
  }

  /** Resolves once every queued update has been sent (or has failed and been logged). */
  async flush(): Promise<void> {
    while (this.#draining) await this.#draining;
  }

  /** Queued updates not yet sent, for metrics and tests. */
  get queued(): number {
    return this.#pending.size;
  }

  #first(): [string, string, Message] {
    const next = this.#pending.values().next().value!;
    this.#pending.delete(`${next.channel}/${next.ts}`);
    return [next.channel, next.ts, next.message];
  }

  async #drain(): Promise<void> {
    while (this.#pending.size) {
      await this.#takeToken();
      const [channel, ts, message] = this.#first();
      try {
        await this.#client.chat.update({ channel, ts, text: message.text, blocks: message.blocks ?? [] });
      } catch (error) {
        this.#logger.warn({ err: error, channel, ts }, 'could not update a message');
      }
    }
  }

  async #takeToken(): Promise<void> {
    for (;;) {
      const now = Date.now();
      this.#tokens = Math.min(this.#burst, this.#tokens + (now - this.#refilledAt) / this.#intervalMs);
      this.#refilledAt = now;
      if (this.#tokens >= 1) {
        this.#tokens -= 1;
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, Math.ceil((1 - this.#tokens) * this.#intervalMs)));
    }
  }
}

/**
 * Posts to an interaction's response_url (valid for 30 minutes, five times): the way to answer
 * a person in the channel a command came from once the interaction itself has been answered.
 */
export async function respondTo(responseUrl: string, message: Message & { replaceOriginal?: boolean }): Promise<void> {
  const response = await fetch(responseUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ response_type: 'ephemeral', replace_original: message.replaceOriginal ?? false, text: message.text, ...(message.blocks ? { blocks: message.blocks } : {}) }),
    signal: AbortSignal.timeout(10_000),
  });
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`Slack refused the reply (${response.status})`);
}
