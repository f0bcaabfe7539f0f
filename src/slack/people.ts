import type { WebClient } from '@slack/web-api';
import type { SlackDirectory, SlackIdentity } from '../login/service.ts';
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

/** What users.info and users.lookupByEmail tell of a person, as far as Faultline reads it. */
interface SlackUser {
  id?: string | undefined;
  name?: string | undefined;
  real_name?: string | undefined;
  profile?:
    | { real_name?: string | undefined; display_name?: string | undefined; email?: string | undefined }
    | undefined;
}

const slackError = (error: unknown) => (error as { data?: { error?: string } }).data?.error;

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
      this.#logger.warn(
        { err: error, user: userId, slackError: slackError(error) },
        "could not read a person's name from Slack; the user id stands in",
      );
      return undefined;
    }
  }
}

function identity(user: SlackUser | undefined, userId: string): SlackIdentity {
  return {
    userId: user?.id ?? userId,
    name: personName(user, userId),
    handle: user?.name?.trim() || userId,
    email: user?.profile?.email?.trim() || undefined,
  };
}

/**
 * Who a login links to, asked of Slack each time (users.info and users.lookupByEmail, scopes
 * users:read and users:read.email): the e-mail a login is matched against must be the profile's
 * now, not an hour ago. The workspace's name (auth.test) does not change under a running bot.
 */
export class SlackPeopleDirectory implements SlackDirectory {
  readonly #client: WebClient;
  readonly #logger: Logger;
  #workspace: Promise<string | undefined> | undefined;

  constructor(client: WebClient, logger: Logger) {
    this.#client = client;
    this.#logger = logger;
  }

  async person(userId: string): Promise<SlackIdentity | undefined> {
    try {
      const { user } = await this.#client.users.info({ user: userId });
      return identity(user, userId);
    } catch (error) {
      this.#logger.warn({ err: error, user: userId, slackError: slackError(error) }, 'could not read a Slack profile');
      return undefined;
    }
  }

  async byEmail(email: string): Promise<SlackIdentity | undefined> {
    try {
      const { user } = await this.#client.users.lookupByEmail({ email });
      return user?.id ? identity(user, user.id) : undefined;
    } catch (error) {
      if (slackError(error) !== 'users_not_found')
        this.#logger.warn(
          { err: error, slackError: slackError(error) },
          'could not look a person up by e-mail in Slack',
        );
      return undefined;
    }
  }

  workspaceName(): Promise<string | undefined> {
    this.#workspace ??= this.#client.auth.test().then(
      ({ team }) => team?.trim() || undefined,
      (error: unknown) => {
        // Asked again next time: a name is worth one more call, not a wrong page.
        this.#workspace = undefined;
        this.#logger.warn({ err: error, slackError: slackError(error) }, "could not read the workspace's name");
        return undefined;
      },
    );
    return this.#workspace;
  }
}
