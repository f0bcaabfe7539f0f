import { createHash } from 'node:crypto';

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
      /** The Slack app's deep link; without one, Back to Slack goes to the web client. */
      slackUrl: string | undefined;
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
          `<a class="primary" href="${escapeHtml(state.slackUrl ?? state.slackWebUrl)}">Back to Slack</a>`,
          state.slackUrl
            ? `<p class="footer">Slack app not installed? <a href="${escapeHtml(state.slackWebUrl)}">Open Slack in the browser</a>.</p>`
            : '',
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
