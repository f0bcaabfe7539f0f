import { randomUUID } from 'node:crypto';
import type { KeyValueStore } from '../store/keyValue.ts';
import type { Person } from '../store/sessions.ts';
import { keys } from '../store/keys.ts';

/** Failed logins a Slack person may make in their window, through the modal and the page together. */
export const personFailureLimit = 5;
/** Failed logins and unusable links one client address may cause on the page in their window. */
export const addressFailureLimit = 20;

/** Failed logins counted under `key`, for as long as each is kept. */
type Counter = { key: string; windowMs: number; limit: number };

const personCounter = (p: Person): Counter => ({
  key: keys.loginFailures.key(p),
  windowMs: keys.loginFailures.ttlMs,
  limit: personFailureLimit,
});
const addressCounter = (address: string): Counter => ({
  key: keys.loginFailuresByAddress.key(address),
  windowMs: keys.loginFailuresByAddress.ttlMs,
  limit: addressFailureLimit,
});

/**
 * Sliding-window counters of failed logins, in the store so that every replica sees them. Only
 * one attempt per person runs at a time (a claim), which keeps the read-then-write of the
 * person's counter exact across replicas; the per-address counter is a coarser second line.
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
    return this.#blockedUntil(personCounter(person));
  }

  addressBlockedUntil(address: string): Promise<Date | undefined> {
    return this.#blockedUntil(addressCounter(address));
  }

  async recordPersonFailure(person: Person): Promise<void> {
    await this.#record(personCounter(person));
  }

  async recordAddressFailure(address: string): Promise<void> {
    await this.#record(addressCounter(address));
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

  async #recent(counter: Counter): Promise<number[]> {
    const since = this.#now() - counter.windowMs;
    const times = (await this.#store.get<number[]>(counter.key)) ?? [];
    return times.filter((t) => t > since);
  }

  async #blockedUntil(counter: Counter): Promise<Date | undefined> {
    const recent = await this.#recent(counter);
    if (recent.length < counter.limit) return undefined;
    // The window frees a slot when the oldest failure that still counts leaves it.
    return new Date(recent[recent.length - counter.limit]! + counter.windowMs);
  }

  async #record(counter: Counter): Promise<void> {
    const recent = await this.#recent(counter);
    recent.push(this.#now());
    await this.#store.set(counter.key, recent.slice(-counter.limit), counter.windowMs);
  }
}
