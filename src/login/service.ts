import { UnauthorizedError } from '../client/errors.ts';
import type { LoginInput, PlatformClient, TeamEntry } from '../client/index.ts';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { audit } from '../audit.ts';
import type { KeyValueStore } from '../store/keyValue.ts';
import { keys } from '../store/keys.ts';
import type { Actor, Login, Person, SessionStore } from '../store/sessions.ts';
import type { CardStore } from '../attacks/cards.ts';
import { requireLogin, teamName } from '../attacks/access.ts';
import { isLive } from '../attacks/lifecycle.ts';
import type { Breathe } from '../jobs/scheduler.ts';
import { LoginLinks, loginPagePath } from './links.ts';
import { invalidFields, type LoginField, type LoginOutcome, logIn, requestPasswordReset, sameEmail } from './logIn.ts';
import { PageLogin } from './page.ts';

/** A Slack person as Slack describes them now. */
export interface SlackIdentity {
  userId: string;
  /** The full name they gave Slack, else their display name or handle. */
  name: string;
  /** Their handle (`@dana`), without the `@`. */
  handle: string;
  /** Their profile's e-mail (`users:read.email`), when it has one. */
  email: string | undefined;
}

/** What logins ask Slack about people; src/slack/people.ts asks. */
export interface SlackDirectory {
  /**
   * The person as Slack describes them now, or undefined when Slack cannot say. Kept no longer
   * than a login link lives (10 minutes, see LoginLinks.profile): the e-mail a login is matched
   * against is the profile's of at most that long ago.
   */
  person(userId: string): Promise<SlackIdentity | undefined>;
  /** The person whose Slack e-mail this is, or undefined when nobody's is or Slack cannot say. */
  byEmail(email: string): Promise<SlackIdentity | undefined>;
  /** The workspace's name as Slack shows it, or undefined when Slack cannot say. */
  workspaceName(): Promise<string | undefined>;
}

/** What the owner of a login's e-mail is told when it was linked to another Slack person. */
export interface LinkedElsewhere {
  platformUser: string;
  /** The Slack person the login now acts for. */
  linkedTo: Person & { name: string; handle: string };
  workspace: string | undefined;
}

/** Where that is said; the words and the Slack call are in src/slack/notices.ts. */
export interface LinkNotices {
  tell(owner: SlackIdentity, linked: LinkedElsewhere): Promise<void>;
}

/** What a person is warned of: when their session ends, how many of their attacks run, where to log in again. */
export interface ExpiryWarning {
  expiresAt: Date;
  liveAttacks: number;
  /** A one-time link to the secure login page, when Faultline offers it. */
  secureUrl: string | undefined;
}

/** Where a person is warned; the words and the Slack call are in src/slack/notices.ts. */
export interface SessionWarnings {
  /** Sends the warning to the person directly. */
  warn(person: Person, warning: ExpiryWarning): Promise<void>;
}

/** A session that ends within this, while its owner's attacks run, earns its owner one warning. */
export const expiryWarningMs = 10 * 60_000;

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

/** A login from the Slack form also stops at its fields, and where Slack takes no passwords. */
export type SlackLoginOutcome = LoginOutcome | { kind: 'invalid'; fields: LoginField[] } | { kind: 'passwordsOff' };

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
  /** A fresh one-time link to the secure page for the person, or undefined without PUBLIC_URL. */
  async secureUrl(actor: Actor): Promise<string | undefined> {
    const { config, store, clock } = this.#parts;
    if (!config.publicUrl || config.login.mode === 'modal') return undefined;
    const { token } = await new LoginLinks(store, clock.now).mint(actor);
    return `${config.publicUrl}${loginPagePath}/${token}`;
  }

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

  /**
   * A login from the Slack form. With LOGIN_MODE=page or sso a password typed into Slack is never
   * used, even from a form opened earlier: the person is sent to the secure page instead.
   */
  async logIn(actor: Actor, input: LoginInput): Promise<SlackLoginOutcome> {
    const { mode } = this.#parts.config.login;
    if (mode === 'page' || mode === 'sso') return { kind: 'passwordsOff' };
    const fields = invalidFields(input);
    if (fields.length) return { kind: 'invalid', fields };
    return logIn(actor, input, this.#parts);
  }

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

  /** Selects the person's own team with this id (a picker's answer): a team not among theirs is never used. */
  async selectOwnTeam(actor: Actor, teamId: string | undefined): Promise<Login | undefined> {
    const login = await this.require(actor);
    const team = login.session.teams.find((own) => own.identifier === teamId);
    if (!team) return undefined;
    await this.selectTeam(actor, team, login);
    return { ...login, team };
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
  /**
   * The background job: warns, by direct message, each person whose platform session ends within
   * ten minutes while attacks they started are still live: once per session (the session's end is
   * in the marker), whichever replica gets there first. Never throws: a failed warning must not
   * stop a poll.
   */
  async warnExpiringSessions(breathe?: Breathe): Promise<number> {
    const parts = this.#parts;
    try {
      const owners = new Map<string, { person: Person & { userName: string }; live: number }>();
      for (const card of [...(await parts.cards.liveCardsByTeam(breathe)).values()].flat()) {
        // A card a watch posted was started elsewhere: its reader did not start it.
        if (!isLive(card) || card.origin) continue;
        const key = `${card.startedBy.workspaceId}:${card.startedBy.userId}`;
        const owner = owners.get(key) ?? { person: card.startedBy, live: 0 };
        owner.live++;
        owners.set(key, owner);
      }
      let sent = 0;
      for (const [key, { person, live }] of owners) {
        const login = await parts.sessions.get(person);
        if (!login) continue;
        const left = login.expiresAt.getTime() - parts.clock.now();
        if (left > expiryWarningMs) continue;
        const marker = keys.expiryWarned.key(key, login.expiresAt.getTime());
        const markerTtlMs = keys.expiryWarned.ttlMs(left);
        // Claims outlive a restart on every store, so this one warns once per session, on one replica.
        if (!(await parts.store.claim(marker, markerTtlMs))) continue;
        const actor = { ...person, channelId: undefined };
        await parts.sessionWarnings.warn(person, {
          expiresAt: login.expiresAt,
          liveAttacks: live,
          secureUrl: await this.secureUrl(actor),
        });
        parts.logger.info(
          { slackWorkspace: person.workspaceId, slackUser: person.userId, liveAttacks: live },
          'warned a person that their session ends soon',
        );
        sent++;
      }
      return sent;
    } catch (error) {
      parts.logger.warn({ err: error }, 'could not warn about sessions that end soon');
      return 0;
    }
  }
}
