import type { Deps } from '../deps.ts';
import type { Actor } from '../store/sessions.ts';
import { LoginLinks } from './links.ts';

/** The path the login page answers on; the token is the last segment. */
export const loginPagePath = '/login';
/** Where the identity provider sends the browser back; the platform's `state` says which link it was for. */
export const ssoCallbackPath = `${loginPagePath}/sso/callback`;

/** A fresh one-time link to the secure page for the person, or undefined without PUBLIC_URL. */
export async function secureLoginUrl(actor: Actor, deps: Deps): Promise<string | undefined> {
  if (!deps.config.publicUrl || deps.config.login.mode === 'modal') return undefined;
  const { token } = await new LoginLinks(deps.store, deps.clock.now).mint(actor);
  return `${deps.config.publicUrl}${loginPagePath}/${token}`;
}
