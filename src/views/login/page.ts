import { createHash } from 'node:crypto';
import { describeError } from '../errorReply.ts';
import { plural } from '../plural.ts';

/** The Slack person and workspace a login page links the platform login to. */
export interface LinkedAccount {
  name: string;
  handle: string;
  workspace: string;
}

/** What the secure login page shows; rendered by `loginPage`, a pure function of it. */
export type LoginPageState =
  | {
      kind: 'form';
      csrf: string;
      linkedTo?: LinkedAccount | undefined;
      email?: string | undefined;
      company?: string | undefined;
      /** Shown in red above the form: what went wrong and what to do. */
      error?: string | undefined;
      /** Shown above the form: a neutral note (a reset e-mail was sent…). */
      notice?: string | undefined;
      /** The platform asked for an MFA code: the second step. */
      mfa?: boolean | undefined;
      /** "Log in with SSO": where it starts (relative to the page), and whether it asks the company. */
      sso?: { href: string; askCompany: boolean } | undefined;
      /** False with LOGIN_MODE=sso: no password form, SSO alone. */
      passwords?: boolean | undefined;
      /** Where the password form posts (the link's page); the form's own address without it. */
      action?: string | undefined;
    }
  /**
   * On the way to the company's identity provider: the person goes on by the link once they have
   * read whose Slack account the login is for, never by themselves (a forwarded link, an identity
   * provider that signs in without asking).
   */
  | { kind: 'continue'; url: string; company: string; linkedTo?: LinkedAccount | undefined }
  | {
      kind: 'loggedIn';
      linkedTo?: LinkedAccount | undefined;
      identifier: string;
      company: string;
      team: string | undefined;
      severalTeams: boolean;
      slackUrl: string;
      slackWebUrl: string;
    }
  /** The link cannot be used (expired, used, another browser, refused): nothing to fill in. */
  | { kind: 'problem'; title: string; message: string };

const stylesheet = `
:root { color-scheme: light dark; font-family: system-ui, -apple-system, "Segoe UI", sans-serif; }
body { margin: 0; min-height: 100vh; display: grid; place-items: center; background: #f4ede4; color: #1d1c1d; }
main { width: min(26rem, calc(100vw - 2rem)); background: #fff; border-radius: 12px; padding: 2rem; box-shadow: 0 4px 24px rgb(0 0 0 / 12%); }
h1 { font-size: 1.4rem; margin: 0 0 0.25rem; }
.brand { color: #7a1f1f; font-weight: 700; letter-spacing: 0.02em; margin: 0 0 1.25rem; }
label { display: block; font-weight: 600; margin: 1rem 0 0.35rem; }
.optional { font-weight: 400; color: #616061; }
input { box-sizing: border-box; width: 100%; font: inherit; padding: 0.6rem 0.7rem; border: 1px solid #8d8d8d; border-radius: 6px; background: #fff; color: inherit; }
input:focus { outline: 3px solid #1d9bd1; outline-offset: 1px; }
.hint { font-size: 0.85rem; color: #616061; margin: 0.35rem 0 0; }
.buttons { display: flex; gap: 0.75rem; align-items: center; justify-content: space-between; margin-top: 1.5rem; }
button { font: inherit; font-weight: 700; padding: 0.6rem 1.2rem; border-radius: 6px; border: 1px solid #007a5a; background: #007a5a; color: #fff; cursor: pointer; }
button.link { background: none; border: none; color: #1264a3; font-weight: 400; padding: 0; text-decoration: underline; }
.error { background: #fdecea; border-left: 4px solid #c0392b; color: #7a1f1f; padding: 0.6rem 0.8rem; border-radius: 4px; }
.notice { background: #e8f5fa; border-left: 4px solid #1264a3; padding: 0.6rem 0.8rem; border-radius: 4px; }
.account { background: #fdf6e3; border-left: 4px solid #b7791f; padding: 0.6rem 0.8rem; border-radius: 4px; }
.footer { font-size: 0.8rem; color: #616061; margin-top: 1.5rem; }
a.sso { font-weight: 700; color: #1264a3; }
a.primary { display: inline-block; margin-top: 1rem; font-weight: 700; padding: 0.6rem 1.2rem; border-radius: 6px; background: #007a5a; color: #fff; text-decoration: none; }
@media (prefers-color-scheme: dark) {
  body { background: #1a1d21; color: #e8e8e8; }
  main { background: #222529; }
  input { background: #1a1d21; }
  .error { background: #3b1c1c; color: #f5c6c0; }
  .notice { background: #12303f; }
  .account { background: #3a2f12; }
  .hint, .optional, .footer { color: #ababad; }
  button.link { color: #4fa8e0; }
}
`;

/** The page's only style, allowed by its hash: no script and no other source is allowed at all. */
const styleHash = createHash('sha256').update(stylesheet).digest('base64');

/** Response headers of every login page: nothing cached, no referrer, nothing but our own style. */
export const loginPageHeaders: Readonly<Record<string, string>> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  pragma: 'no-cache',
  'referrer-policy': 'no-referrer',
  'content-security-policy': `default-src 'none'; style-src 'sha256-${styleHash}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

const value = (text: string | undefined) => (text ? ` value="${escapeHtml(text)}"` : '');

function document(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
<title>${escapeHtml(title)} · Faultline</title>
<style>${stylesheet}</style>
</head>
<body>
<main>
<p class="brand">Faultline</p>
${body}
</main>
</body>
</html>
`;
}

/** Whom the login is for, named before the password is typed: whoever is not them must not go on. */
function linkedBefore(account: LinkedAccount | undefined): string {
  if (!account) return '';
  const name = escapeHtml(account.name);
  return `<p class="account" role="note">This login will be linked to the Slack account of <strong>${name} (@${escapeHtml(account.handle)})</strong> in <strong>${escapeHtml(account.workspace)}</strong>. If you are not ${name}, close this page: whoever sent you the link would act with your platform account.</p>`;
}

function linkedAfter(account: LinkedAccount | undefined): string {
  if (!account) return '';
  return `<p class="account" role="note">Linked to the Slack account of <strong>${escapeHtml(account.name)} (@${escapeHtml(account.handle)})</strong> in <strong>${escapeHtml(account.workspace)}</strong>.</p>`;
}

/** "Log in with SSO": a plain link, or a small form asking the company (GET, to the page's own start). */
function ssoPart(sso: { href: string; askCompany: boolean }, primary: boolean): string {
  if (!sso.askCompany)
    return `<p><a class="${primary ? 'primary' : 'sso'}" href="${escapeHtml(sso.href)}">Log in with SSO</a></p>`;
  return [
    `<form method="get" action="${escapeHtml(sso.href)}" class="sso-form">`,
    '<label for="sso-company">Company name <span class="optional">(for SSO)</span></label>',
    '<input id="sso-company" name="company" type="text" autocomplete="organization" required>',
    '<div class="buttons"><button type="submit">Log in with SSO</button></div>',
    '</form>',
  ].join('\n');
}

function form(state: Extract<LoginPageState, { kind: 'form' }>): string {
  const passwords = state.passwords !== false;
  const parts = [
    '<h1>Log in to the platform</h1>',
    linkedBefore(state.linkedTo),
    passwords
      ? '<p class="hint">Your password goes from this page to the platform once. It never passes through Slack and is never stored.</p>'
      : '<p class="hint">You sign in through your company\'s identity provider; Faultline never sees a password.</p>',
  ];
  if (state.error) parts.push(`<p class="error" role="alert">${escapeHtml(state.error)}</p>`);
  if (state.notice) parts.push(`<p class="notice" role="status">${escapeHtml(state.notice)}</p>`);
  if (!passwords) {
    if (state.sso) parts.push(ssoPart(state.sso, true));
    parts.push(
      '<p class="footer">This page works once, for 10 minutes. For a new one, run the login command in Slack again.</p>',
    );
    return document('Log in', parts.join('\n'));
  }
  parts.push(
    state.action ? `<form method="post" action="${escapeHtml(state.action)}">` : '<form method="post">',
    `<input type="hidden" name="csrf" value="${escapeHtml(state.csrf)}">`,
    '<label for="email">Email</label>',
    `<input id="email" name="email" type="email" autocomplete="username" required${state.mfa ? '' : ' autofocus'}${value(state.email)}>`,
    '<label for="password">Password</label>',
    `<input id="password" name="password" type="password" autocomplete="current-password" required>`,
    '<label for="company">Company name <span class="optional">(optional)</span></label>',
    `<input id="company" name="company" type="text" autocomplete="organization" aria-describedby="company-hint"${value(state.company)}>`,
    '<p class="hint" id="company-hint">Only needed when your login belongs to more than one company.</p>',
  );
  if (state.mfa) {
    parts.push(
      '<label for="mfa">MFA code</label>',
      '<input id="mfa" name="mfa" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required autofocus aria-describedby="mfa-hint">',
      '<p class="hint" id="mfa-hint">The current 6-digit code from your authenticator app. Enter your password again with it.</p>',
    );
  }
  parts.push(
    '<div class="buttons">',
    '<button type="submit" name="intent" value="login">Log in</button>',
    '<button type="submit" name="intent" value="reset" class="link" formnovalidate>Forgot password</button>',
    '</div>',
    '</form>',
  );
  if (state.sso)
    parts.push(
      '<p class="hint">Or, when your company signs you in through its identity provider:</p>',
      ssoPart(state.sso, false),
    );
  parts.push(
    '<p class="footer">This page works once, for 10 minutes. For a new one, run the login command in Slack again.</p>',
  );
  return document('Log in', parts.join('\n'));
}

/** The whole HTML of the secure login page in one state. No script: it works with JavaScript off. */
export function loginPage(state: LoginPageState): string {
  switch (state.kind) {
    case 'form':
      return form(state);
    case 'loggedIn': {
      const team = state.team
        ? `<p>Team: <strong>${escapeHtml(state.team)}</strong>.</p>`
        : state.severalTeams
          ? '<p>You belong to several teams: Faultline sent you a message in Slack to choose the one to work in.</p>'
          : '';
      return document(
        'Logged in',
        [
          '<h1>You are logged in</h1>',
          `<p role="status">Logged in as <strong>${escapeHtml(state.identifier)}</strong> at <strong>${escapeHtml(state.company)}</strong>.</p>`,
          linkedAfter(state.linkedTo),
          team,
          '<p>You can close this page and go back to Slack.</p>',
          `<a class="primary" href="${escapeHtml(state.slackUrl)}">Back to Slack</a>`,
          `<p class="footer">Slack app not installed? <a href="${escapeHtml(state.slackWebUrl)}">Open Slack in the browser</a>.</p>`,
        ].join('\n'),
      );
    }
    case 'continue':
      return document(
        'Signing in',
        [
          `<h1>Signing in with ${escapeHtml(state.company)}</h1>`,
          linkedBefore(state.linkedTo),
          `<a class="primary" href="${escapeHtml(state.url)}">Continue to the sign-in page</a>`,
        ].join('\n'),
      );
    case 'problem':
      return document(
        state.title,
        [`<h1>${escapeHtml(state.title)}</h1>`, `<p class="error" role="alert">${escapeHtml(state.message)}</p>`].join(
          '\n',
        ),
      );
  }
}

/** A login link that was used, has expired, or never was. */
export const expiredLinkPage: LoginPageState = {
  kind: 'problem',
  title: 'This link no longer works',
  message: 'Login links work once, for 10 minutes. Run the login command in Slack again for a new one.',
};

/** The page itself failed. */
export const pageFailedPage: LoginPageState = {
  kind: 'problem',
  title: 'Something went wrong',
  message: 'Faultline could not show the login page. Try again; if it keeps failing, tell whoever runs Faultline.',
};

/** An address refused after opening too many unusable links; `until` as `clockTime` says it. */
export const tooManyBadLinksPage = (until: string): LoginPageState => ({
  kind: 'problem',
  title: 'Too many attempts',
  message: `Too many unusable login links from your network. Try again at ${until}, or run the login command in Slack for a new link.`,
});

/** An address whose logins are paused after too many failures; `until` as `clockTime` says it. */
export const addressLockedText = (until: string) => `Too many failed logins from your network. Try again at ${until}.`;

/** A link already bound to another browser. */
export const openedElsewherePage: LoginPageState = {
  kind: 'problem',
  title: 'This link was opened elsewhere',
  message:
    'Each login link works in one browser only, and another one opened it first. Run the login command in Slack again for a new link.',
};

/** A form posted without this browser's secret or a valid CSRF token. */
export const unverifiedFormPage: LoginPageState = {
  kind: 'problem',
  title: 'This form could not be verified',
  message:
    'Faultline did not recognise this form, so nothing was sent to the platform. Open the link from Slack again in this browser, or run the login command for a new one.',
};

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
export const tooManyLoadsPage = (what: 'page' | 'sso', until: string): LoginPageState => ({
  kind: 'problem',
  title: 'Too many attempts',
  message:
    what === 'sso'
      ? `Too many single sign-ons were started with this link or from your network. Try again at ${until}, or run the login command in Slack for a new link.`
      : `Too many login pages were opened with this link or from your network. Try again at ${until}, or run the login command in Slack for a new link.`,
});

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
export const ssoExpiredPage: LoginPageState = {
  kind: 'problem',
  title: 'This sign-in no longer works',
  message:
    'A single sign-on works once, for 10 minutes. Run the login command in Slack again and choose "Log in with SSO".',
};

/** A callback in a browser other than the one that started the sign-in. */
export const ssoOtherBrowserPage: LoginPageState = {
  kind: 'problem',
  title: 'This sign-in was started elsewhere',
  message:
    'A single sign-on finishes only in the browser that started it, so nothing was stored. Start again from Slack in this browser.',
};

/** A callback taken already: a replay, or a second tab. */
export const ssoUsedPage: LoginPageState = {
  kind: 'problem',
  title: 'This sign-in was used already',
  message:
    'Each single sign-on logs in once, so nothing more was stored. Run the login command in Slack for a new one.',
};

/** The identity provider sent the person back with an error (they cancelled, or it refused them). */
export const ssoProviderErrorPage = (error: string): LoginPageState => ({
  kind: 'problem',
  title: 'Your company did not sign you in',
  message: `The identity provider ended the sign-in (${error}), so you are not logged in. Try again from Slack, or ask your company's IT.`,
});

/** The platform refused the provider's code (expired, or not for this sign-in). */
export const ssoRefusedPage: LoginPageState = {
  kind: 'problem',
  title: 'The platform did not accept this sign-in',
  message:
    'Nothing was stored. Run the login command in Slack and choose "Log in with SSO" again; if it keeps failing, a security reader can run the sso failures command to see why.',
};
