import { randomUUID } from 'node:crypto';
import type { KeyValueStore } from '../store/keyValue.ts';
import type { Person } from '../store/sessions.ts';
import { keys } from '../store/keys.ts';
import { tokenHash } from './links.ts';

/** Failed logins a Slack person may make in their window, through the modal and the page together. */
export const personFailureLimit = 5;
/** Failed logins one client address may cause on the page in their window. */
export const addressFailureLimit = 20;
/** Unusable links one client address may open in their window before it is told to stop. */
export const badLinkLimit = 20;
/** Reset e-mails one Slack person may ask for in an hour, through the modal and the page together. */
export const resetsPerPerson = 5;
/** Reset e-mails that may be asked for one address in an hour, whoever asks. */
export const resetsPerEmail = 3;

/** Events counted under `key` in a window of `windowMs`, of which `limit` are allowed. */
type Counter = { key: string; windowMs: number; limit: number };

const personFailures = (p: Person): Counter => ({
  key: keys.loginFailures.key(p),
  windowMs: keys.loginFailures.ttlMs,
  limit: personFailureLimit,
});
const addressFailures = (address: string): Counter => ({
  key: keys.loginFailuresByAddress.key(address),
  windowMs: keys.loginFailuresByAddress.ttlMs,
  limit: addressFailureLimit,
});
const badLinks = (address: string): Counter => ({
  key: keys.loginBadLinks.key(address),
  windowMs: keys.loginBadLinks.ttlMs,
  limit: badLinkLimit,
});
const personResets = (p: Person): Counter => ({
  key: keys.resetsByPerson.key(p),
  windowMs: keys.resetsByPerson.ttlMs,
  limit: resetsPerPerson,
});
const emailResets = (email: string): Counter => ({
  // Hashed: the store holds no list of the addresses people typed.
  key: keys.resetsByEmail.key(tokenHash(email.trim().toLowerCase())),
  windowMs: keys.resetsByEmail.ttlMs,
  limit: resetsPerEmail,
});

/**
 * Counters of failed logins, unusable links and reset e-mails, in the store so that every replica
 * sees them. Each count is one atomic increment with its window, so a burst on many replicas
 * counts every request. What has a cost of its own (a reset e-mail) is counted before it is done,
 * and refused once over the limit; failures are counted once they happened, and only one login
 * attempt per person runs at a time (a claim), so a person's failures cannot outrun their limit.
 */
export class LoginLimits {
  readonly #store: KeyValueStore;
  readonly #now: () => number;

  constructor(store: KeyValueStore, now: () => number) {
    this.#store = store;
    this.#now = now;
  }

  /** When the person may try again, or undefined when they may now. */
  personBlockedUntil(person: Person): Promise<Date | undefined> {
    return this.#blockedUntil(personFailures(person));
  }

  addressBlockedUntil(address: string): Promise<Date | undefined> {
    return this.#blockedUntil(addressFailures(address));
  }

  async recordPersonFailure(person: Person): Promise<void> {
    await this.#take(personFailures(person));
  }

  async recordAddressFailure(address: string): Promise<void> {
    await this.#take(addressFailures(address));
  }

  /**
   * Counts an unusable link opened from `address`: when the address is over its limit, the time
   * its unusable links stop being refused. A valid link is never counted nor refused by this.
   */
  badLink(address: string): Promise<Date | undefined> {
    return this.#take(badLinks(address));
  }

  /**
   * Takes one reset e-mail for the person and the target address: undefined when it may be sent,
   * else when the first limit it is over lets one through again.
   */
  async takeReset(person: Person, email: string): Promise<Date | undefined> {
    const over = await Promise.all([this.#take(personResets(person)), this.#take(emailResets(email))]);
    const until = over.filter((date) => date !== undefined);
    return until.length ? new Date(Math.max(...until.map((date) => date.getTime()))) : undefined;
  }

  /** Runs `attempt` unless another attempt of the same person is under way (then undefined). */
  async oneAtATime<T>(person: Person, attempt: () => Promise<T>): Promise<T | undefined> {
    const key = keys.loginAttempt.key(person);
    const holder = randomUUID();
    if (!(await this.#store.claim(key, keys.loginAttempt.ttlMs, holder))) return undefined;
    try {
      return await attempt();
    } finally {
      await this.#store.release(key, holder);
    }
  }

  async #blockedUntil(counter: Counter): Promise<Date | undefined> {
    const counted = await this.#store.counter(counter.key, this.#now());
    return counted && counted.count >= counter.limit ? new Date(counted.endsAt) : undefined;
  }

  /** Counts one more: when the count is past the limit, the end of its window. */
  async #take(counter: Counter): Promise<Date | undefined> {
    const counted = await this.#store.increment(counter.key, counter.windowMs, this.#now());
    return counted.count > counter.limit ? new Date(counted.endsAt) : undefined;
  }
}
