import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Deps } from '../deps.ts';
import type { Actor } from '../store/sessions.ts';
import { teamName } from '../attacks/access.ts';
import { HOME_SWITCH_TEAM } from '../views/home.ts';
import {
  emailMismatchText,
  emailUnknownText,
  enterEmailText,
  enterPasswordText,
  loginBusyText,
  loginRejectedText,
  mfaCodeFormatText,
  pageLoginConfirmation,
} from '../views/login.ts';
import { csrfToken, validCsrf } from '../login/csrf.ts';
import { clientAddress, trustedProxies } from '../login/clientAddress.ts';
import { loginPagePath } from '../login/entry.ts';
import { LoginLimits } from '../login/limits.ts';
import { LoginLinks, newSecret, sameSecret, type LoginLink } from '../login/links.ts';
import { type LoginOutcome, logIn } from '../login/logIn.ts';
import { requestPasswordReset, type ResetOutcome } from '../login/passwordReset.ts';
import {
  accountLockedText,
  clockTime,
  expiredLinkPage,
  loginPage,
  loginPageHeaders,
  type LinkedAccount,
  type LoginPageState,
  openedElsewherePage,
  pageErrorText,
  pageFailedPage,
  pageMfaNotice,
  resetLimitedText,
  resetNeedsEmailText,
  resetRequestedNotice,
  addressLockedText,
  tooManyBadLinksPage,
  unverifiedFormPage,
} from '../views/loginPage.ts';

type Route = { path: string; method: string; handler: (req: IncomingMessage, res: ServerResponse) => void };

const cookieName = 'faultline_login';
const maxBodyBytes = 16 * 1024;
const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * The secure login page, answered by the bot itself on `/login/<token>`: GET shows the form,
 * POST logs in. Nothing here logs a URL, a token, a cookie or a form field.
 */
/** `refreshHome` redraws the person's App Home once they are logged in. */
export function loginRoutes(deps: Deps, refreshHome: (actor: Actor) => Promise<void>): Route[] {
  const proxies = trustedProxies(deps.config.login.trustedProxies);
  const handler = (req: IncomingMessage, res: ServerResponse) => {
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
    // Tokens are base64url: anything percent-encoded is not one, and is not decoded.
    const token = new URL(this.#req.url ?? '/', 'http://localhost').pathname.split('/').at(-1) ?? '';
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
      this.#linkedTo = await this.#account(found.link);
      return this.#send(200, { kind: 'form', csrf: csrfToken(secret, found.hash) }, this.#cookie(secret, found.link));
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
    this.#linkedTo = await this.#account(found.link);
    const csrf = csrfToken(secret, found.hash);
    const actor: Actor = {
      workspaceId: found.link.workspaceId,
      userId: found.link.userId,
      userName: found.link.userName,
      channelId: undefined,
    };
    const email = form.get('email')?.trim() ?? '';
    const company = form.get('company')?.trim() || undefined;
    if (form.get('intent') === 'reset') return this.#resetPassword(actor, csrf, email, company);

    const password = form.get('password') ?? '';
    const mfaCode = form.get('mfa')?.replace(/\s/g, '') || undefined;
    const again = (error: string, status = 400, mfa = mfaCode !== undefined || form.has('mfa')) =>
      this.#send(status, { kind: 'form', csrf, email, company, error, mfa });
    if (!emailPattern.test(email)) return again(enterEmailText);
    if (!password) return again(enterPasswordText);
    if (mfaCode !== undefined && !/^\d{6}$/.test(mfaCode)) return again(mfaCodeFormatText);
    const blocked = await this.#limits.addressBlockedUntil(this.#address);
    if (blocked) {
      this.#deps.logger.warn('login page refused: too many failed logins from one address');
      return again(addressLockedText(clockTime(blocked, this.#deps.clock.now())), 429);
    }

    let outcome: LoginOutcome;
    try {
      outcome = await logIn(actor, { email, password, companyName: company, mfaCode }, this.#deps);
    } catch (error) {
      this.#deps.logger.warn({ err: error }, 'login from the secure page failed');
      return again(pageErrorText(error, this.#deps.config.slack.command, 'log you in'), 502);
    }
    switch (outcome.kind) {
      case 'mfaRequired':
        return this.#send(200, {
          kind: 'form',
          csrf,
          email,
          company,
          mfa: true,
          notice: pageMfaNotice,
        });
      case 'rejected':
        await this.#limits.recordAddressFailure(this.#address);
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
    // Used: the link cannot log anyone in again.
    await this.#links.consume(found.hash);
    const { session } = outcome;
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

  async #resetPassword(actor: Actor, csrf: string, email: string, company: string | undefined): Promise<void> {
    if (!emailPattern.test(email))
      return this.#send(400, {
        kind: 'form',
        csrf,
        company,
        error: resetNeedsEmailText,
      });
    let outcome: ResetOutcome;
    try {
      outcome = await requestPasswordReset(actor, email, this.#deps);
    } catch (error) {
      this.#deps.logger.warn({ err: error }, 'password reset from the secure page failed');
      return this.#send(502, {
        kind: 'form',
        csrf,
        email,
        company,
        error: pageErrorText(error, this.#deps.config.slack.command, 'request a reset e-mail'),
      });
    }
    if (outcome.kind === 'limited') {
      const error = resetLimitedText(clockTime(outcome.until, this.#deps.clock.now()));
      return this.#send(429, { kind: 'form', csrf, email, company, error });
    }
    return this.#send(200, {
      kind: 'form',
      csrf,
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
    send(this.#res, status, state.kind === 'problem' ? state : { ...state, linkedTo: this.#linkedTo }, cookie);
  }

  /** The Slack person and workspace a link logs in, as Slack names them; the link's own handle when Slack cannot say. */
  async #account(link: LoginLink): Promise<LinkedAccount> {
    const [person, workspace] = await Promise.all([
      this.#deps.directory.person(link.userId),
      this.#deps.directory.workspaceName(),
    ]);
    return {
      name: person?.name ?? link.userName,
      handle: person?.handle ?? link.userName,
      workspace: workspace ?? link.workspaceId,
    };
  }

  #cookie(secret: string, link: LoginLink): string {
    const base = new URL(this.#deps.config.publicUrl ?? 'http://localhost');
    const path = `${base.pathname.replace(/\/+$/, '')}${loginPagePath}`;
    const maxAge = Math.max(1, Math.floor((link.expiresAt - this.#deps.clock.now()) / 1000));
    // Lax, not Strict: opening the link from Slack again is a cross-site navigation that must carry it.
    return `${cookieName}=${secret}; Path=${path}; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${base.protocol === 'https:' ? '; Secure' : ''}`;
  }
}
