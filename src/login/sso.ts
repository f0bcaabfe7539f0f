import type { KeyValueStore } from '../store/keyValue.ts';
import { keys } from '../store/keys.ts';
import { sameSecret, tokenHash } from './links.ts';

/** A single sign-on a login link's browser started, kept under the hash of the platform's state. */
interface SsoStart {
  linkHash: string;
  /** Hash of the secret in the cookie of the browser that started it. */
  browser: string;
  expiresAt: number;
}

/** Why a single sign-on's callback is not taken, or the link it logs in. */
export type SsoReturn =
  | { kind: 'taken'; linkHash: string }
  /** Never started here, or more than 10 minutes ago. */
  | { kind: 'unknown' }
  /** Started in another browser (or this one lost its cookie). */
  | { kind: 'otherBrowser' }
  /** This callback was taken already: a replay. */
  | { kind: 'used' };

/**
 * Single sign-ons bound to the link and the browser that started them: the platform's `state`
 * comes back on the callback, and is taken only by the browser holding the cookie that started
 * it, once, within 10 minutes. Only hashes are stored, as for links.
 */
export class SsoLogins {
  readonly #store: KeyValueStore;
  readonly #now: () => number;

  constructor(store: KeyValueStore, now: () => number) {
    this.#store = store;
    this.#now = now;
  }

  async started(state: string, linkHash: string, browserSecret: string): Promise<void> {
    const start: SsoStart = {
      linkHash,
      browser: tokenHash(browserSecret),
      expiresAt: this.#now() + keys.ssoLogin.ttlMs,
    };
    await this.#store.set(keys.ssoLogin.key(tokenHash(state)), start, keys.ssoLogin.ttlMs);
  }

  async take(state: string, browserSecret: string | undefined): Promise<SsoReturn> {
    const hash = tokenHash(state);
    const start = await this.#store.get<SsoStart>(keys.ssoLogin.key(hash));
    if (!start || !(start.expiresAt > this.#now())) return { kind: 'unknown' };
    if (!sameSecret(browserSecret, start.browser)) return { kind: 'otherBrowser' };
    // The claim makes the first callback win, even when two arrive at once on different replicas.
    if (!(await this.#store.claim(keys.ssoLoginUsed.key(hash), keys.ssoLoginUsed.ttlMs))) return { kind: 'used' };
    return { kind: 'taken', linkHash: start.linkHash };
  }
}
