import { UnauthorizedError } from '../client/errors.ts';
import type { CompanySession, LoginInput } from '../client/index.ts';
import { audit } from '../audit.ts';
import type { Deps } from '../deps.ts';
import type { Actor } from '../store/sessions.ts';
import { LoginLimits } from './limits.ts';

/** How a login attempt ended, whichever form it came from. */
export type LoginOutcome =
  | { kind: 'loggedIn'; session: CompanySession; teamSelected: boolean }
  /** The platform wants the current MFA code (none was given). */
  | { kind: 'mfaRequired' }
  /** E-mail, password, company or MFA code not accepted; counted against the person's limit. */
  | { kind: 'rejected'; mfaCodeGiven: boolean }
  /** Too many failed logins: no platform call was made. */
  | { kind: 'locked'; until: Date }
  /** Another attempt of the same person is still running. */
  | { kind: 'busy' };

/**
 * The one way a person logs in, from the Slack modal or the secure page: checks the person's
 * failed-login limit, asks the platform, counts a refusal, and on success stores the session,
 * selects the only team when there is one, and writes the audit line. Other platform failures
 * (unreachable, 5xx…) are thrown for the caller to describe; they are not the person's fault.
 */
export async function logIn(actor: Actor, input: LoginInput, deps: Deps): Promise<LoginOutcome> {
  const limits = new LoginLimits(deps.store, deps.clock.now);
  const outcome = await limits.oneAtATime(actor, async (): Promise<LoginOutcome> => {
    const until = await limits.personBlockedUntil(actor);
    if (until) {
      deps.logger.warn(
        { slackWorkspace: actor.workspaceId, slackUser: actor.userId },
        'login refused: too many failed logins',
      );
      return { kind: 'locked', until };
    }
    let session: CompanySession;
    try {
      session = await deps.platform.auth.login(input);
    } catch (error) {
      if (!(error instanceof UnauthorizedError)) throw error;
      if (error.reason === 'mfa_required' && !input.mfaCode) return { kind: 'mfaRequired' };
      await limits.recordPersonFailure(actor);
      deps.logger.info(
        { slackWorkspace: actor.workspaceId, slackUser: actor.userId },
        'login not accepted by the platform',
      );
      return { kind: 'rejected', mfaCodeGiven: Boolean(input.mfaCode) };
    }
    await deps.sessions.save(actor, session);
    audit(deps.logger, 'login', actor, {
      platformUser: session.identifier ?? input.email,
      company: session.company_id,
      teams: session.teams.length,
    });
    const only = session.teams.length === 1 ? session.teams[0] : undefined;
    if (only) await deps.sessions.selectTeam(actor, only.identifier);
    return { kind: 'loggedIn', session, teamSelected: only !== undefined };
  });
  return outcome ?? { kind: 'busy' };
}
