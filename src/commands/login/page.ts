import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Services } from '../../services.ts';
import type { Actor } from '../../store/sessions.ts';
import { HOME_SWITCH_TEAM } from '../../views/home.ts';
import { pageLoginConfirmation } from '../../views/login/loginWords.ts';
import { clientAddress, trustedProxies, untrustedProxyWatch } from '../../http.ts';
import { type FoundLink, loginPagePath, ssoCallbackPath } from '../../login/links.ts';
import type { LoggedIn, PageLogin, Refusal, Visit } from '../../login/page.ts';
import {
  clockTime,
  expiredLinkPage,
  openedElsewherePage,
  pageErrorText,
  pageFailedPage,
  ssoExpiredPage,
  ssoOnlyText,
  ssoOtherBrowserPage,
  ssoProviderErrorPage,
  ssoUsedPage,
  tooManyBadLinksPage,
  tooManyLoadsPage,
  unverifiedFormPage,
} from '../../views/login/pageWords.ts';
import { loginPage, loginPageHeaders, type LinkedAccount, type LoginPageState } from '../../views/login/page.ts';
import { loggedInModal } from './login.ts';
import { passwordLogin, resetPassword, ssoCallback, ssoStart } from './pageForm.ts';

type Route = { path: string; method: string; handler: (req: IncomingMessage, res: ServerResponse) => void };

const cookieName = 'faultline_login';
const maxBodyBytes = 16 * 1024;

/**
 * The secure login page, answered by the bot itself on `/login/<token>`: GET shows the form,
 * POST logs in; `/login/<token>/sso` starts a single sign-on and `/login/sso/callback` ends it.
 * The rules are the login service's (src/login/page.ts); this reads the request and renders the
 * answer. Nothing here logs a URL, a token, a code, a state, a cookie or a form field.
 * `refreshHome` redraws the person's App Home once they are logged in.
 */
export function loginRoutes(services: Services, refreshHome: (actor: Actor) => Promise<void>): Route[] {
  const { logger, login } = services;
  const proxies = trustedProxies(login.settings.login.trustedProxies);
  const watch = untrustedProxyWatch(login.settings.login.trustedProxies, (proxy) =>
    logger.warn(
      { proxy },
      'login page clients all arrive from one private address with X-Forwarded-For: if it is a proxy, set TRUSTED_PROXIES to it, or all its clients share one address and its limits',
    ),
  );
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    watch(req.socket.remoteAddress, req.headers['x-forwarded-for']);
    const address = clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for'], proxies);
    answer(req, new PageRequest(services, refreshHome, res, address)).catch((error: unknown) => {
      logger.error({ err: error }, 'the login page failed');
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

async function answer(req: IncomingMessage, page: PageRequest): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const secret = cookieValue(req.headers.cookie, cookieName);
  if (url.pathname.endsWith(ssoCallbackPath)) return ssoCallback(page, url.searchParams, secret);
  const starting = url.pathname.endsWith('/sso');
  // Tokens are base64url: anything percent-encoded is not one, and is not decoded.
  const token = url.pathname.split('/').at(starting ? -2 : -1) ?? '';
  const found = await page.login.find(token);
  if (!('link' in found)) return page.refuse(found);
  if (req.method === 'GET') {
    const visit = await page.login.open(found, secret, starting ? 'sso' : 'page');
    if (!('actor' in visit)) return page.refuse(visit);
    await page.linkTo(visit);
    const cookie = page.cookie(visit);
    if (starting) return ssoStart(page, visit, token, url.searchParams.get('company')?.trim() || undefined, cookie);
    return page.send(200, page.form(visit, token), cookie);
  }
  // Without a form there is no CSRF token: refused as unverified.
  const form = (await readForm(req)) ?? new URLSearchParams();
  const visit = page.login.verify(found, secret, form.get('csrf') ?? undefined);
  if (!('actor' in visit)) return page.refuse(visit);
  await page.linkTo(visit);
  if (!page.login.passwords) return page.send(400, { ...page.form(visit, token), error: ssoOnlyText });
  if (form.get('intent') === 'reset') return resetPassword(page, visit, token, form);
  return passwordLogin(page, visit, token, form);
}

/** One request to the page: the service for its client address, and how its answer is written. */
export class PageRequest {
  readonly services: Services;
  readonly login: PageLogin;
  readonly #refreshHome: (actor: Actor) => Promise<void>;
  readonly #res: ServerResponse;
  /** Whom the login will be linked to, shown on every form and on the confirmation. */
  linkedTo: LinkedAccount | undefined;

  constructor(services: Services, refreshHome: (actor: Actor) => Promise<void>, res: ServerResponse, address: string) {
    this.services = services;
    this.login = services.login.page(address);
    this.#refreshHome = refreshHome;
    this.#res = res;
  }

  send(status: number, state: LoginPageState, cookie?: string): void {
    send(this.#res, status, state.kind === 'problem' ? state : { ...state, linkedTo: this.linkedTo }, cookie);
  }

  refuse(refusal: Refusal): void {
    const page = refusalPages[refusal.kind] as (
      refusal: Refusal,
      time: (at: Date) => string,
    ) => [number, LoginPageState];
    const [status, state] = page(refusal, (at) => this.time(at));
    this.send(status, state);
  }

  time(at: Date): string {
    return clockTime(at, this.services.login.now());
  }

  /** What went wrong while `doing` something, and what to do. */
  errorText(error: unknown, doing: string): string {
    return pageErrorText(error, this.services.command, doing);
  }

  /** The form as this deployment offers it: passwords unless LOGIN_MODE=sso, and "Log in with SSO". */
  form(visit: Visit, token: string): Extract<LoginPageState, { kind: 'form' }> {
    const page = `${this.#basePath()}${loginPagePath}/${token}`;
    const sso = { href: `${page}/sso`, askCompany: this.services.login.settings.login.ssoCompany === undefined };
    return { kind: 'form', csrf: visit.csrf, action: page, passwords: this.login.passwords, sso };
  }

  /** The Slack person and workspace a link logs in, as Slack names them; the link's own handle when Slack cannot say. */
  async linkTo(found: FoundLink): Promise<void> {
    const { link } = found;
    const [person, workspace] = await Promise.all([this.login.profile(found), this.services.login.workspaceName()]);
    const handle = person?.handle ?? link.userName;
    this.linkedTo = { name: person?.name ?? link.userName, handle, workspace: workspace ?? link.workspaceId };
  }

  /** A login done: Slack is told (a DM, App Home redrawn; the login stands even if Slack is down), and the page says so. */
  async loggedIn(actor: Actor, { kind: _, ...summary }: LoggedIn): Promise<void> {
    const { command, slack, logger } = this.services;
    const message = pageLoginConfirmation({ ...summary, command, chooseTeamAction: HOME_SWITCH_TEAM });
    await slack
      .post(actor.userId, message)
      .catch((error: unknown) => logger.warn({ err: error }, 'could not confirm a page login in Slack'));
    await this.#refreshHome(actor).catch((error: unknown) =>
      logger.warn({ err: error }, 'could not redraw App Home after a page login'),
    );
    await this.#showInModal(actor).catch((error: unknown) =>
      logger.info({ err: error }, 'could not show a page login in its login window (closed since?)'),
    );
    const back = backToSlack(this.services.login.settings.login.slackClientUrl, actor.workspaceId);
    return this.send(200, { kind: 'loggedIn', ...summary, slackUrl: back.app, slackWebUrl: back.web });
  }

  /** The login window the person opened in Slack, if still open, says the login too. */
  async #showInModal(actor: Actor): Promise<void> {
    const viewId = await this.services.login.takeModal(actor);
    if (viewId) await this.services.slack.updateView(viewId, await loggedInModal(actor, this.services));
  }

  cookie(visit: Visit): string {
    const base = new URL(this.services.login.settings.publicUrl ?? 'http://localhost');
    const path = `${this.#basePath()}${loginPagePath}`;
    const maxAge = Math.max(1, Math.floor((visit.link.expiresAt - this.services.login.now()) / 1000));
    // Lax, not Strict: opening the link from Slack again is a cross-site navigation that must carry it.
    return `${cookieName}=${visit.secret}; Path=${path}; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${base.protocol === 'https:' ? '; Secure' : ''}`;
  }

  /** PUBLIC_URL's own path, where a reverse proxy mounts the bot, without a trailing slash. */
  #basePath(): string {
    return new URL(this.services.login.settings.publicUrl ?? 'http://localhost').pathname.replace(/\/+$/, '');
  }
}

type RefusalPages = {
  [K in Refusal['kind']]: (
    refusal: Extract<Refusal, { kind: K }>,
    time: (at: Date) => string,
  ) => [number, LoginPageState];
};

const refusalPages: RefusalPages = {
  expired: () => [410, expiredLinkPage],
  tooManyBadLinks: ({ until }, time) => [429, tooManyBadLinksPage(time(until))],
  openedElsewhere: () => [410, openedElsewherePage],
  tooManyLoads: ({ what, until }, time) => [429, tooManyLoadsPage(what, time(until))],
  unverified: () => [403, unverifiedFormPage],
  noState: () => [400, ssoExpiredPage],
  unknown: () => [410, ssoExpiredPage],
  used: () => [410, ssoUsedPage],
  otherBrowser: () => [403, ssoOtherBrowserPage],
  providerError: ({ error }) => [401, ssoProviderErrorPage(error)],
};

function send(res: ServerResponse, status: number, state: LoginPageState, cookie?: string): void {
  res.writeHead(status, { ...loginPageHeaders, ...(cookie ? { 'set-cookie': cookie } : {}) });
  res.end(loginPage(state));
}

/** Slack's own web client (SLACK_CLIENT_URL's default), whose workspaces the Slack app opens too. */
const slackWebClient = 'https://app.slack.com/client/';

/**
 * Where the page sends a person back to the workspace: the Slack app, and the web client for a
 * browser without it; only the web client when SLACK_CLIENT_URL names another (the demo's page).
 */
function backToSlack(clientUrl: string, workspaceId: string): { app: string | undefined; web: string } {
  const team = encodeURIComponent(workspaceId);
  return { app: clientUrl === slackWebClient ? `slack://open?team=${team}` : undefined, web: `${clientUrl}${team}` };
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
