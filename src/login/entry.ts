import type { ModalView } from '@slack/types';
import type { Deps } from '../deps.ts';
import type { Actor } from '../store/sessions.ts';
import { slackDate } from '../views/blocks.ts';
import { loginModal, securePageModal, type LoginModalOptions } from '../views/login.ts';
import { LoginLinks } from './links.ts';

/** The path the login page answers on; the token is the last segment. */
export const loginPagePath = '/login';

/** A fresh one-time link to the secure page for the person, or undefined without PUBLIC_URL. */
export async function secureLoginUrl(actor: Actor, deps: Deps): Promise<string | undefined> {
  if (!deps.config.publicUrl || deps.config.login.mode === 'modal') return undefined;
  const { token } = await new LoginLinks(deps.store, deps.clock.now).mint(actor);
  return `${deps.config.publicUrl}${loginPagePath}/${token}`;
}

/**
 * What every Log in entry shows (the command, the Log in buttons, a refused submission), as
 * LOGIN_MODE says: the Slack form, the form with the secure page offered first, or the page only.
 */
export async function loginModalFor(
  actor: Actor,
  deps: Deps,
  options: Omit<LoginModalOptions, 'secureUrl'> = {},
): Promise<ModalView> {
  const url = await secureLoginUrl(actor, deps);
  if (url && deps.config.login.mode === 'page')
    return securePageModal(url, options.notice ? { notice: options.notice } : {});
  return loginModal({ ...options, secureUrl: url });
}

/** "Try again at 14:32", in the reader's own time zone. */
export function lockedNotice(until: Date): string {
  return `Too many failed logins. For your account's safety, logging in is paused: try again at ${slackDate(until, '{time}')}.`;
}
