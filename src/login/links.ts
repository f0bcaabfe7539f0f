import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { KeyValueStore } from '../store/keyValue.ts';
import type { Person } from '../store/sessions.ts';
import { keys } from '../store/keys.ts';
import type { SlackIdentity } from './service.ts';

/** The path the login page answers on; the token is the last segment. */
export const loginPagePath = '/login';
/** Where the identity provider sends the browser back; the platform's `state` says which link it was for. */
export const ssoCallbackPath = `${loginPagePath}/sso/callback`;

/** Whom a link logs in, and until when; stored under the token's hash, never the token. */
export interface LoginLink extends Person {
  userName: string;
  expiresAt: number;
  /** Hash of the secret in the cookie of the browser that opened the link first. */
  browser?: string | undefined;
}

/** A link found by its token or its hash. */
export interface FoundLink {
  hash: string;
  link: LoginLink;
}

/** A link's lookup key: tokens are 256 random bits, so one plain SHA-256 is enough to hide them. */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** 256 random bits, URL-safe: for link tokens and browser secrets alike. */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

export function sameSecret(secret: string | undefined, hash: string | undefined): boolean {
  if (!secret || !hash) return false;
  const a = Buffer.from(tokenHash(secret), 'hex');
  const b = Buffer.from(hash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * One-time login links: random, valid for ten minutes, bound to one Slack person, kept in the
 * store only as a hash (so a copy of the store cannot log anyone in), and bound to the first
 * browser that opens them. The store is shared, so any replica can answer a link.
 */
export class LoginLinks {
  readonly #store: KeyValueStore;
  readonly #now: () => number;

  constructor(store: KeyValueStore, now: () => number) {
    this.#store = store;
    this.#now = now;
  }

  /** A fresh token for the person; only its hash is kept. */
  async mint(person: Person & { userName: string }): Promise<{ token: string; expiresAt: Date }> {
    const token = newSecret();
    const expiresAt = this.#now() + keys.loginLink.ttlMs;
    const link: LoginLink = {
      workspaceId: person.workspaceId,
      userId: person.userId,
      userName: person.userName,
      expiresAt,
    };
    await this.#store.set(keys.loginLink.key(tokenHash(token)), link, keys.loginLink.ttlMs);
    return { token, expiresAt: new Date(expiresAt) };
  }

  /** The link a token stands for while it is unused and unexpired. */
  async find(token: string): Promise<FoundLink | undefined> {
    if (!/^[A-Za-z0-9_-]{40,64}$/.test(token)) return undefined;
    return this.byHash(tokenHash(token));
  }

  /** The link under `hash` while it is unused and unexpired: a single sign-on comes back with the hash, not the token. */
  async byHash(hash: string): Promise<FoundLink | undefined> {
    const link = await this.#store.get<LoginLink>(keys.loginLink.key(hash));
    if (!link || !(link.expiresAt > this.#now())) return undefined;
    return { hash, link };
  }

  /**
   * Binds the link to the browser holding `secret`, if no browser holds it yet: true for that
   * browser (again on a reload), false for any other. The claim makes the first opener win
   * even when two open it at once on different replicas.
   */
  async bindBrowser(found: FoundLink, secret: string): Promise<boolean> {
    if (found.link.browser) return sameSecret(secret, found.link.browser);
    const left = Math.max(found.link.expiresAt - this.#now(), 1);
    if (!(await this.#store.claim(keys.loginLinkOpened.key(found.hash), keys.loginLinkOpened.ttlMs(left))))
      return false;
    const bound: LoginLink = { ...found.link, browser: tokenHash(secret) };
    await this.#store.set(keys.loginLink.key(found.hash), bound, left);
    found.link = bound;
    return true;
  }

  /**
   * The Slack profile of the link's person as it was first read for this link: `read` is asked
   * only until it gives one, so however often the link is loaded Slack is asked once, and a Slack
   * that refuses later (a 429) does not refuse the login. Kept apart from the link, so that
   * keeping it can never bring back a link that was used meanwhile.
   */
  async profile(found: FoundLink, read: () => Promise<SlackIdentity | undefined>): Promise<SlackIdentity | undefined> {
    const key = keys.loginLinkProfile.key(found.hash);
    const kept = await this.#store.get<SlackIdentity>(key);
    if (kept) return kept;
    const profile = await read();
    const left = found.link.expiresAt - this.#now();
    if (profile && left > 0) await this.#store.set(key, profile, keys.loginLinkProfile.ttlMs(left));
    return profile;
  }

  /** Ends a link once it has logged someone in. */
  async consume(hash: string): Promise<void> {
    await this.#store.delete(keys.loginLink.key(hash));
    await this.#store.delete(keys.loginLinkProfile.key(hash));
  }

  /**
   * A single sign-on the link's browser started, bound to the link and that browser: the
   * platform's `state` comes back on the callback, and is taken only by the browser holding the
   * cookie that started it, once, within 10 minutes. Only hashes are stored, as for links.
   */
  async ssoStarted(state: string, linkHash: string, browserSecret: string): Promise<void> {
    const start: SsoStart = {
      linkHash,
      browser: tokenHash(browserSecret),
      expiresAt: this.#now() + keys.ssoLogin.ttlMs,
    };
    await this.#store.set(keys.ssoLogin.key(tokenHash(state)), start, keys.ssoLogin.ttlMs);
  }

  async takeSso(state: string, browserSecret: string | undefined): Promise<SsoReturn> {
    const hash = tokenHash(state);
    const start = await this.#store.get<SsoStart>(keys.ssoLogin.key(hash));
    if (!start || !(start.expiresAt > this.#now())) return { kind: 'unknown' };
    if (!sameSecret(browserSecret, start.browser)) return { kind: 'otherBrowser' };
    // The claim makes the first callback win, even when two arrive at once on different replicas.
    if (!(await this.#store.claim(keys.ssoLoginUsed.key(hash), keys.ssoLoginUsed.ttlMs))) return { kind: 'used' };
    return { kind: 'taken', linkHash: start.linkHash };
  }
}

/**
 * The form's CSRF token: an HMAC of the link under the browser's cookie secret. Only a page this
 * bot rendered for this browser and this link carries it, and nothing extra is stored.
 */
export function csrfToken(browserSecret: string, linkHash: string): string {
  return createHmac('sha256', browserSecret).update(`login-form:${linkHash}`).digest('base64url');
}

export function validCsrf(given: string | undefined, browserSecret: string, linkHash: string): boolean {
  if (!given) return false;
  const expected = Buffer.from(csrfToken(browserSecret, linkHash));
  const actual = Buffer.from(given);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

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
