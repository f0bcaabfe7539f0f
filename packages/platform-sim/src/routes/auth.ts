import { companyPrivilegesOf, teamPrivilegesOf } from '../access.ts';
import { isoTime } from '../clock.ts';
import {
  badRequest,
  companyRoute,
  publicRoute,
  queryValue,
  SimHttpError,
  text,
  json,
  type RequestContext,
  type Route,
  type SessionContext,
} from '../route.ts';
import { randomBytes } from 'node:crypto';
import { idpPrefix, oauthLifetimeMs } from '../identityProvider.ts';
import type { Company, Session, SimState, User } from '../state.ts';

export const invalidCredentialsText = 'Invalid credentials';
export const mfaRequiredText = 'MFA token required';

export const authRoutes: Route[] = [
  publicRoute('POST', '/users/auth', (context) => logIn(context, false)),
  companyRoute('DELETE', '/users/auth', 'MINIMUM_COMPANY_PRIVILEGES', logOut),
  publicRoute('POST', '/users/auth/mfa/auth', (context) => logIn(context, true)),
  publicRoute('POST', '/users/auth/password/reset', requestPasswordReset),
  publicRoute('GET', '/oauth/login', startOAuthLogin),
  publicRoute('GET', '/oauth/callback', finishOAuthLogin),
  companyRoute('GET', '/users/auth/saml/failures', 'COMPANY_SECURITY_READ', listSsoFailures),
];

function logIn(context: RequestContext, withMfaToken: boolean) {
  const form = context.body.form();
  const email = form.get('email')?.trim();
  const password = form.get('password');
  if (!email || !password) throw badRequest('email and password are required');

  const { state, now } = context;
  const user = state.userByEmail(email);
  const company = user ? state.companies.get(user.companyId) : undefined;
  const companyName = form.get('companyName')?.trim();
  if (!user || !company || user.password !== password) throw new SimHttpError(401, invalidCredentialsText);
  if (companyName && companyName.toLowerCase() !== company.name.toLowerCase())
    throw new SimHttpError(401, invalidCredentialsText);

  if (withMfaToken) checkMfaToken(user, form.get('token'));
  else if (user.mfaCode) throw new SimHttpError(401, mfaRequiredText);

  const previousLogin = user.lastLoginAt ?? now;
  user.lastLoginAt = now;
  // Any value but the exact string `true` asks for team sessions (platform-api.md, Authentication 3).
  return sessionsFor(context, user, company, previousLogin);
}

/** The sessions a login answers with, for a password login and an OAuth callback alike. */
function sessionsFor(context: RequestContext, user: User, company: Company, previousLogin: number) {
  const { state, now } = context;
  if (queryValue(context.query, 'getCompanySession') === 'true') {
    return json(200, companySession(state, user, company, state.createSession(user, 'company', now), previousLogin));
  }
  return json(
    200,
    state
      .teamsOf(user)
      .map((team) => teamSession(user, team.id, team.name, state.createSession(user, 'team', now, team.id))),
  );
}

/** Starts an OAuth login: the identity provider's URL, carrying a single-use `state` valid 10 minutes. */
function startOAuthLogin(context: RequestContext) {
  const companyName = queryValue(context.query, 'companyName')?.trim();
  const redirectUri = queryValue(context.query, 'redirectUri')?.trim();
  if (!companyName) throw badRequest('companyName is required');
  if (!redirectUri || !URL.canParse(redirectUri)) throw badRequest('redirectUri must be a URL');
  const company = [...context.state.companies.values()].find(
    (c) => c.name.toLowerCase() === companyName.toLowerCase() && c.sso,
  );
  if (!company) throw badRequest('no company of that name signs in with SSO');
  const state = randomBytes(24).toString('base64url');
  context.state.oauthStates.set(state, {
    companyId: company.id,
    redirectUri,
    expiresAt: context.now + oauthLifetimeMs,
    used: false,
  });
  const host = context.headers.host ?? '127.0.0.1';
  const authorize = new URL(`https://${host}${idpPrefix}/authorize`);
  authorize.searchParams.set('state', state);
  return text(200, authorize.toString());
}

/** Exchanges the provider's one-time code and the login's state for the person's sessions, once. */
function finishOAuthLogin(context: RequestContext) {
  const code = queryValue(context.query, 'code');
  const stateId = queryValue(context.query, 'state');
  if (!code || !stateId) throw badRequest('code and state are required');
  const { state, now } = context;
  const issued = state.oauthCodes.get(code);
  const started = state.oauthStates.get(stateId);
  const user = issued ? state.users.get(issued.userId) : undefined;
  const fail = (reason: string) => {
    if (user) state.samlFailures.push({ companyId: user.companyId, email: user.email, reason, at: now });
    return new SimHttpError(401, invalidCredentialsText);
  };
  if (!issued || !started || !user) throw fail('Unknown code or state');
  if (issued.used || started.used) throw fail('The code or state was used already');
  if (issued.state !== stateId) throw fail('The state does not belong to this code');
  if (issued.expiresAt <= now || started.expiresAt <= now) throw fail('The sign-in took longer than 10 minutes');
  issued.used = true;
  started.used = true;
  const company = state.companies.get(user.companyId)!;
  const previousLogin = user.lastLoginAt ?? now;
  user.lastLoginAt = now;
  return sessionsFor(context, user, company, previousLogin);
}

/** Why recent SSO sign-ins of the caller's company failed, newest first; for one person with `email`. */
function listSsoFailures({ caller, query, state }: SessionContext) {
  const email = queryValue(query, 'email')?.trim().toLowerCase();
  return json(
    200,
    state.samlFailures
      .filter((f) => f.companyId === caller.company.id && (!email || f.email.toLowerCase() === email))
      .sort((a, b) => b.at - a.at)
      .map((f) => ({ email: f.email, timestamp: isoTime(f.at), reason: f.reason })),
  );
}

function checkMfaToken(user: User, token: string | null): void {
  if (!token) throw new SimHttpError(401, mfaRequiredText);
  if (!/^\d{1,6}$/.test(token)) throw badRequest('token must be an integer of at most 999999');
  if (!user.mfaCode) throw badRequest('MFA is not enabled for this user');
  if (Number(token) !== Number(user.mfaCode)) throw new SimHttpError(401, invalidCredentialsText);
}

function sessionFields(session: Session, user: User) {
  return {
    expires_at: isoTime(session.expiresAt),
    header: `Bearer ${session.token}`,
    identifier: user.email,
    renew_token: session.renewToken,
    token: session.token,
  };
}

function teamSession(user: User, teamId: string, teamName: string, session: Session) {
  const role = user.teamRoles.get(teamId) ?? '';
  return { ...sessionFields(session, user), org_id: teamId, org_name: teamName, role: role.replace(/^TEAM_/, '') };
}

function companySession(state: SimState, user: User, company: Company, session: Session, previousLogin: number) {
  return {
    ...sessionFields(session, user),
    company_id: company.id,
    company_name: company.name,
    roles: user.companyRoles,
    privileges: companyPrivilegesOf(user),
    last_login: isoTime(previousLogin),
    teams: state.teamsOf(user).map((team) => ({
      identifier: team.id,
      name: team.name,
      company_id: team.companyId,
      roles: [user.teamRoles.get(team.id)],
      privileges: teamPrivilegesOf(user, team.id),
    })),
  };
}

function logOut({ caller }: SessionContext) {
  caller.session.loggedOut = true;
  return text(200, 'Logged out');
}

function requestPasswordReset({ body, state, now }: RequestContext) {
  const email = body.form().get('email')?.trim();
  if (!email) throw badRequest('email is required');
  // Recorded whether or not the address is known, and answered alike, so the call reveals nothing.
  state.passwordResets.push({ email, at: now });
  return text(200, 'If the address belongs to an account, a password reset e-mail has been sent');
}
