import type { IncomingHttpHeaders } from 'node:http';
import { privilegesOfCompanyRoles, privilegesOfTeamRole, type Privilege } from './roles.ts';
import { badRequest, queryValue, SimHttpError, type Access, type Caller, type Grant, type Query } from './route.ts';
import type { SimState, User } from './state.ts';

export const unauthorizedText = 'Unauthorized: please provide proper credentials in the Authorization header';
export const httpsRequiredText = 'Authentication endpoints require HTTPS: please retry using HTTPS';

export function teamPrivilegeText(privilege: Privilege): string {
  return `User requires privilege for target team: ${privilege}`;
}

export function companyPrivilegeText(privilege: Privilege): string {
  return `User requires privilege: ${privilege}`;
}

/** The authentication rows of platform-api.md, which the platform serves over HTTPS only. */
export function requiresHttps(path: string): boolean {
  return /^\/users\/auth(\/|$)/.test(path) || /^\/oauth(\/|$)/.test(path);
}

interface AccessRequest {
  headers: IncomingHttpHeaders;
  query: Query;
  state: SimState;
  now: number;
}

/** Checks the caller against a route's access rule; throws the platform's 401/403/400 answers. */
export function authorize(access: Access, request: AccessRequest): Grant {
  if (access.scope === 'public') return {};
  const caller = authenticate(request);
  if (access.scope === 'session') return { caller };

  if (access.scope === 'company') {
    if (!companyPrivilegesOf(caller.user).includes(access.privilege)) {
      throw new SimHttpError(403, companyPrivilegeText(access.privilege));
    }
    return { caller };
  }

  const { session, user } = caller;
  const requested = queryValue(request.query, 'teamId');
  let teamId: string;
  if (session.kind === 'team') {
    // An org session only ever reaches its own org.
    if (requested !== undefined && requested !== session.teamId)
      throw new SimHttpError(403, teamPrivilegeText(access.privilege));
    teamId = session.teamId ?? '';
  } else {
    if (!requested) throw badRequest('the teamId query parameter is required with a company session');
    teamId = requested;
  }
  const team = request.state.teams.get(teamId);
  if (!team || team.companyId !== user.companyId || !teamPrivilegesOf(user, team.id).includes(access.privilege)) {
    throw new SimHttpError(403, teamPrivilegeText(access.privilege));
  }
  return { caller, team };
}

function authenticate({ headers, state, now }: AccessRequest): Caller {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '');
  const session = match?.[1] ? state.liveSession(match[1], now) : undefined;
  const user = session ? state.users.get(session.userId) : undefined;
  const company = user ? state.companies.get(user.companyId) : undefined;
  if (!session || !user || !company) throw new SimHttpError(401, unauthorizedText);
  return { session, user, company };
}

export function companyPrivilegesOf(user: User): string[] {
  return privilegesOfCompanyRoles(user.companyRoles);
}

export function teamPrivilegesOf(user: User, teamId: string): readonly string[] {
  return privilegesOfTeamRole(user.teamRoles.get(teamId));
}
