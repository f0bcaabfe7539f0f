import type { CompanySession, TeamEntry } from '../client/index.ts';
import { companySessionSchema } from '../client/index.ts';
import type { KeyValueStore } from './keyValue.ts';
import type { SessionCipher } from './cipher.ts';
import { keys } from './keys.ts';

/** Who a stored session belongs to: the Enterprise Grid org (or workspace) and the Slack user. */
export interface Person {
  workspaceId: string;
  userId: string;
}

/** The same Slack user in the same org or workspace. */
export const samePerson = (a: Person, b: Person) => a.workspaceId === b.workspaceId && a.userId === b.userId;

/** The Slack user behind an interaction, with the place it came from. */
export interface Actor extends Person {
  userName: string;
  channelId: string | undefined;
}

/** A person's platform login as the bot holds it: the company session and the selected team. */
export interface Login {
  session: CompanySession;
  team: TeamEntry | undefined;
  expiresAt: Date;
}

/** A decrypted session, for as long as the stored ciphertext is the one it was opened from. */
interface Opened {
  sealed: string;
  session: CompanySession;
  stale: boolean;
  openedAt: number;
}

/** Every request reads the session; opening it (AES-GCM, JSON, schema) is skipped for this long. */
const openedTtlMs = 60_000;
const openedLimit = 1_000;

/**
 * Company sessions per Slack user, encrypted at rest and expiring with the platform session.
 * The selected team id is kept beside it, in the clear and without expiry, so that it is
 * remembered across logins; it is only used while it is one of the session's teams.
 */
export class SessionStore {
  readonly #store: KeyValueStore;
  readonly #cipher: SessionCipher;
  readonly #now: () => number;
  /**
   * Sessions opened lately, by storage key. The store is still read on every lookup, and an entry
   * is used only while the stored ciphertext is the very one it was opened from: a logout, a new
   * login or another replica's re-save changes or removes it, and the entry is passed over.
   */
  readonly #opened = new Map<string, Opened>();

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
    const key = keys.session.key(person);
    const sealed = await this.#store.get<string>(key);
    if (typeof sealed !== 'string') return { expired: false };
    const { session, stale } = this.#open(key, sealed) ?? {};
    if (!session) {
      // Unreadable under every key this replica has: logged out here, but left in place, since
      // during a rolling key rotation another replica may hold the key that opens it.
      return { expired: false };
    }
    const expiresAt = new Date(session.expires_at ?? 0);
    if (!(expiresAt.getTime() > this.#now())) {
      this.#opened.delete(key);
      await this.#store.delete(key);
      return { expired: true };
    }
    if (stale) await this.save(person, session);
    const teamId = await this.#store.get<string>(keys.team.key(person));
    return { login: { session, team: session.teams.find((t) => t.identifier === teamId), expiresAt }, expired: false };
  }

  /** The session sealed in `sealed`, from the recently opened ones when it is the same ciphertext. */
  #open(key: string, sealed: string): { session: CompanySession; stale: boolean } | undefined {
    const now = this.#now();
    const known = this.#opened.get(key);
    if (known && known.sealed === sealed && now - known.openedAt < openedTtlMs && now >= known.openedAt) return known;
    this.#opened.delete(key);
    const opened = this.#cipher.open(sealed, key);
    const parsed = opened ? companySessionSchema.safeParse(JSON.parse(opened.plaintext)) : undefined;
    if (!opened || !parsed?.success) return undefined;
    if (this.#opened.size >= openedLimit) this.#opened.delete(this.#opened.keys().next().value!);
    const entry = { sealed, session: parsed.data, stale: opened.stale, openedAt: now };
    this.#opened.set(key, entry);
    return entry;
  }

  async save(person: Person, session: CompanySession): Promise<void> {
    const key = keys.session.key(person);
    this.#opened.delete(key);
    const left = new Date(session.expires_at ?? 0).getTime() - this.#now();
    if (!(left > 0)) throw new Error('The platform returned a session that has already expired');
    await this.#store.set(key, this.#cipher.seal(JSON.stringify(session), key), keys.session.ttlMs(left));
    // Who can read each team while their session lasts: the poller falls back on them.
    for (const team of session.teams)
      await this.#store.set(keys.reader.key(team.identifier, person), person, keys.reader.ttlMs(left));
  }

  async drop(person: Person): Promise<void> {
    const { login } = await this.lookup(person).catch(() => ({ login: undefined }));
    for (const team of login?.session.teams ?? []) await this.#store.delete(keys.reader.key(team.identifier, person));
    this.#opened.delete(keys.session.key(person));
    await this.#store.delete(keys.session.key(person));
  }

  /** People logged in with a session that includes the team (at most `limit`). */
  async readersOf(teamId: string, limit = 20): Promise<Person[]> {
    const people: Person[] = [];
    for await (const [, person] of this.#store.entries<Person>(keys.reader.ofTeam(teamId))) {
      people.push(person);
      if (people.length >= limit) break;
    }
    return people;
  }

  async selectTeam(person: Person, teamId: string): Promise<void> {
    await this.#store.set(keys.team.key(person), teamId, keys.team.ttlMs);
  }
}
