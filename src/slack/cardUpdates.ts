import { ErrorCode, type WebClient } from '@slack/web-api';
import type { MessageRef } from '../attacks/cards.ts';
import type { Logger } from '../logger.ts';
import type { Message } from '../views/message.ts';

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
 * Card updates, queued and coalesced (the newest content of a message wins) and paced under
 * Slack's rate limit for chat.update; on a 429 only this queue waits Retry-After.
 */
export class CardUpdates {
  readonly #updates: WebClient;
  readonly #logger: Logger;
  /** Queued updates by `channel/ts`, a map per priority, each in the order first queued. */
  readonly #urgent = new Map<string, QueuedUpdate>();
  readonly #routine = new Map<string, QueuedUpdate>();
  readonly #intervalMs: number;
  readonly #burst: number;
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

  /** `client` is built with rejectRateLimitedCalls: the queue waits, not the client. */
  constructor(client: WebClient, logger: Logger, options: { updatesPerMinute?: number; updateBurst?: number } = {}) {
    this.#updates = client;
    this.#logger = logger;
    this.#intervalMs = 60_000 / (options.updatesPerMinute ?? 50);
    this.#burst = options.updateBurst ?? 10;
    this.#tokens = this.#burst;
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
