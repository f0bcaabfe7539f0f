import type { CompanySession, TeamEntry } from '../client/index.ts';
import { companySessionSchema } from '../client/index.ts';
import type { KeyValueStore } from './keyValue.ts';
import type { SessionCipher } from './cipher.ts';

/** Who a stored session belongs to: the Enterprise Grid org (or workspace) and the Slack user. */
export interface Person {
  workspaceId: string;
  userId: string;
}

/** A person's platform login as the bot holds it: the company session and the selected team. */
export interface Login {
  session: CompanySession;
  team: TeamEntry | undefined;
  expiresAt: Date;
}

const sessionKey = (p: Person) => `session:${p.workspaceId}:${p.userId}`;
const teamKey = (p: Person) => `team:${p.workspaceId}:${p.userId}`;

/**
 * Company sessions per Slack user, encrypted at rest and expiring with the platform session.
 * The selected team id is kept beside it, in the clear and without expiry, so that it is
 * remembered across logins; it is only used while it is one of the session's teams.
 */
export class SessionStore {
  readonly #store: KeyValueStore;
  readonly #cipher: SessionCipher;
  readonly #now: () => number;

  constructor(store: KeyValueStore, cipher: SessionCipher, now: () => number = Date.now) {
    this.#store = store;
    this.#cipher = cipher;
    this.#now = now;
  }

  async get(person: Person): Promise<Login | undefined> {
    return (await this.lookup(person)).login;
  }

  /** The login, or why there is none: `expired` when a stored session ran out just now. */
  async lookup(person: Person): Promise<{ login?: Login; expired: boolean }> {
    const key = sessionKey(person);
    const sealed = await this.#store.get<string>(key);
    if (typeof sealed !== 'string') return { expired: false };
    const opened = this.#cipher.open(sealed, key);
    const parsed = opened ? companySessionSchema.safeParse(JSON.parse(opened.plaintext)) : undefined;
    if (!opened || !parsed?.success) {
      // Unreadable under every configured key: treat as logged out rather than fail every command.
      await this.#store.delete(key);
      return { expired: false };
    }
    const session = parsed.data;
    const expiresAt = new Date(session.expires_at ?? 0);
    if (!(expiresAt.getTime() > this.#now())) {
      await this.#store.delete(key);
      return { expired: true };
    }
    if (opened.stale) await this.save(person, session);
    const teamId = await this.#store.get<string>(teamKey(person));
    return { login: { session, team: session.teams.find((t) => t.identifier === teamId), expiresAt }, expired: false };
  }

  async save(person: Person, session: CompanySession): Promise<void> {
    const key = sessionKey(person);
    const ttl = new Date(session.expires_at ?? 0).getTime() - this.#now();
    if (!(ttl > 0)) throw new Error('The platform returned a session that has already expired');
    await this.#store.set(key, this.#cipher.seal(JSON.stringify(session), key), ttl);
  }

  async drop(person: Person): Promise<void> {
    await this.#store.delete(sessionKey(person));
  }

  async selectTeam(person: Person, teamId: string): Promise<void> {
    await this.#store.set(teamKey(person), teamId);
  }
}
