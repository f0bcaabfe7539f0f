import type { KnownBlock, ModalView } from '@slack/types';
import { actions, button, context, input, modal, section, escapeMrkdwn, slackDate } from './blocks.ts';

export const LOGIN_VIEW = 'login';
export const RESET_PASSWORD_VIEW = 'login_reset_password';
export const LOGIN_BUTTON = 'login_open';
export const FORGOT_PASSWORD_BUTTON = 'login_forgot_password';

/** Block and action ids of the login form; the block id is where a field's error is shown. */
export const loginFields = {
  email: 'login_email',
  password: 'login_password',
  company: 'login_company',
  mfa: 'login_mfa',
  resetEmail: 'reset_email',
} as const;

export function loginModal(options: { email?: string; notice?: string; privateMetadata?: string } = {}): ModalView {
  const email: KnownBlock = input(loginFields.email, 'Email', {
    type: 'email_text_input',
    action_id: loginFields.email,
    ...(options.email ? { initial_value: options.email } : {}),
    placeholder: { type: 'plain_text', text: 'you@company.com' },
  });
  const blocks: KnownBlock[] = [
    ...(options.notice ? [section(`:warning: ${options.notice}`)] : []),
    email,
    input(loginFields.password, 'Password', { type: 'plain_text_input', action_id: loginFields.password }, {
      hint: 'Slack cannot hide what you type here, so the password shows while you type. Faultline sends it to the platform once and never stores or logs it.',
    }),
    input(loginFields.company, 'Company name', { type: 'plain_text_input', action_id: loginFields.company }, {
      optional: true,
      hint: 'Only needed when your login belongs to more than one company.',
    }),
    input(loginFields.mfa, 'MFA code', {
      type: 'plain_text_input',
      action_id: loginFields.mfa,
      min_length: 6,
      max_length: 6,
      placeholder: { type: 'plain_text', text: '6 digits' },
    }, { optional: true, hint: 'The current code from your authenticator app, if your account uses MFA.' }),
    actions('login_help', [button('Forgot password', FORGOT_PASSWORD_BUTTON)]),
  ];
  return modal(LOGIN_VIEW, 'Log in to the platform', blocks, { submit: 'Log in', close: 'Cancel', ...(options.privateMetadata !== undefined ? { privateMetadata: options.privateMetadata } : {}) });
}

export function resetPasswordModal(email?: string): ModalView {
  return modal(RESET_PASSWORD_VIEW, 'Reset password', [
    section('Enter the e-mail address you log in with. The platform sends a reset link to it.'),
    input(loginFields.resetEmail, 'Email', {
      type: 'email_text_input',
      action_id: loginFields.resetEmail,
      ...(email ? { initial_value: email } : {}),
    }),
  ], { submit: 'Send reset link', close: 'Back' });
}

export function resetRequestedView(command: string): ModalView {
  return modal(RESET_PASSWORD_VIEW, 'Reset password', [
    section(`If that address has an account, a reset e-mail is on its way. Follow its link, then log in again with \`${command} login\`.`),
  ], { close: 'Done' });
}

/** Shown in place of the login modal once the person is logged in and a team is selected. */
export function loggedInView(summary: { identifier: string; company: string; team: string | undefined; expiresAt: Date; command: string }): ModalView {
  const team = summary.team ? `Team: *${escapeMrkdwn(summary.team)}*.` : `No team selected yet: run \`${summary.command} team\`.`;
  return modal(LOGIN_VIEW, 'Logged in', [
    section(`:white_check_mark: Logged in as *${escapeMrkdwn(summary.identifier)}* at *${escapeMrkdwn(summary.company)}*.\n${team}`),
    context(`Your session lasts until ${slackDate(summary.expiresAt)}. \`${summary.command} whoami\` shows it, \`${summary.command} logout\` ends it.`),
  ], { close: 'Done' });
}

/** The message sent to someone who must log in first, with the button that opens the modal. */
export function loginPromptBlocks(reason: string): KnownBlock[] {
  return [section(reason), actions('login_prompt', [button('Log in', LOGIN_BUTTON, { style: 'primary' })])];
}
