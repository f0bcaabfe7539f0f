import type { Deps } from '../deps.ts';
import type { Person } from '../store/sessions.ts';
import { LoginLimits } from './limits.ts';

/** How asking for a reset e-mail ended: sent, or refused until a limit lets one through again. */
export type ResetOutcome = { kind: 'sent' } | { kind: 'limited'; until: Date };

/**
 * The one way a reset e-mail is asked for, from the Slack form or the secure page: counted
 * against the person and the target address first, so neither can be used to flood an inbox.
 * Platform failures are thrown for the caller to describe.
 */
export async function requestPasswordReset(person: Person, email: string, deps: Deps): Promise<ResetOutcome> {
  const until = await new LoginLimits(deps.store, deps.clock.now).takeReset(person, email);
  if (until) {
    deps.logger.warn(
      { slackWorkspace: person.workspaceId, slackUser: person.userId },
      'password reset refused: too many reset e-mails asked for',
    );
    return { kind: 'limited', until };
  }
  await deps.platform.auth.resetPassword(email);
  return { kind: 'sent' };
}
