import type { WebClient } from '@slack/web-api';
import type { Logger } from '../logger.ts';

export interface PeopleOptions {
  /** How many names are kept; the least recently used goes first. */
  maxEntries?: number;
  /** How long a name is trusted before Slack is asked again (people rename themselves). */
  ttlMs?: number;
  /** How long an unanswered lookup is remembered, so a failing Slack is not asked for every line. */
  failureTtlMs?: number;
  now?: () => number;
}

/** What users.info tells of a person, as far as a name goes. */
interface SlackUser {
  name?: string | undefined;
  real_name?: string | undefined;
  profile?: { real_name?: string | undefined; display_name?: string | undefined } | undefined;
}

/**
 * The name a person goes by outside Slack: the full name they gave Slack, else their display
 * name, else their handle. Outside Slack nobody can resolve a mention, so a full name says most.
 */
export function personName(user: SlackUser | undefined, fallback: string): string {
  const candidates = [user?.profile?.real_name, user?.real_name, user?.profile?.display_name, user?.name];
  return candidates.map((name) => name?.trim()).find((name) => name) ?? fallback;
}

/**
 * People's names for text that leaves Slack (tracker tickets, halt reasons, notes on the
 * platform), where a `<@U…>` mention means nothing. Each name is asked of Slack once
 * (users.info, scope users:read) and kept for a while; when Slack cannot say, the user id
 * stands in, so nothing that needs a name ever fails for the lack of one.
 */
export class People {
  readonly #client: WebClient;
  readonly #logger: Logger;
  readonly #maxEntries: number;
  readonly #ttlMs: number;
  readonly #failureTtlMs: number;
  readonly #now: () => number;
  /** In least-recently-used order; a lookup still under way is kept as its promise, so it is asked once. */
  readonly #names = new Map<string, { name: Promise<string>; expiresAt: number }>();

  constructor(client: WebClient, logger: Logger, options: PeopleOptions = {}) {
    this.#client = client;
    this.#logger = logger;
    this.#maxEntries = options.maxEntries ?? 1000;
    this.#ttlMs = options.ttlMs ?? 3600_000;
    this.#failureTtlMs = options.failureTtlMs ?? 60_000;
    this.#now = options.now ?? Date.now;
  }

  /** The person's name, or their user id when Slack cannot tell it. Never rejects. */
  name(userId: string): Promise<string> {
    const now = this.#now();
    const kept = this.#names.get(userId);
    this.#names.delete(userId);
    if (kept && kept.expiresAt > now) {
      this.#names.set(userId, kept);
      return kept.name;
    }
    const entry = { name: Promise.resolve(userId), expiresAt: now + this.#ttlMs };
    entry.name = this.#lookUp(userId).then((found) => {
      // Only an answer is trusted for long; after a failure Slack is asked again soon.
      if (found === undefined) entry.expiresAt = this.#now() + this.#failureTtlMs;
      return found ?? userId;
    });
    this.#names.set(userId, entry);
    while (this.#names.size > this.#maxEntries) this.#names.delete(this.#names.keys().next().value!);
    return entry.name;
  }

  /** Names for several people at once, by user id. */
  async names(userIds: Iterable<string>): Promise<Record<string, string>> {
    const unique = [...new Set(userIds)];
    const names = await Promise.all(unique.map((id) => this.name(id)));
    return Object.fromEntries(unique.map((id, index) => [id, names[index]!]));
  }

  /** The name Slack gives, or undefined when it gives none. */
  async #lookUp(userId: string): Promise<string | undefined> {
    try {
      const { user } = await this.#client.users.info({ user: userId });
      return personName(user, userId);
    } catch (error) {
      const code = (error as { data?: { error?: string } }).data?.error;
      this.#logger.warn(
        { err: error, user: userId, slackError: code },
        "could not read a person's name from Slack; the user id stands in",
      );
      return undefined;
    }
  }
}
