import { UnauthorizedError } from '../client/errors.ts';
import type { PlatformClient, TeamEntry } from '../client/index.ts';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { audit } from '../audit.ts';
import type { KeyValueStore } from '../store/keyValue.ts';
import { keys } from '../store/keys.ts';
import type { Actor, Login, Person, SessionStore } from '../store/sessions.ts';
import type { CardStore } from '../attacks/cards.ts';
import { requireLogin, teamName } from '../attacks/access.ts';
import type { Breathe } from '../jobs/scheduler.ts';
import { secureLoginUrl } from './entry.ts';
import { type SessionWarnings, warnExpiringSessions } from './expiryWarnings.ts';
import { type LinkNotices, sameEmail, type SlackDirectory } from './identity.ts';
import { logIn } from './logIn.ts';
import { PageLogin } from './page.ts';
import { requestPasswordReset } from './passwordReset.ts';

/** What logging in and out uses. */
export interface LoginParts {
  store: KeyValueStore;
  sessions: SessionStore;
  platform: PlatformClient;
  logger: Logger;
  clock: { now(): number };
  /** Who a login links to, as Slack describes them now: names, handles, e-mails. */
  directory: SlackDirectory;
  /** Where the owner of a login's e-mail is told that it was linked to someone else. */
  linkNotices: LinkNotices;
  /** Where a person is warned that their session ends while their attacks run. */
  sessionWarnings: SessionWarnings;
  cards: Pick<CardStore, 'liveCardsByTeam'>;
  config: Pick<Config, 'login' | 'publicUrl'>;
}

/** How ending a session went: nothing to end, ended, or forgotten here though the platform did not confirm. */
export type LogOutOutcome = { kind: 'none' } | { kind: 'ended'; login: Login; platformConfirmed: boolean };

/** People's sessions: logging in (the Slack form or the secure page), choosing a team, logging out. */
export class LoginService {
  readonly #parts: LoginParts;

  constructor(parts: LoginParts) {
    this.#parts = parts;
  }

  /** How this deployment logs people in (LOGIN_MODE, PUBLIC_URL, SSO_COMPANY, TRUSTED_PROXIES). */
  get settings(): LoginParts['config'] {
    return this.#parts.config;
  }

  now = () => this.#parts.clock.now();
  /** The person's stored login, if any. */
  current = (actor: Person): Promise<Login | undefined> => this.#parts.sessions.get(actor);
  /** Drops a session the platform rejected or found expired, so the words offer Log in. */
  forget = (actor: Person) => this.#parts.sessions.drop(actor);
  /** The person's stored login, or NotLoggedInError. */
  require = (actor: Actor) => requireLogin(this.#parts, actor);
  /** A fresh one-time link to the secure page for the person, or undefined without one. */
  secureUrl = (actor: Actor) => secureLoginUrl(actor, this.#parts);

  /** Keeps the login window the person just opened, to show there the login the secure page or SSO ends with. */
  async rememberModal(actor: Person, viewId: string): Promise<void> {
    await this.#parts.store.set(keys.loginModal.key(actor), viewId, keys.loginModal.ttlMs);
  }

  /** The login window the person opened last, once: a login ends it. */
  async takeModal(actor: Person): Promise<string | undefined> {
    const key = keys.loginModal.key(actor);
    const viewId = await this.#parts.store.get<string>(key);
    if (viewId) await this.#parts.store.delete(key);
    return viewId;
  }

  logIn = (actor: Actor, input: Parameters<typeof logIn>[1]) => logIn(actor, input, this.#parts);
  resetPassword = (actor: Actor, email: string) => requestPasswordReset(actor, email, this.#parts);

  /**
   * Ends a person's platform session and forgets it: the `logout` command, and the owner of a
   * login's e-mail ending the session it gave someone else (`by` is then that owner). With `only`,
   * ends the session only while it is still that platform login's.
   */
  async logOut(
    person: Person & Pick<Actor, 'userName'>,
    options: { only?: (login: Login) => boolean; by?: Actor } = {},
  ): Promise<LogOutOutcome> {
    const { sessions, platform, logger } = this.#parts;
    const login = await sessions.get(person);
    if (!login || (options.only && !options.only(login))) return { kind: 'none' };
    let platformConfirmed = true;
    try {
      await platform.auth.logout({ header: login.session.header });
    } catch (error) {
      // A session the platform already dropped is as good as logged out; anything else is said.
      if (!(error instanceof UnauthorizedError)) {
        logger.warn({ err: error }, 'platform logout failed');
        platformConfirmed = false;
      }
    }
    await sessions.drop(person);
    audit(logger, 'logout', options.by ?? person, {
      platformUser: login.session.identifier,
      platformConfirmed,
      ...(options.by ? { endedFor: `${person.workspaceId}:${person.userId}` } : {}),
    });
    return { kind: 'ended', login, platformConfirmed };
  }

  /**
   * Ends the session of the person a login's e-mail was linked to, only while it is still a login
   * with the clicker's own Slack e-mail (`ownerEmail`, as Slack says it now).
   */
  async endLinkedSession(person: Person & Pick<Actor, 'userName'>, by: Actor) {
    const owner = await this.#parts.directory.person(by.userId);
    const only = (login: Login) => sameEmail(login.session.identifier, owner?.email);
    return { outcome: await this.logOut(person, { only, by }), ownerEmail: owner?.email };
  }

  /** Selects one of the person's own teams for what they do next. */
  async selectTeam(actor: Actor, team: TeamEntry, login: Login): Promise<void> {
    const { sessions, logger } = this.#parts;
    await sessions.selectTeam(actor, team.identifier);
    const platformUser = login.session.identifier;
    audit(logger, 'team_selected', actor, { platformUser, team: team.identifier, teamName: teamName(team) });
  }

  /** The platform's recent single sign-on failures for an e-mail, as the person's session may read them. */
  async ssoFailures(actor: Actor, email: string | undefined) {
    const login = await this.require(actor);
    return this.#parts.platform.auth.ssoFailures({ header: login.session.header }, email);
  }

  /** The secure page's rules for one request from one client address. */
  page = (address: string) => new PageLogin(this.#parts, address);
  /** The workspace's name, as Slack says it, for the page. */
  workspaceName = () => this.#parts.directory.workspaceName();
  /** The background job: warns people whose session ends while their attacks run. */
  warnExpiringSessions = (breathe?: Breathe) => warnExpiringSessions(this.#parts, breathe);
}
