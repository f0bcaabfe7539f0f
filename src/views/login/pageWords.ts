import { describeError } from '../errorReply.ts';
import { plural } from '../blocks.ts';
import type { LoginPageState } from './page.ts';

const problem = (title: string, message: string): LoginPageState => ({ kind: 'problem', title, message });

/** A login link that was used, has expired, or never was. */
export const expiredLinkPage = problem(
  'This link no longer works',
  'Login links work once, for 10 minutes. Run the login command in Slack again for a new one.',
);

/** The page itself failed. */
export const pageFailedPage = problem(
  'Something went wrong',
  'Faultline could not show the login page. Try again; if it keeps failing, tell whoever runs Faultline.',
);

/** An address refused after opening too many unusable links; `until` as `clockTime` says it. */
export const tooManyBadLinksPage = (until: string) =>
  problem(
    'Too many attempts',
    `Too many unusable login links from your network. Try again at ${until}, or run the login command in Slack for a new link.`,
  );

/** An address whose logins are paused after too many failures; `until` as `clockTime` says it. */
export const addressLockedText = (until: string) => `Too many failed logins from your network. Try again at ${until}.`;

/** A link already bound to another browser. */
export const openedElsewherePage = problem(
  'This link was opened elsewhere',
  'Each login link works in one browser only, and another one opened it first. Run the login command in Slack again for a new link.',
);

/** A form posted without this browser's secret or a valid CSRF token. */
export const unverifiedFormPage = problem(
  'This form could not be verified',
  'Faultline did not recognise this form, so nothing was sent to the platform. Open the link from Slack again in this browser, or run the login command for a new one.',
);

/** The page's second step, once the platform asked for an MFA code. */
export const pageMfaNotice =
  'Your account uses MFA: enter your password again with the current code from your authenticator app.';

/** An account the platform locked; `until` as `clockTime` says it. */
export const accountLockedText = (until: string) =>
  `Too many failed logins. For your account's safety, logging in is paused: try again at ${until}.`;

/** Forgot password, chosen before an e-mail address was typed. */
export const resetNeedsEmailText = 'Enter your e-mail address above, then choose "Forgot password" again.';

/** Too many reset e-mails for the person or the address; `at` as `clockTime` says it. The Slack form says the same. */
export const resetLimitedText = (at: string) => `Too many reset e-mails were asked for. Try again at ${at}.`;

/** A reset e-mail asked for an address that is not the asker's Slack e-mail (LOGIN_EMAIL_MATCH=required). */
export const resetNotOwnEmailText =
  'A reset e-mail goes only to the e-mail address of your Slack profile, so nothing was sent. Enter that address; if it is not the one you log in with, ask whoever runs Faultline.';

/** A reset e-mail that could not be matched to the asker's Slack e-mail. */
export const resetEmailUnknownText = (reason: 'noEmail' | 'slackUnavailable') =>
  reason === 'noEmail'
    ? 'Your Slack profile shows no e-mail address, and a reset e-mail goes only to that address, so nothing was sent. Ask whoever runs Faultline.'
    : 'Faultline could not read your Slack profile to check that this address is yours, so nothing was sent. Try again in a minute.';

/** A link loaded, or single sign-ons started with it, too often; `until` as `clockTime` says it. */
export const tooManyLoadsPage = (what: 'page' | 'sso', until: string) =>
  problem(
    'Too many attempts',
    what === 'sso'
      ? `Too many single sign-ons were started with this link or from your network. Try again at ${until}, or run the login command in Slack for a new link.`
      : `Too many login pages were opened with this link or from your network. Try again at ${until}, or run the login command in Slack for a new link.`,
  );

export const resetRequestedNotice =
  'If that address has an account, a reset e-mail is on its way. Follow its link, then log in here with the new password.';

/** An error reply as the page shows it: plain text, without Slack's marks. */
export const pageErrorText = (error: unknown, command: string, doing: string) =>
  describeError(error, { command, doing }).text.replace(/[*`]/g, '');

/** "14:32 UTC (in 12 minutes)": the page cannot know the reader's time zone without a script. */
export function clockTime(at: Date, now: number): string {
  const minutes = Math.max(1, Math.ceil((at.getTime() - now) / 60_000));
  return `${at.toISOString().slice(11, 16)} UTC (in ${plural(minutes, 'minute')})`;
}

/** An SSO start for a company the platform does not sign in with SSO (or does not know). */
export const ssoUnknownCompanyText = (company: string) =>
  `${company} does not sign in with SSO on the platform. Check the company name, or log in with your e-mail and password.`;

/** LOGIN_MODE=sso: a password form posted anyway. */
export const ssoOnlyText = 'This Faultline logs in with SSO only: use "Log in with SSO".';

/** A callback whose sign-in this bot never started, or started more than 10 minutes ago. */
export const ssoExpiredPage = problem(
  'This sign-in no longer works',
  'A single sign-on works once, for 10 minutes. Run the login command in Slack again and choose "Log in with SSO".',
);

/** A callback in a browser other than the one that started the sign-in. */
export const ssoOtherBrowserPage = problem(
  'This sign-in was started elsewhere',
  'A single sign-on finishes only in the browser that started it, so nothing was stored. Start again from Slack in this browser.',
);

/** A callback taken already: a replay, or a second tab. */
export const ssoUsedPage = problem(
  'This sign-in was used already',
  'Each single sign-on logs in once, so nothing more was stored. Run the login command in Slack for a new one.',
);

/** The identity provider sent the person back with an error (they cancelled, or it refused them). */
export const ssoProviderErrorPage = (error: string) =>
  problem(
    'Your company did not sign you in',
    `The identity provider ended the sign-in (${error}), so you are not logged in. Try again from Slack, or ask your company's IT.`,
  );

/** The platform refused the provider's code (expired, or not for this sign-in). */
export const ssoRefusedPage = problem(
  'The platform did not accept this sign-in',
  'Nothing was stored. Run the login command in Slack and choose "Log in with SSO" again; if it keeps failing, a security reader can run the sso failures command to see why.',
);
