import type { PageLoginOutcome, Visit } from '../../login/page.ts';
import { readLoginForm } from '../../login/logIn.ts';
import {
  emailMismatchText,
  emailUnknownText,
  loginBusyText,
  loginFieldText,
  loginRejectedText,
} from '../../views/login/loginWords.ts';
import {
  accountLockedText,
  addressLockedText,
  pageMfaNotice,
  resetEmailUnknownText,
  resetLimitedText,
  resetNeedsEmailText,
  resetNotOwnEmailText,
  resetRequestedNotice,
  ssoRefusedPage,
  ssoUnknownCompanyText,
} from '../../views/login/pageWords.ts';
import type { PageRequest } from './page.ts';

/** The password form posted: the login, or the form again saying why not. */
export async function passwordLogin(page: PageRequest, visit: Visit, token: string, form: URLSearchParams) {
  const input = readLoginForm((name) => form.get(name) ?? undefined);
  const { email, companyName: company } = input;
  const again = (error: string, status = 400, mfa = input.mfaCode !== undefined || form.has('mfa')) =>
    page.send(status, { ...page.form(visit, token), email, company, error, mfa });
  const outcome = await page.login.logIn(visit, input);
  switch (outcome.kind) {
    case 'failed':
      return again(page.errorText(outcome.error, 'log you in'), 502);
    case 'loggedIn':
      return page.loggedIn(visit.actor, outcome);
    case 'invalid':
      return again(loginFieldText[outcome.field]);
    case 'addressLocked':
      return again(addressLockedText(page.time(outcome.until)), 429);
    case 'mfaRequired':
      return page.send(200, { ...page.form(visit, token), email, company, mfa: true, notice: pageMfaNotice });
    case 'rejected':
      return again(loginRejectedText(outcome.mfaCodeGiven), 401);
  }
  const { status, message } = loginRefusal(page, outcome);
  return again(message, status);
}

/** Why a login was not done, with the page's status and title for it: the same for a password and a single sign-on. */
function loginRefusal(
  page: PageRequest,
  outcome: Extract<PageLoginOutcome, { kind: 'locked' | 'busy' | 'emailMismatch' | 'emailUnknown' }>,
): { status: number; title: string; message: string } {
  switch (outcome.kind) {
    case 'locked':
      return { status: 429, title: 'Too many attempts', message: accountLockedText(page.time(outcome.until)) };
    case 'busy':
      return { status: 409, title: 'Another login is under way', message: loginBusyText };
    case 'emailMismatch':
      return { status: 403, title: 'Not linked', message: emailMismatchText(outcome.loginEmail, page.linkedTo?.name) };
    case 'emailUnknown':
      return {
        status: outcome.reason === 'noEmail' ? 403 : 503,
        title: 'Not linked',
        message: emailUnknownText(outcome.reason),
      };
  }
}

/** "Forgot password" on the form: a reset e-mail asked for, and the form again saying what happened. */
export async function resetPassword(page: PageRequest, visit: Visit, token: string, form: URLSearchParams) {
  const email = form.get('email')?.trim() ?? '';
  const company = form.get('company')?.trim() || undefined;
  const again = (status: number, said: { error: string } | { notice: string }) =>
    page.send(status, { ...page.form(visit, token), email, company, ...said });
  const outcome = await page.login.resetPassword(visit, email);
  switch (outcome.kind) {
    case 'invalid':
      return page.send(400, { ...page.form(visit, token), company, error: resetNeedsEmailText });
    case 'failed':
      return again(502, { error: page.errorText(outcome.error, 'request a reset e-mail') });
    case 'limited':
      return again(429, { error: resetLimitedText(page.time(outcome.until)) });
    case 'notOwnEmail':
      return again(403, { error: resetNotOwnEmailText });
    case 'emailUnknown':
      return again(outcome.reason === 'noEmail' ? 403 : 503, { error: resetEmailUnknownText(outcome.reason) });
    case 'sent':
      return again(200, { notice: resetRequestedNotice });
  }
}

/** "Log in with SSO": on to the company's identity provider, or the form again (asking the company). */
export async function ssoStart(
  page: PageRequest,
  visit: Visit,
  token: string,
  asked: string | undefined,
  cookie: string,
): Promise<void> {
  const form = { ...page.form(visit, token), company: asked };
  const started = await page.login.startSso(visit, asked);
  switch (started.kind) {
    case 'continue':
      return page.send(200, { kind: 'continue', url: started.url, company: started.company }, cookie);
    case 'askCompany':
      return page.send(200, form, cookie);
    case 'unknownCompany':
    case 'noState': {
      const error = ssoUnknownCompanyText(started.company);
      return page.send(started.kind === 'noState' ? 502 : 400, { ...form, error }, cookie);
    }
    case 'failed':
      return page.send(502, { ...form, error: page.errorText(started.error, 'start SSO') }, cookie);
  }
}

/** The identity provider sent the browser back: the login, or a page saying why not. */
export async function ssoCallback(page: PageRequest, params: URLSearchParams, secret: string | undefined) {
  const returned = await page.login.ssoReturned(params, secret);
  if (!('link' in returned)) return page.refuse(returned);
  await page.linkTo(returned);
  const outcome = await page.login.finishSso(returned, returned.exchange);
  switch (outcome.kind) {
    case 'loggedIn':
      return page.loggedIn(returned.actor, outcome);
    case 'failed': {
      const message = page.errorText(outcome.error, 'log you in');
      return page.send(502, { kind: 'problem', title: 'Something went wrong', message });
    }
    case 'rejected':
    case 'mfaRequired':
      return page.send(401, ssoRefusedPage);
  }
  const { status, title, message } = loginRefusal(page, outcome);
  // Slack's answer is missing either way: the provider's login cannot be matched now.
  return page.send(outcome.kind === 'emailUnknown' ? 503 : status, { kind: 'problem', title, message });
}
