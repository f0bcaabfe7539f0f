import type { KeyValueStore } from '../store/keyValue.ts';
import type { Person } from '../store/sessions.ts';
import { keys } from '../store/keys.ts';
import { withLock } from '../store/leases.ts';
import { tokenHash } from './links.ts';

/** Failed logins a Slack person may make in their window, through the modal and the page together. */
export const personFailureLimit = 5;
/** Failed logins one client address may cause on the page in their window. */
export const addressFailureLimit = 20;
/** Unusable links one client address may open in their window before it is told to stop. */
export const badLinkLimit = 20;
/** Reset e-mails one Slack person may ask for in an hour, through the modal and the page together. */
export const resetsPerPerson = 5;
/** Reset e-mails that may be asked for one address in an hour by people whose Slack e-mail it is not. */
export const resetsPerEmail = 3;
/** Times one login link's page may be loaded: each load may cost Slack and store calls. */
export const pageLoadsPerLink = 20;
/** Single sign-ons one login link may start: each is a platform call and a stored start. */
export const ssoStartsPerLink = 5;
/** Login pages one client address may load in their window. */
export const pageLoadsPerAddress = 300;
/** Single sign-ons one client address may start in their window. */
export const ssoStartsPerAddress = 60;

/** Events counted under `key` in a window of `windowMs`, of which `limit` are allowed. */
type Counter = { key: string; windowMs: number; limit: number };

/** A counter per id of a key table entry, whose lifetime is its window. */
const counter =
  <T>(entry: { key(id: T): string; ttlMs: number }, limit: number) =>
  (id: T): Counter => ({ key: entry.key(id), windowMs: entry.ttlMs, limit });

const personFailures = counter<Person>(keys.loginFailures, personFailureLimit);
const addressFailures = counter<string>(keys.loginFailuresByAddress, addressFailureLimit);
const badLinks = counter<string>(keys.loginBadLinks, badLinkLimit);
const pageLoads = counter<string>(keys.loginPageLoads, pageLoadsPerLink);
const addressPageLoads = counter<string>(keys.loginPageLoadsByAddress, pageLoadsPerAddress);
const ssoStarts = counter<string>(keys.ssoStarts, ssoStartsPerLink);
const addressSsoStarts = counter<string>(keys.ssoStartsByAddress, ssoStartsPerAddress);
const personResets = counter<Person>(keys.resetsByPerson, resetsPerPerson);
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
 *
 * An address limit never refuses a person for what others did from that address alone (people
 * behind one proxy share it): once an address is over one of its limits, each person still gets
 * one more of what it counts (a login attempt, a page load, a single sign-on) from it, and only
 * what they do past the limit themselves holds them until the address's window ends. So one
 * client trying many people's links gets one more try per person, not each person's whole limit.
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

  /**
   * When the person may try again from `address`, or undefined when they may now: an address
   * over its limit refuses only those who already failed from it past that limit.
   */
  async addressBlockedUntil(address: string, person: Person): Promise<Date | undefined> {
    const blocked = await this.#blockedUntil(addressFailures(address));
    if (!blocked) return undefined;
    const past = await this.#store.counter(keys.addressOverLimit.key('failures', address, person), this.#now());
    return past ? blocked : undefined;
  }

  async recordPersonFailure(person: Person): Promise<void> {
    await this.#take(personFailures(person));
  }

  async recordAddressFailure(address: string, person: Person): Promise<void> {
    if (await this.#take(addressFailures(address))) await this.#pastAddressLimit('failures', address, person);
  }

  /**
   * Counts one load of a link's page (`sso`: one single sign-on it starts) from `address`:
   * undefined when it may go ahead, else when the limit it is over lets one through again.
   */
  async takePageLoad(
    kind: 'page' | 'sso',
    linkHash: string,
    person: Person,
    address: string,
  ): Promise<Date | undefined> {
    const [perLink, perAddress] = kind === 'sso' ? [ssoStarts, addressSsoStarts] : [pageLoads, addressPageLoads];
    const linkUntil = await this.#take(perLink(linkHash));
    if (linkUntil) return linkUntil;
    const addressUntil = await this.#take(perAddress(address));
    if (!addressUntil) return undefined;
    // The first one a person asks for past the address's limit goes ahead; the next waits.
    return (await this.#pastAddressLimit(kind, address, person)) > 1 ? addressUntil : undefined;
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
   * else when the first limit it is over lets one through again. The address's `own`er (whose
   * Slack e-mail it is) is held by their own limit only: others' asks never use theirs up.
   */
  async takeReset(person: Person, email: string, { own }: { own: boolean }): Promise<Date | undefined> {
    const over = await Promise.all([
      this.#take(personResets(person)),
      own ? undefined : this.#take(emailResets(email)),
    ]);
    const until = over.filter((date) => date !== undefined);
    return until.length ? new Date(Math.max(...until.map((date) => date.getTime()))) : undefined;
  }

  /** Runs `attempt` unless another attempt of the same person is under way (then undefined). */
  async oneAtATime<T>(person: Person, attempt: () => Promise<T>): Promise<T | undefined> {
    const held = await withLock(this.#store, keys.loginAttempt.key(person), keys.loginAttempt.ttlMs, attempt);
    return held === 'busy' ? undefined : held.done;
  }

  /** Counts what the person did from `address` past its limit: how many so far in the window. */
  async #pastAddressLimit(limit: string, address: string, person: Person): Promise<number> {
    const key = keys.addressOverLimit.key(limit, address, person);
    return (await this.#store.increment(key, keys.addressOverLimit.ttlMs, this.#now())).count;
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
