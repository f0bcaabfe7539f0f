import type { KnownBlock, ModalView } from '@slack/types';
import { teamName } from '../../attacks/access.ts';
import type { Login } from '../../store/sessions.ts';
import { actions, button, context, input, modal, section, escapeMrkdwn, slackDate } from '../blocks.ts';

export const LOGIN_VIEW = 'login';
export const RESET_PASSWORD_VIEW = 'login_reset_password';
export const LOGIN_BUTTON = 'login_open';
export const FORGOT_PASSWORD_BUTTON = 'login_forgot_password';
/** The link button to the secure login page; Slack still reports the click, which is only acked. */
export const LOGIN_PAGE_BUTTON = 'login_secure_page';
/** The link button to single sign-on on the secure page; acked like the page's own. */
export const LOGIN_SSO_BUTTON = 'login_sso';
/** The modal that only offers the secure page (LOGIN_MODE=page). */
export const LOGIN_PAGE_VIEW = 'login_secure_page';
/** "End that session", sent to the owner of a login's e-mail that was linked to someone else. */
export const END_LINKED_SESSION_BUTTON = 'login_end_linked_session';

/** Block and action ids of the login form; the block id is where a field's error is shown. */
export const loginFields = {
  email: 'login_email',
  password: 'login_password',
  company: 'login_company',
  mfa: 'login_mfa',
  resetEmail: 'reset_email',
} as const;

export interface LoginModalOptions {
  email?: string;
  notice?: string;
  privateMetadata?: string;
  /** A one-time link to the secure page, offered above the form (LOGIN_MODE=both). */
  secureUrl?: string | undefined;
}

export const pageButton = (url: string) =>
  button('Log in on a secure page', LOGIN_PAGE_BUTTON, { url, style: 'primary' });

/** Where "Log in with SSO" goes: the secure page's own start of the company's sign-in. */
export const ssoUrlOf = (secureUrl: string) => `${secureUrl}/sso`;

const ssoSection = (
  secureUrl: string,
  words = ':office: Your company signs you in through its identity provider? Log in with SSO instead.',
  primary = false,
) =>
  section(words, {
    accessory: button('Log in with SSO', LOGIN_SSO_BUTTON, {
      url: ssoUrlOf(secureUrl),
      ...(primary ? { style: 'primary' as const } : {}),
    }),
  });

export function loginModal(options: LoginModalOptions = {}): ModalView {
  const email: KnownBlock = input(loginFields.email, 'Email', {
    type: 'email_text_input',
    action_id: loginFields.email,
    ...(options.email ? { initial_value: options.email } : {}),
    placeholder: { type: 'plain_text', text: 'you@company.com' },
  });
  const blocks: KnownBlock[] = [
    ...(options.notice ? [section(`:warning: ${options.notice}`)] : []),
    ...(options.secureUrl
      ? [
          section(
            ':lock: Prefer a masked password that never passes through Slack? Log in on a secure page instead (the link works once, for 10 minutes).',
            { accessory: pageButton(options.secureUrl) },
          ),
          ssoSection(options.secureUrl),
        ]
      : []),
    email,
    input(
      loginFields.password,
      'Password',
      { type: 'plain_text_input', action_id: loginFields.password },
      {
        hint: 'Slack cannot hide what you type here, so the password shows while you type. Faultline sends it to the platform once and never stores or logs it.',
      },
    ),
    input(
      loginFields.company,
      'Company name',
      { type: 'plain_text_input', action_id: loginFields.company },
      {
        optional: true,
        hint: 'Only needed when your login belongs to more than one company.',
      },
    ),
    input(
      loginFields.mfa,
      'MFA code',
      {
        type: 'plain_text_input',
        action_id: loginFields.mfa,
        min_length: 6,
        max_length: 6,
        placeholder: { type: 'plain_text', text: '6 digits' },
      },
      { optional: true, hint: 'The current code from your authenticator app, if your account uses MFA.' },
    ),
    actions('login_help', [button('Forgot password', FORGOT_PASSWORD_BUTTON)]),
    ...(options.secureUrl
      ? []
      : [
          context(
            'Whoever runs Faultline can offer a secure login page with a masked password instead, by setting PUBLIC_URL (see the README).',
          ),
        ]),
  ];
  return modal(LOGIN_VIEW, 'Log in to the platform', blocks, {
    submit: 'Log in',
    close: 'Cancel',
    ...(options.privateMetadata !== undefined ? { privateMetadata: options.privateMetadata } : {}),
  });
}

/**
 * LOGIN_MODE=page: the person logs in only on the secure page, through this one-time link, or
 * with SSO; LOGIN_MODE=sso (`ssoOnly`): with SSO alone.
 */
export function securePageModal(url: string, options: { notice?: string; ssoOnly?: boolean } = {}): ModalView {
  return modal(
    LOGIN_PAGE_VIEW,
    'Log in to the platform',
    [
      ...(options.notice ? [section(`:warning: ${options.notice}`)] : []),
      ...(options.ssoOnly
        ? [
            ssoSection(
              url,
              ":office: Log in with SSO, through your company's identity provider. The link works once, for 10 minutes.",
              true,
            ),
          ]
        : [
            section(
              ':lock: Log in on a secure page: your password is masked there and never passes through Slack. The link works once, for 10 minutes.',
              { accessory: pageButton(url) },
            ),
            ssoSection(url),
          ]),
    ],
    { close: 'Close' },
  );
}

export function resetPasswordModal(email?: string): ModalView {
  return modal(
    RESET_PASSWORD_VIEW,
    'Reset password',
    [
      section('Enter the e-mail address you log in with. The platform sends a reset link to it.'),
      input(loginFields.resetEmail, 'Email', {
        type: 'email_text_input',
        action_id: loginFields.resetEmail,
        ...(email ? { initial_value: email } : {}),
      }),
    ],
    { submit: 'Send reset link', close: 'Back' },
  );
}

export function resetRequestedView(command: string): ModalView {
  return modal(
    RESET_PASSWORD_VIEW,
    'Reset password',
    [
      section(
        `If that address has an account, a reset e-mail is on its way. Follow its link, then log in again with \`${command} login\`.`,
      ),
    ],
    { close: 'Done' },
  );
}

/** Shown in place of the login modal once the person is logged in and a team is selected. */
export function loggedInView(
  { session, team, expiresAt }: Pick<Login, 'team' | 'expiresAt'> & { session: Partial<Login['session']> },
  command: string,
): ModalView {
  const identifier = escapeMrkdwn(session.identifier ?? 'you');
  const company = escapeMrkdwn(session.company_name ?? 'your company');
  const teamLine = team ? `Team: *${escapeMrkdwn(teamName(team))}*.` : `No team selected yet: run \`${command} team\`.`;
  return modal(
    LOGIN_VIEW,
    'Logged in',
    [
      section(`:white_check_mark: Logged in as *${identifier}* at *${company}*.\n${teamLine}`),
      context(
        `Your session lasts until ${slackDate(expiresAt)}. \`${command} whoami\` shows it, \`${command} logout\` ends it.`,
      ),
    ],
    { close: 'Done' },
  );
}

/** The message sent to someone who must log in first, with the button that opens the modal. */
export function loginPromptBlocks(reason: string): KnownBlock[] {
  return [section(reason), actions('login_prompt', [button('Log in', LOGIN_BUTTON, { style: 'primary' })])];
}
