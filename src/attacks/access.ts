import type { PlatformClient, ScopedPlatform, TeamEntry } from '../client/index.ts';
import type { Actor, Login, SessionStore } from '../store/sessions.ts';
import { NoTeamSelectedError, NotLoggedInError } from '../errors.ts';

/** The actor's stored login, or NotLoggedInError (the adapter turns it into a Log in button). */
export async function requireLogin(deps: { sessions: SessionStore }, actor: Actor): Promise<Login> {
  const { login, expired } = await deps.sessions.lookup(actor);
  if (!login) throw new NotLoggedInError(expired);
  return login;
}

export function requireTeam(login: Login): TeamEntry {
  if (!login.team) throw new NoTeamSelectedError();
  return login.team;
}

/** The platform, called with the actor's session and, for team-scoped calls, the selected team. */
export function platformFor(
  deps: { platform: PlatformClient },
  login: Login,
  team: TeamEntry | undefined = login.team,
): ScopedPlatform {
  return deps.platform.as({ header: login.session.header, ...(team ? { teamId: team.identifier } : {}) });
}

export function teamName(team: TeamEntry): string {
  return team.name ?? team.identifier;
}

/** The team privilege the platform asks of a session to start an attack in a team. */
export const RUN_PRIVILEGE = 'EXPERIMENTS_RUN';

/** Whether the session may start attacks in the team, as the platform will decide it. */
export const mayRunAttacks = (team: TeamEntry): boolean => team.privileges.includes(RUN_PRIVILEGE);

/** Whether the session may halt an attack of the team (HALT_WRITE), as the platform will decide it. */
export const mayHalt = (team: TeamEntry): boolean => team.privileges.includes('HALT_WRITE');

/** Whether the session may halt every attack it reaches at once (HALT_ALL, a company privilege). */
export const mayHaltAll = (login: Login): boolean => login.session.privileges.includes('HALT_ALL');
