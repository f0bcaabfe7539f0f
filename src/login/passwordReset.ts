import type { LoginParts } from './service.ts';
import type { Person } from '../store/sessions.ts';
import { type ProfileReader, sameEmail } from './identity.ts';
import { LoginLimits } from './limits.ts';

/** How asking for a reset e-mail ended: sent, or why not. */
export type ResetOutcome =
  | { kind: 'sent' }
  /** Refused until a limit lets one through again. */
  | { kind: 'limited'; until: Date }
  /** LOGIN_EMAIL_MATCH=required, and the address is not the asker's Slack e-mail: nothing sent. */
  | { kind: 'notOwnEmail' }
  /** LOGIN_EMAIL_MATCH=required, and Slack gave no e-mail to match (`noEmail`) or could not be asked. */
  | { kind: 'emailUnknown'; reason: 'noEmail' | 'slackUnavailable' };

/**
 * The one way a reset e-mail is asked for, from the Slack form or the secure page. With
 * LOGIN_EMAIL_MATCH=required it goes only to the asker's own Slack e-mail; any other address is
 * refused before anything is counted or sent, with the same answer whether or not the platform
 * knows it. Then it is counted against the person, and, unless the address is the asker's own
 * Slack e-mail, against the address: so neither can be used to flood an inbox, and other
 * people's asks for an address never use up its owner's. `profile` reads the asker's Slack
 * profile (the page passes the one its link kept). Platform failures are thrown for the caller.
 */
export async function requestPasswordReset(
  person: Person,
  email: string,
  parts: LoginParts,
  profile: ProfileReader = () => parts.directory.person(person.userId),
): Promise<ResetOutcome> {
  const slack = await profile();
  const own = sameEmail(email, slack?.email);
  if (parts.config.login.emailMatch === 'required' && !own) {
    const who = { slackWorkspace: person.workspaceId, slackUser: person.userId };
    if (!slack) return { kind: 'emailUnknown', reason: 'slackUnavailable' };
    if (!slack.email) return { kind: 'emailUnknown', reason: 'noEmail' };
    parts.logger.warn(who, "password reset refused: the address is not the person's Slack e-mail");
    return { kind: 'notOwnEmail' };
  }
  const until = await new LoginLimits(parts.store, parts.clock.now).takeReset(person, email, { own });
  if (until) {
    parts.logger.warn(
      { slackWorkspace: person.workspaceId, slackUser: person.userId },
      'password reset refused: too many reset e-mails asked for',
    );
    return { kind: 'limited', until };
  }
  await parts.platform.auth.resetPassword(email);
  return { kind: 'sent' };
}
