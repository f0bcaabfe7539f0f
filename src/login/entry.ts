import type { LoginParts } from './service.ts';
import type { Actor } from '../store/sessions.ts';
import { LoginLinks } from './links.ts';

/** The path the login page answers on; the token is the last segment. */
export const loginPagePath = '/login';
/** Where the identity provider sends the browser back; the platform's `state` says which link it was for. */
export const ssoCallbackPath = `${loginPagePath}/sso/callback`;

/** A fresh one-time link to the secure page for the person, or undefined without PUBLIC_URL. */
export async function secureLoginUrl(actor: Actor, parts: LoginParts): Promise<string | undefined> {
  if (!parts.config.publicUrl || parts.config.login.mode === 'modal') return undefined;
  const { token } = await new LoginLinks(parts.store, parts.clock.now).mint(actor);
  return `${parts.config.publicUrl}${loginPagePath}/${token}`;
}

/** Slack's own web client (SLACK_CLIENT_URL's default), whose workspaces the Slack app opens too. */
const slackWebClient = 'https://app.slack.com/client/';

/**
 * Where the page sends a person back to the workspace: the Slack app, and the web client for a
 * browser without it; only the web client when SLACK_CLIENT_URL names another (the demo's page).
 */
export function backToSlack(clientUrl: string, workspaceId: string): { app: string | undefined; web: string } {
  const team = encodeURIComponent(workspaceId);
  return { app: clientUrl === slackWebClient ? `slack://open?team=${team}` : undefined, web: `${clientUrl}${team}` };
}
