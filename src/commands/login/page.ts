import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Deps } from '../../deps.ts';
import type { Actor } from '../../store/sessions.ts';
import { teamName } from '../../attacks/access.ts';
import { HOME_SWITCH_TEAM } from '../../views/home.ts';
import {
  emailMismatchText,
  emailUnknownText,
  enterEmailText,
  enterPasswordText,
  loginBusyText,
  loginRejectedText,
  mfaCodeFormatText,
  pageLoginConfirmation,
} from '../../views/login/loginWords.ts';
import { csrfToken, validCsrf } from '../../login/csrf.ts';
import { clientAddress, trustedProxies, untrustedProxyWatch } from '../../login/clientAddress.ts';
import { loginPagePath } from '../../login/entry.ts';
import { LoginLimits } from '../../login/limits.ts';
import { LoginLinks, newSecret, sameSecret, type LoginLink } from '../../login/links.ts';
import { type LoginOutcome, logIn, logInWithSso } from '../../login/logIn.ts';
import { SsoLogins } from '../../login/sso.ts';
import type { SlackIdentity } from '../../login/identity.ts';
import { BadRequestError } from '../../client/errors.ts';
import type { CompanySession } from '../../client/index.ts';
import { requestPasswordReset, type ResetOutcome } from '../../login/passwordReset.ts';
import {
  accountLockedText,
  clockTime,
  expiredLinkPage,
  openedElsewherePage,
  pageErrorText,
  pageFailedPage,
  pageMfaNotice,
  resetEmailUnknownText,
  resetLimitedText,
  resetNotOwnEmailText,
  ssoExpiredPage,
  ssoOnlyText,
  ssoOtherBrowserPage,
  ssoProviderErrorPage,
  ssoRefusedPage,
  ssoUnknownCompanyText,
  ssoUsedPage,
  resetNeedsEmailText,
  resetRequestedNotice,
  addressLockedText,
  tooManyBadLinksPage,
  tooManyLoadsPage,
  unverifiedFormPage,
} from '../../views/login/pageWords.ts';
import { loginPage, loginPageHeaders, type LinkedAccount, type LoginPageState } from '../../views/login/page.ts';

type Route = { path: string; method: string; handler: (req: IncomingMessage, res: ServerResponse) => void };

const cookieName = 'faultline_login';
/** Where the identity provider sends the browser back; the platform's `state` says which link it was for. */
const ssoCallbackPath = `${loginPagePath}/sso/callback`;
const maxBodyBytes = 16 * 1024;
const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * The secure login page, answered by the bot itself on `/login/<token>`: GET shows the form,
 * POST logs in; `/login/<token>/sso` starts a single sign-on and `/login/sso/callback` ends it.
 * Nothing here logs a URL, a token, a code, a state, a cookie or a form field. `refreshHome`
 * redraws the person's App Home once they are logged in.
 */
export function loginRoutes(deps: Deps, refreshHome: (actor: Actor) => Promise<void>): Route[] {
  const proxies = trustedProxies(deps.config.login.trustedProxies);
  const watch = untrustedProxyWatch(deps.config.login.trustedProxies, (proxy) =>
    deps.logger.warn(
      { proxy },
      'login page clients all arrive from one private address with X-Forwarded-For: if it is a proxy, set TRUSTED_PROXIES to it, or all its clients share one address and its limits',
    ),
  );
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    watch(req.socket.remoteAddress, req.headers['x-forwarded-for']);
    const address = clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for'], proxies);
    new LoginPageRequest(deps, refreshHome, req, res, address).answer().catch((error: unknown) => {
      deps.logger.error({ err: error }, 'the login page failed');
      if (!res.headersSent) send(res, 500, pageFailedPage);
      else res.end();
    });
  };
  const path = `${loginPagePath}/:token`;
  return [
    { path, method: 'GET', handler },
    { path, method: 'POST', handler },
    { path: `${path}/sso`, method: 'GET', handler },
    { path: ssoCallbackPath, method: 'GET', handler },
  ];
}

function send(res: ServerResponse, status: number, state: LoginPageState, cookie?: string): void {
  res.writeHead(status, { ...loginPageHeaders, ...(cookie ? { 'set-cookie': cookie } : {}) });
  res.end(loginPage(state));
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=') || undefined;
  }
  return undefined;
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams | undefined> {
  if (!(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBodyBytes) return undefined;
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

class LoginPageRequest {
  readonly #deps: Deps;
  readonly #refreshHome: (actor: Actor) => Promise<void>;
  readonly #req: IncomingMessage;
  readonly #res: ServerResponse;
  readonly #limits: LoginLimits;
  readonly #links: LoginLinks;
  readonly #address: string;
  /** Whom the login will be linked to, shown on every form and on the confirmation. */
  #linkedTo: LinkedAccount | undefined;
  /** The link's person's Slack profile, read once per link (see LoginLinks.profile). */
  #profile: Promise<SlackIdentity | undefined> | undefined;

  constructor(
    deps: Deps,
    refreshHome: (actor: Actor) => Promise<void>,
    req: IncomingMessage,
    res: ServerResponse,
    address: string,
  ) {
    this.#deps = deps;
    this.#refreshHome = refreshHome;
    this.#req = req;
    this.#res = res;
    this.#limits = new LoginLimits(deps.store, deps.clock.now);
    this.#links = new LoginLinks(deps.store, deps.clock.now);
    this.#address = address;
  }

  async answer(): Promise<void> {
    const url = new URL(this.#req.url ?? '/', 'http://localhost');
    if (url.pathname.endsWith(ssoCallbackPath)) return this.#ssoCallback(url.searchParams);
    const starting = url.pathname.endsWith('/sso');
    // Tokens are base64url: anything percent-encoded is not one, and is not decoded.
    const token = url.pathname.split('/').at(starting ? -2 : -1) ?? '';
    const found = await this.#links.find(token);
    if (!found) {
      // Counted and refused on their own: a network that opened many unusable links still opens a valid one.
      const until = await this.#limits.badLink(this.#address);
      if (!until) return this.#send(410, expiredLinkPage);
      this.#deps.logger.warn('login page refused: too many unusable links from one address');
      return this.#send(429, tooManyBadLinksPage(clockTime(until, this.#deps.clock.now())));
    }
    let secret = cookieValue(this.#req.headers.cookie, cookieName);
    if (this.#req.method === 'GET') {
      secret ??= newSecret();
      if (!(await this.#links.bindBrowser(found, secret))) {
        return this.#send(410, openedElsewherePage);
      }
      // Each load may ask Slack, the store and (for a single sign-on) the platform: bounded per link and address.
      const kind = starting ? 'sso' : 'page';
      const until = await this.#limits.takePageLoad(kind, found.hash, found.link, this.#address);
      if (until) {
        this.#deps.logger.warn({ kind }, 'login page refused: loaded too often with one link or from one address');
        return this.#send(429, tooManyLoadsPage(kind, clockTime(until, this.#deps.clock.now())));
      }
      this.#linkedTo = await this.#account(found);
      const cookie = this.#cookie(secret, found.link);
      if (starting) return this.#ssoStart(found, secret, url.searchParams.get('company')?.trim() || undefined, cookie);
      return this.#send(200, this.#formState(csrfToken(secret, found.hash), token), cookie);
    }
    const form = await readForm(this.#req);
    if (
      !secret ||
      !sameSecret(secret, found.link.browser) ||
      !form ||
      !validCsrf(form.get('csrf') ?? undefined, secret, found.hash)
    ) {
      this.#deps.logger.warn('login page refused a form it did not issue');
      return this.#send(403, unverifiedFormPage);
    }
    this.#linkedTo = await this.#account(found);
    const csrf = csrfToken(secret, found.hash);
    const actor: Actor = {
      workspaceId: found.link.workspaceId,
      userId: found.link.userId,
      userName: found.link.userName,
      channelId: undefined,
    };
    const email = form.get('email')?.trim() ?? '';
    const company = form.get('company')?.trim() || undefined;
    if (this.#deps.config.login.mode === 'sso')
      return this.#send(400, { ...this.#formState(csrf, token), error: ssoOnlyText });
    if (form.get('intent') === 'reset') return this.#resetPassword(found, actor, csrf, email, company, token);

    const password = form.get('password') ?? '';
    const mfaCode = form.get('mfa')?.replace(/\s/g, '') || undefined;
    const again = (error: string, status = 400, mfa = mfaCode !== undefined || form.has('mfa')) =>
      this.#send(status, { ...this.#formState(csrf, token), email, company, error, mfa });
    if (!emailPattern.test(email)) return again(enterEmailText);
    if (!password) return again(enterPasswordText);
    if (mfaCode !== undefined && !/^\d{6}$/.test(mfaCode)) return again(mfaCodeFormatText);
    const blocked = await this.#limits.addressBlockedUntil(this.#address, actor);
    if (blocked) {
      this.#deps.logger.warn('login page refused: too many failed logins from one address');
      return again(addressLockedText(clockTime(blocked, this.#deps.clock.now())), 429);
    }

    let outcome: LoginOutcome;
    try {
      const input = { email, password, companyName: company, mfaCode };
      outcome = await logIn(actor, input, this.#deps, () => this.#slackProfile(found));
    } catch (error) {
      this.#deps.logger.warn({ err: error }, 'login from the secure page failed');
      return again(pageErrorText(error, this.#deps.config.slack.command, 'log you in'), 502);
    }
    switch (outcome.kind) {
      case 'mfaRequired':
        return this.#send(200, { ...this.#formState(csrf, token), email, company, mfa: true, notice: pageMfaNotice });
      case 'rejected':
        await this.#limits.recordAddressFailure(this.#address, actor);
        return again(loginRejectedText(outcome.mfaCodeGiven), 401);
      case 'locked':
        return again(accountLockedText(clockTime(outcome.until, this.#deps.clock.now())), 429);
      case 'busy':
        return again(loginBusyText, 409);
      case 'emailMismatch':
        return again(emailMismatchText(outcome.loginEmail, this.#linkedTo.name), 403);
      case 'emailUnknown':
        return again(emailUnknownText(outcome.reason), outcome.reason === 'noEmail' ? 403 : 503);
      case 'loggedIn':
        break;
    }
    return this.#loggedIn(found.hash, actor, outcome.session, email);
  }

  /** The form as this deployment offers it: passwords unless LOGIN_MODE=sso, and "Log in with SSO". */
  #formState(csrf: string, token: string): Extract<LoginPageState, { kind: 'form' }> {
    const page = `${this.#basePath()}${loginPagePath}/${token}`;
    return {
      kind: 'form',
      csrf,
      action: page,
      passwords: this.#deps.config.login.mode !== 'sso',
      sso: { href: `${page}/sso`, askCompany: this.#deps.config.login.ssoCompany === undefined },
    };
  }

  /** PUBLIC_URL's own path, where a reverse proxy mounts the bot, without a trailing slash. */
  #basePath(): string {
    return new URL(this.#deps.config.publicUrl ?? 'http://localhost').pathname.replace(/\/+$/, '');
  }

  /** Starts the company's sign-in for the link, bound to this browser, and sends the browser on to it. */
  async #ssoStart(
    found: { hash: string; link: LoginLink },
    secret: string,
    asked: string | undefined,
    cookie: string,
  ): Promise<void> {
    const companyName = this.#deps.config.login.ssoCompany ?? asked;
    const token = this.#req.url?.split('?')[0]?.split('/').at(-2) ?? '';
    const form = { ...this.#formState(csrfToken(secret, found.hash), token), company: asked };
    if (!companyName) return this.#send(200, form, cookie);
    let providerUrl: string;
    try {
      providerUrl = await this.#deps.platform.auth.startSso({
        companyName,
        redirectUri: `${this.#deps.config.publicUrl ?? ''}${ssoCallbackPath}`,
      });
    } catch (error) {
      if (error instanceof BadRequestError)
        return this.#send(400, { ...form, error: ssoUnknownCompanyText(companyName) }, cookie);
      this.#deps.logger.warn({ err: error }, 'could not start a single sign-on');
      return this.#send(
        502,
        { ...form, error: pageErrorText(error, this.#deps.config.slack.command, 'start SSO') },
        cookie,
      );
    }
    const state = URL.parse(providerUrl)?.searchParams.get('state');
    if (!state) {
      this.#deps.logger.warn('the platform started a single sign-on without a state');
      return this.#send(502, { ...form, error: ssoUnknownCompanyText(companyName) }, cookie);
    }
    await new SsoLogins(this.#deps.store, this.#deps.clock.now).started(state, found.hash, secret);
    return this.#send(200, { kind: 'continue', url: providerUrl, company: companyName }, cookie);
  }

  /** The identity provider sent the browser back: taken once, by the browser that started it, within 10 minutes. */
  async #ssoCallback(params: URLSearchParams): Promise<void> {
    const state = params.get('state');
    if (!state) return this.#send(400, ssoExpiredPage);
    const taken = await new SsoLogins(this.#deps.store, this.#deps.clock.now).take(
      state,
      cookieValue(this.#req.headers.cookie, cookieName),
    );
    if (taken.kind !== 'taken') {
      this.#deps.logger.warn({ reason: taken.kind }, 'login page refused a single sign-on callback');
      if (taken.kind === 'otherBrowser') return this.#send(403, ssoOtherBrowserPage);
      return this.#send(410, taken.kind === 'used' ? ssoUsedPage : ssoExpiredPage);
    }
    const error = params.get('error');
    const code = params.get('code');
    if (error || !code)
      return this.#send(401, ssoProviderErrorPage(/^[a-z_]{1,40}$/.test(error ?? '') ? error! : 'no code'));
    const found = await this.#links.byHash(taken.linkHash);
    if (!found) return this.#send(410, expiredLinkPage);
    this.#linkedTo = await this.#account(found);
    const actor: Actor = {
      workspaceId: found.link.workspaceId,
      userId: found.link.userId,
      userName: found.link.userName,
      channelId: undefined,
    };
    let outcome: LoginOutcome;
    try {
      outcome = await logInWithSso(actor, { code, state }, this.#deps, () => this.#slackProfile(found));
    } catch (failure) {
      this.#deps.logger.warn({ err: failure }, 'single sign-on failed');
      return this.#send(502, {
        kind: 'problem',
        title: 'Something went wrong',
        message: pageErrorText(failure, this.#deps.config.slack.command, 'log you in'),
      });
    }
    switch (outcome.kind) {
      case 'loggedIn':
        return this.#loggedIn(found.hash, actor, outcome.session, '');
      case 'emailMismatch':
        return this.#send(403, {
          kind: 'problem',
          title: 'Not linked',
          message: emailMismatchText(outcome.loginEmail, this.#linkedTo.name),
        });
      case 'emailUnknown':
        return this.#send(503, { kind: 'problem', title: 'Not linked', message: emailUnknownText(outcome.reason) });
      case 'locked':
        return this.#send(429, {
          kind: 'problem',
          title: 'Too many attempts',
          message: accountLockedText(clockTime(outcome.until, this.#deps.clock.now())),
        });
      case 'busy':
        return this.#send(409, { kind: 'problem', title: 'Another login is under way', message: loginBusyText });
      case 'rejected':
      case 'mfaRequired':
        return this.#send(401, ssoRefusedPage);
    }
  }

  /** A login done: the link is used up, Slack is told, and the page says so. */
  async #loggedIn(linkHash: string, actor: Actor, session: CompanySession, email: string): Promise<void> {
    // Used: the link cannot log anyone in again.
    await this.#links.consume(linkHash);
    const login = await this.#deps.sessions.get(actor);
    const team = login?.team ? teamName(login.team) : undefined;
    const identifier = session.identifier ?? email;
    const companyName = session.company_name ?? 'your company';
    const severalTeams = session.teams.length > 1;
    await this.#tellSlack(actor, { identifier, company: companyName, team, severalTeams });
    const workspace = encodeURIComponent(actor.workspaceId);
    return this.#send(200, {
      kind: 'loggedIn',
      identifier,
      company: companyName,
      team,
      severalTeams,
      slackUrl: `slack://open?team=${workspace}`,
      slackWebUrl: `https://app.slack.com/client/${workspace}`,
    });
  }

  async #resetPassword(
    found: { hash: string; link: LoginLink },
    actor: Actor,
    csrf: string,
    email: string,
    company: string | undefined,
    token: string,
  ): Promise<void> {
    const form = this.#formState(csrf, token);
    if (!emailPattern.test(email))
      return this.#send(400, {
        ...form,
        company,
        error: resetNeedsEmailText,
      });
    let outcome: ResetOutcome;
    try {
      outcome = await requestPasswordReset(actor, email, this.#deps, () => this.#slackProfile(found));
    } catch (error) {
      this.#deps.logger.warn({ err: error }, 'password reset from the secure page failed');
      return this.#send(502, {
        ...form,
        email,
        company,
        error: pageErrorText(error, this.#deps.config.slack.command, 'request a reset e-mail'),
      });
    }
    switch (outcome.kind) {
      case 'limited': {
        const error = resetLimitedText(clockTime(outcome.until, this.#deps.clock.now()));
        return this.#send(429, { ...form, email, company, error });
      }
      case 'notOwnEmail':
        return this.#send(403, { ...form, email, company, error: resetNotOwnEmailText });
      case 'emailUnknown': {
        const error = resetEmailUnknownText(outcome.reason);
        return this.#send(outcome.reason === 'noEmail' ? 403 : 503, { ...form, email, company, error });
      }
      case 'sent':
        break;
    }
    return this.#send(200, {
      ...form,
      email,
      company,
      notice: resetRequestedNotice,
    });
  }

  /** The DM confirming the login, and App Home redrawn; the login stands even if Slack is down. */
  async #tellSlack(
    actor: Actor,
    summary: { identifier: string; company: string; team: string | undefined; severalTeams: boolean },
  ): Promise<void> {
    const message = pageLoginConfirmation({
      ...summary,
      command: this.#deps.config.slack.command,
      chooseTeamAction: HOME_SWITCH_TEAM,
    });
    await this.#deps.slack
      .post(actor.userId, message)
      .catch((error: unknown) => this.#deps.logger.warn({ err: error }, 'could not confirm a page login in Slack'));
    await this.#refreshHome(actor).catch((error: unknown) =>
      this.#deps.logger.warn({ err: error }, 'could not redraw App Home after a page login'),
    );
  }

  #send(status: number, state: LoginPageState, cookie?: string): void {
    const named = state.kind === 'problem' ? state : { ...state, linkedTo: this.#linkedTo };
    send(this.#res, status, named, cookie);
  }

  /** The Slack person and workspace a link logs in, as Slack names them; the link's own handle when Slack cannot say. */
  async #account(found: { hash: string; link: LoginLink }): Promise<LinkedAccount> {
    const { link } = found;
    const [person, workspace] = await Promise.all([this.#slackProfile(found), this.#deps.directory.workspaceName()]);
    return {
      name: person?.name ?? link.userName,
      handle: person?.handle ?? link.userName,
      workspace: workspace ?? link.workspaceId,
    };
  }

  /** The link's person as Slack described them when the link was first read: Slack is asked once per link. */
  #slackProfile(found: { hash: string; link: LoginLink }): Promise<SlackIdentity | undefined> {
    this.#profile ??= this.#links.profile(found, () => this.#deps.directory.person(found.link.userId));
    return this.#profile;
  }

  #cookie(secret: string, link: LoginLink): string {
    const base = new URL(this.#deps.config.publicUrl ?? 'http://localhost');
    const path = `${this.#basePath()}${loginPagePath}`;
    const maxAge = Math.max(1, Math.floor((link.expiresAt - this.#deps.clock.now()) / 1000));
    // Lax, not Strict: opening the link from Slack again is a cross-site navigation that must carry it.
    return `${cookieName}=${secret}; Path=${path}; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${base.protocol === 'https:' ? '; Secure' : ''}`;
  }
}
