import { UnauthorizedError } from '../client/errors.ts';
import { audit } from '../audit.ts';
import type { LoginParts } from './service.ts';
import type { Actor, Login, Person } from '../store/sessions.ts';

/** How ending a session went: nothing to end, ended, or forgotten here though the platform did not confirm. */
export type LogOutOutcome = { kind: 'none' } | { kind: 'ended'; login: Login; platformConfirmed: boolean };

/**
 * Ends a person's platform session and forgets it: the `logout` command, and the owner of a
 * login's e-mail ending the session it gave someone else (`by` is then that owner). With `only`,
 * ends the session only while it is still that platform login's.
 */
export async function logOut(
  person: Person & Pick<Actor, 'userName'>,
  parts: LoginParts,
  options: { only?: (login: Login) => boolean; by?: Pick<Actor, 'workspaceId' | 'userId' | 'userName'> } = {},
): Promise<LogOutOutcome> {
  const login = await parts.sessions.get(person);
  if (!login || (options.only && !options.only(login))) return { kind: 'none' };
  let platformConfirmed = true;
  try {
    await parts.platform.auth.logout({ header: login.session.header });
  } catch (error) {
    // A session the platform already dropped is as good as logged out; anything else is said.
    if (!(error instanceof UnauthorizedError)) {
      parts.logger.warn({ err: error }, 'platform logout failed');
      platformConfirmed = false;
    }
  }
  await parts.sessions.drop(person);
  audit(parts.logger, 'logout', options.by ?? person, {
    platformUser: login.session.identifier,
    platformConfirmed,
    ...(options.by ? { endedFor: `${person.workspaceId}:${person.userId}` } : {}),
  });
  return { kind: 'ended', login, platformConfirmed };
}
