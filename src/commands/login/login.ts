import { ForbiddenError, PlatformError } from '../../client/errors.ts';
import type { Services } from '../../services.ts';
import type { ModalView } from '@slack/types';
import { readLoginForm, type ResetOutcome } from '../../login/logIn.ts';
import type { SlackLoginOutcome } from '../../login/service.ts';
import {
  clockTime,
  resetEmailUnknownText,
  resetLimitedText,
  resetNotOwnEmailText,
} from '../../views/login/pageWords.ts';
import { describeError } from '../../views/errorReply.ts';
import {
  lockedNotice,
  enterResetEmailText,
  loginFieldText,
  loginBusyText,
  loginRejectedText,
  mfaRequiredText,
  emailMismatchText,
  emailUnknownText,
  linkedSessionEndedText,
  linkedSessionGoneText,
} from '../../views/login/loginWords.ts';
import {
  loggedInView,
  loginFields,
  loginModal,
  type LoginModalOptions,
  resetPasswordModal,
  resetRequestedView,
  securePageModal,
} from '../../views/login/login.ts';
import { afterLoginView } from '../../views/login/team.ts';
import { z } from 'zod';
import { replacement, type Action, type Reply, type Submission, type SubmissionReply, subcommand } from '../command.ts';
import { contract } from '../contract.ts';
import type { Actor } from '../../store/sessions.ts';

/**
 * What every Log in entry shows (the command, the Log in buttons, a refused submission), as
 * LOGIN_MODE says: the Slack form, the form with the secure page offered first, or the page only.
 */
export async function loginModalFor(
  actor: Actor,
  { login }: Services,
  options: Omit<LoginModalOptions, 'secureUrl'> = {},
): Promise<ModalView> {
  const url = await login.secureUrl(actor);
  const { mode } = login.settings.login;
  if (url && (mode === 'page' || mode === 'sso'))
    return securePageModal(url, { ...(options.notice ? { notice: options.notice } : {}), ssoOnly: mode === 'sso' });
  return loginModal({ ...options, secureUrl: url });
}

export const loginCommand = subcommand({
  name: 'login',
  usage: 'login',
  // The same words whatever LOGIN_MODE offers: the window that opens shows the ways this workspace allows.
  summary: 'Log in to the platform as yourself (opens a window in Slack with the ways to log in).',
  examples: ['login'],
  args: contract({ command: 'login', usage: 'login' }),
  run: (request, _args, deps) => openLoginModal(request.actor, deps),
});

/** The Log in button of "please log in" messages and App Home. */
export function openLogin(action: Action, deps: Services): Promise<Reply> {
  return openLoginModal(action.actor, deps);
}

/** Opens the login window, kept so that a login on the secure page or by SSO shows there. */
async function openLoginModal(actor: Actor, deps: Services): Promise<Reply> {
  const view = await loginModalFor(actor, deps);
  // Kept or not, the window is open: a store that fails here costs only the "Logged in" in it.
  const opened = (viewId: string) =>
    deps.login
      .rememberModal(actor, viewId)
      .catch((error: unknown) => deps.logger.warn({ err: error }, 'could not keep the login window'));
  return { kind: 'openModal', view, opened };
}

/** The secure page's link button: Slack reports the click, which needs nothing more than the ack. */
export async function securePageOpened(): Promise<Reply> {
  return { kind: 'none' };
}

export async function submitLogin(submission: Submission, deps: Services): Promise<SubmissionReply> {
  const input = readLoginForm((name) => submission.inputs[loginFields[name]]);
  let outcome: SlackLoginOutcome;
  try {
    outcome = await deps.login.logIn(submission.actor, input);
  } catch (error) {
    return { kind: 'errors', errors: loginErrors(error, deps) };
  }
  const error = (field: keyof typeof loginFields, text: string): SubmissionReply => ({
    kind: 'errors',
    errors: { [loginFields[field]]: text },
  });
  switch (outcome.kind) {
    case 'passwordsOff':
      if (submission.viewId) await deps.login.rememberModal(submission.actor, submission.viewId);
      return { kind: 'update', view: await loginModalFor(submission.actor, deps) };
    case 'invalid':
      return {
        kind: 'errors',
        errors: Object.fromEntries(outcome.fields.map((field) => [loginFields[field], loginFieldText[field]])),
      };
    case 'mfaRequired':
      return error('mfa', mfaRequiredText);
    case 'rejected':
      return error('password', loginRejectedText(outcome.mfaCodeGiven));
    case 'busy':
      return error('password', loginBusyText);
    case 'emailMismatch':
      return error('email', emailMismatchText(outcome.loginEmail));
    case 'emailUnknown':
      return error('email', emailUnknownText(outcome.reason));
    case 'locked': {
      const notice = lockedNotice(outcome.until);
      return { kind: 'update', view: await loginModalFor(submission.actor, deps, { email: input.email, notice }) };
    }
    case 'loggedIn':
      return { kind: 'update', view: await loggedInModal(submission.actor, deps) };
  }
}

/** The login window once a login is done: the team picker with several teams, else who is logged in. */
export async function loggedInModal(actor: Actor, deps: Services): Promise<ModalView> {
  const login = await deps.login.current(actor);
  if (login) return afterLoginView(login, deps.command);
  // Dropped meanwhile: logged in, as far as this window can tell.
  return loggedInView({ session: {}, team: undefined, expiresAt: new Date(deps.login.now()) }, deps.command);
}

/** Platform failures other than a refusal: not the person's doing, so not counted against them. */
function loginErrors(error: unknown, deps: Services): Record<string, string> {
  if (!(error instanceof PlatformError) || error instanceof ForbiddenError) {
    deps.logger.error({ err: error }, 'login failed');
  } else {
    deps.logger.warn({ err: error }, 'login failed');
  }
  return {
    [loginFields.password]: describeError(error, { command: deps.command, doing: 'log you in' }).text,
  };
}

/** "Forgot password" inside the login modal: a small form on top, prefilled with the typed e-mail. */
export async function forgotPassword(action: Action): Promise<Reply> {
  return { kind: 'pushModal', view: resetPasswordModal(action.inputs[loginFields.email]?.trim() || undefined) };
}

export async function submitPasswordReset(submission: Submission, deps: Services): Promise<SubmissionReply> {
  const email = submission.inputs[loginFields.resetEmail]?.trim() ?? '';
  const error = (text: string): SubmissionReply => ({ kind: 'errors', errors: { [loginFields.resetEmail]: text } });
  let outcome: ResetOutcome;
  try {
    outcome = await deps.login.resetPassword(submission.actor, email);
  } catch (failure) {
    deps.logger.warn({ err: failure }, 'password reset failed');
    return error(describeError(failure, { command: deps.command, doing: 'request a reset e-mail' }).text);
  }
  switch (outcome.kind) {
    case 'invalid':
      return error(enterResetEmailText);
    case 'limited':
      return error(resetLimitedText(clockTime(outcome.until, deps.login.now())));
    case 'notOwnEmail':
      return error(resetNotOwnEmailText);
    case 'emailUnknown':
      return error(resetEmailUnknownText(outcome.reason));
    case 'sent':
      return { kind: 'update', view: resetRequestedView(deps.command) };
  }
}

const linkedPerson = z.object({ w: z.string().min(1), u: z.string().min(1), n: z.string(), h: z.string() });

/**
 * "End that session", in the message to the owner of a login's e-mail that was linked to another
 * Slack person: ends that person's session while it is still a login with the clicker's Slack
 * e-mail, so the button does nothing in anyone else's hands, nor once the login has changed.
 */
export async function endLinkedSession(action: Action, { login }: Services): Promise<Reply> {
  let parsed: z.infer<typeof linkedPerson> | undefined;
  try {
    parsed = linkedPerson.parse(JSON.parse(action.value ?? ''));
  } catch {
    parsed = undefined;
  }
  if (!parsed) return { kind: 'none' };
  const person = { workspaceId: parsed.w, userId: parsed.u, userName: parsed.h };
  const shown = { name: parsed.n, handle: parsed.h };
  const { outcome, ownerEmail } = await login.endLinkedSession(person, action.actor);
  if (outcome.kind === 'none') return replacement(linkedSessionGoneText(shown));
  return replacement(linkedSessionEndedText(shown, outcome.login.session.identifier ?? ownerEmail ?? ''));
}
