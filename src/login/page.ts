import { teamName } from '../attacks/access.ts';
import { BadRequestError } from '../client/errors.ts';
import type { LoginParts, SlackIdentity } from './service.ts';
import type { LoginInput } from '../client/index.ts';
import type { Actor } from '../store/sessions.ts';
import { LoginLimits } from './limits.ts';
import {
  csrfToken,
  type FoundLink,
  LoginLinks,
  newSecret,
  sameSecret,
  ssoCallbackPath,
  type SsoReturn,
  validCsrf,
} from './links.ts';
import {
  invalidFields,
  type LoginField,
  type LoginOutcome,
  logIn,
  logInWithSso,
  requestPasswordReset,
  type ResetOutcome,
} from './logIn.ts';

/** A link as the browser it is bound to opened or posted to it: whom it logs in, and the form's CSRF token. */
export interface Visit extends FoundLink {
  secret: string;
  csrf: string;
  actor: Actor;
}

/** Why the page refuses before anything is shown or done. */
export type Refusal =
  | { kind: 'expired' }
  | { kind: 'tooManyBadLinks'; until: Date }
  | { kind: 'openedElsewhere' }
  | { kind: 'tooManyLoads'; what: 'page' | 'sso'; until: Date }
  | { kind: 'unverified' }
  /** A single sign-on's callback without its state, refused (see SsoReturn), or cancelled at the provider. */
  | { kind: 'noState' }
  | Exclude<SsoReturn, { kind: 'taken' }>
  | { kind: 'providerError'; error: string };

/** A login done, as the confirmation says it. */
export interface LoggedIn {
  kind: 'loggedIn';
  identifier: string;
  company: string;
  team: string | undefined;
  severalTeams: boolean;
}

/** How a login from the page ended, by password or by single sign-on. */
export type LoginEnd = Exclude<LoginOutcome, { kind: 'loggedIn' }> | LoggedIn | Failed;

/** A password login also stops at the form's fields and at its client address's limit. */
export type PageLoginOutcome =
  | LoginEnd
  | { kind: 'invalid'; field: LoginField }
  | { kind: 'addressLocked'; until: Date };

/** The platform or Slack failed (unreachable, 5xx…): logged here, described by the page. */
export type Failed = { kind: 'failed'; error: unknown };

/**
 * The secure login page's rules, for one request from one client address: which links open and
 * for which browser, how often, which forms it issued (CSRF), what a password login, a reset and
 * a single sign-on must pass, and that a login uses its link up. It logs no URL, token, code,
 * state, cookie or form field.
 */
export class PageLogin {
  readonly #parts: LoginParts;
  readonly #address: string;
  readonly #limits: LoginLimits;
  readonly #links: LoginLinks;
  /** The link's person's Slack profile, read once per link (see LoginLinks.profile). */
  #profile: Promise<SlackIdentity | undefined> | undefined;

  constructor(parts: LoginParts, address: string) {
    this.#parts = parts;
    this.#address = address;
    this.#limits = new LoginLimits(parts.store, parts.clock.now);
    this.#links = new LoginLinks(parts.store, parts.clock.now);
  }

  /** False with LOGIN_MODE=sso: the page takes no password and sends no reset e-mail. */
  get passwords(): boolean {
    return this.#parts.config.login.mode !== 'sso';
  }

  /** The link a token stands for; an unusable one is counted against the address. */
  async find(token: string): Promise<FoundLink | Refusal> {
    const found = await this.#links.find(token);
    if (found) return found;
    // Counted and refused on their own: a network that opened many unusable links still opens a valid one.
    const until = await this.#limits.badLink(this.#address);
    if (!until) return { kind: 'expired' };
    this.#parts.logger.warn('login page refused: too many unusable links from one address');
    return { kind: 'tooManyBadLinks', until };
  }

  /** A load of the link's page (`sso`: a single sign-on's start): by its first browser only, and bounded. */
  async open(found: FoundLink, secret: string | undefined, what: 'page' | 'sso'): Promise<Visit | Refusal> {
    const browser = secret ?? newSecret();
    if (!(await this.#links.bindBrowser(found, browser))) return { kind: 'openedElsewhere' };
    // Each load may ask Slack, the store and (for a single sign-on) the platform: bounded per link and address.
    const until = await this.#limits.takePageLoad(what, found.hash, found.link, this.#address);
    if (!until) return this.#visit(found, browser);
    this.#parts.logger.warn({ kind: what }, 'login page refused: loaded too often with one link or from one address');
    return { kind: 'tooManyLoads', what, until };
  }

  /** A posted form: only one this page issued to the link's browser. */
  verify(found: FoundLink, secret: string | undefined, csrf: string | undefined): Visit | Refusal {
    if (secret && sameSecret(secret, found.link.browser) && validCsrf(csrf, secret, found.hash))
      return this.#visit(found, secret);
    this.#parts.logger.warn('login page refused a form it did not issue');
    return { kind: 'unverified' };
  }

  /** A password login from the page: the form's fields, then the address's limit, then the one way to log in. */
  async logIn(visit: Visit, input: LoginInput): Promise<PageLoginOutcome> {
    const [field] = invalidFields(input);
    if (field) return { kind: 'invalid', field };
    const until = await this.#limits.addressBlockedUntil(this.#address, visit.actor);
    if (until) {
      this.#parts.logger.warn('login page refused: too many failed logins from one address');
      return { kind: 'addressLocked', until };
    }
    const outcome = await this.#failed('login from the secure page failed', () =>
      logIn(visit.actor, input, this.#parts, () => this.profile(visit)),
    );
    if (outcome.kind === 'failed') return outcome;
    if (outcome.kind === 'rejected') await this.#limits.recordAddressFailure(this.#address, visit.actor);
    return this.#done(visit, outcome, input.email);
  }

  /** A reset e-mail asked for from the page. */
  resetPassword(visit: Visit, email: string): Promise<ResetOutcome | Failed> {
    return this.#failed('password reset from the secure page failed', () =>
      requestPasswordReset(visit.actor, email, this.#parts, () => this.profile(visit)),
    );
  }

  /** Starts the company's sign-in for the link, bound to this browser: where the browser goes on to. */
  async startSso(
    visit: Visit,
    asked: string | undefined,
  ): Promise<
    | { kind: 'continue'; url: string; company: string }
    | { kind: 'askCompany' }
    | { kind: 'unknownCompany' | 'noState'; company: string }
    | Failed
  > {
    const company = this.#parts.config.login.ssoCompany ?? asked;
    if (!company) return { kind: 'askCompany' };
    let url: string;
    try {
      const redirectUri = `${this.#parts.config.publicUrl ?? ''}${ssoCallbackPath}`;
      url = await this.#parts.platform.auth.startSso({ companyName: company, redirectUri });
    } catch (error) {
      if (error instanceof BadRequestError) return { kind: 'unknownCompany', company };
      this.#parts.logger.warn({ err: error }, 'could not start a single sign-on');
      return { kind: 'failed', error };
    }
    const state = URL.parse(url)?.searchParams.get('state');
    if (!state) {
      this.#parts.logger.warn('the platform started a single sign-on without a state');
      return { kind: 'noState', company };
    }
    await this.#links.ssoStarted(state, visit.hash, visit.secret);
    return { kind: 'continue', url, company };
  }

  /**
   * The identity provider sent the browser back: taken once, by the browser that started it,
   * within 10 minutes, for a link still unused; then the code is exchanged with `finishSso`.
   */
  async ssoReturned(
    params: URLSearchParams,
    secret: string | undefined,
  ): Promise<Refusal | (FoundLink & { actor: Actor; exchange: { code: string; state: string } })> {
    const state = params.get('state');
    if (!state) return { kind: 'noState' };
    const taken = await this.#links.takeSso(state, secret);
    if (taken.kind !== 'taken') {
      this.#parts.logger.warn({ reason: taken.kind }, 'login page refused a single sign-on callback');
      return taken;
    }
    const error = params.get('error');
    const code = params.get('code');
    if (error || !code)
      return { kind: 'providerError', error: /^[a-z_]{1,40}$/.test(error ?? '') ? error! : 'no code' };
    const found = await this.#links.byHash(taken.linkHash);
    return found ? { ...found, actor: actorOf(found), exchange: { code, state } } : { kind: 'expired' };
  }

  async finishSso(found: FoundLink, exchange: { code: string; state: string }): Promise<LoginEnd> {
    const outcome = await this.#failed('single sign-on failed', () =>
      logInWithSso(actorOf(found), exchange, this.#parts, () => this.profile(found)),
    );
    return outcome.kind === 'failed' ? outcome : this.#done(found, outcome, '');
  }

  /** The link's person as Slack described them when the link was first read: Slack is asked once per link. */
  profile(found: FoundLink): Promise<SlackIdentity | undefined> {
    this.#profile ??= this.#links.profile(found, () => this.#parts.directory.person(found.link.userId));
    return this.#profile;
  }

  async #failed<T>(what: string, attempt: () => Promise<T>): Promise<T | Failed> {
    try {
      return await attempt();
    } catch (error) {
      this.#parts.logger.warn({ err: error }, what);
      return { kind: 'failed', error };
    }
  }

  #visit(found: FoundLink, secret: string): Visit {
    return { ...found, secret, csrf: csrfToken(secret, found.hash), actor: actorOf(found) };
  }

  /** A login done uses its link up: it cannot log anyone in again. */
  async #done(found: FoundLink, outcome: LoginOutcome, email: string): Promise<LoginEnd> {
    if (outcome.kind !== 'loggedIn') return outcome;
    await this.#links.consume(found.hash);
    const login = await this.#parts.sessions.get(actorOf(found));
    const { session } = outcome;
    return {
      kind: 'loggedIn',
      identifier: session.identifier ?? email,
      company: session.company_name ?? 'your company',
      team: login?.team ? teamName(login.team) : undefined,
      severalTeams: session.teams.length > 1,
    };
  }
}

function actorOf({ link }: FoundLink): Actor {
  return { workspaceId: link.workspaceId, userId: link.userId, userName: link.userName, channelId: undefined };
}
