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
export function loginRefusal(
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
