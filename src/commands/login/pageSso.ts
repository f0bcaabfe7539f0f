import type { Visit } from '../../login/page.ts';
import { ssoRefusedPage, ssoUnknownCompanyText } from '../../views/login/pageWords.ts';
import type { PageRequest } from './page.ts';
import { loginRefusal } from './pageForm.ts';

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
