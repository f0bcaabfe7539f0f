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
import type { Company, Session, SimState, User } from '../state.ts';

export const invalidCredentialsText = 'Invalid credentials';
export const mfaRequiredText = 'MFA token required';

export const authRoutes: Route[] = [
  publicRoute('POST', '/users/auth', (context) => logIn(context, false)),
  companyRoute('DELETE', '/users/auth', 'MINIMUM_COMPANY_PRIVILEGES', logOut),
  publicRoute('POST', '/users/auth/mfa/auth', (context) => logIn(context, true)),
  publicRoute('POST', '/users/auth/password/reset', requestPasswordReset),
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
