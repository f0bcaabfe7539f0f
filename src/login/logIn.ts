import { UnauthorizedError } from '../client/errors.ts';
import type { CompanySession, LoginInput } from '../client/index.ts';
import { audit } from '../audit.ts';
import type { LoginParts } from './service.ts';
import type { Actor } from '../store/sessions.ts';
import { type ProfileReader, sameEmail } from './identity.ts';
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
  | { kind: 'busy' }
  /** LOGIN_EMAIL_MATCH=required, and the login's e-mail is not the Slack person's: nothing stored. */
  | { kind: 'emailMismatch'; loginEmail: string }
  /** LOGIN_EMAIL_MATCH=required, and Slack gave no e-mail to match (`noEmail`) or could not be asked. */
  | { kind: 'emailUnknown'; reason: 'noEmail' | 'slackUnavailable' };

/**
 * The one way a person logs in, from the Slack modal or the secure page: checks the person's
 * failed-login limit, matches the login's e-mail to the person's Slack e-mail (unless
 * LOGIN_EMAIL_MATCH=off), asks the platform, counts a refusal, and on success stores the session,
 * selects the only team when there is one, and writes the audit line. Other platform failures
 * (unreachable, 5xx…) are thrown for the caller to describe; they are not the person's fault.
 *
 * `profile` reads the person's Slack profile; the page passes the one its link kept.
 *
 * The e-mail match is what keeps a login link from lending a session: a link (or a Slack form)
 * is made for one Slack person, and whoever logs in on it must be that person on the platform.
 */
export function logIn(
  actor: Actor,
  input: LoginInput,
  parts: LoginParts,
  profile?: ProfileReader,
): Promise<LoginOutcome> {
  return signIn(actor, parts, {
    typedEmail: input.email,
    mfaCode: input.mfaCode,
    session: () => parts.platform.auth.login(input),
    profile,
  });
}

/**
 * A single sign-on's end: the identity provider's code exchanged for a session, then matched,
 * stored and confirmed exactly as a password login is.
 */
export function logInWithSso(
  actor: Actor,
  exchange: { code: string; state: string },
  parts: LoginParts,
  profile?: ProfileReader,
) {
  return signIn(actor, parts, { session: () => parts.platform.auth.finishSso(exchange), profile });
}

/** How a session is obtained: by password (with the e-mail typed, checked before asking) or by SSO. */
interface Credentials {
  typedEmail?: string;
  mfaCode?: string | undefined;
  session: () => Promise<CompanySession>;
  /** The person's Slack profile, as the login link kept it; asked of Slack when not given. */
  profile?: ProfileReader | undefined;
}

async function signIn(actor: Actor, parts: LoginParts, input: Credentials): Promise<LoginOutcome> {
  const limits = new LoginLimits(parts.store, parts.clock.now);
  const outcome = await limits.oneAtATime(actor, async (): Promise<LoginOutcome> => {
    const until = await limits.personBlockedUntil(actor);
    if (until) {
      parts.logger.warn(
        { slackWorkspace: actor.workspaceId, slackUser: actor.userId },
        'login refused: too many failed logins',
      );
      return { kind: 'locked', until };
    }
    const matching = parts.config.login.emailMatch === 'required';
    let slackEmail: string | undefined;
    if (matching) {
      const profile = await (input.profile ?? (() => parts.directory.person(actor.userId)))();
      if (!profile) return { kind: 'emailUnknown', reason: 'slackUnavailable' };
      if (!profile.email) return { kind: 'emailUnknown', reason: 'noEmail' };
      slackEmail = profile.email;
      // Checked before the platform is asked: a password never leaves for a login that cannot be linked.
      if (input.typedEmail !== undefined && !sameEmail(input.typedEmail, slackEmail))
        return mismatch(actor, input.typedEmail, parts);
    }
    let session: CompanySession;
    try {
      session = await input.session();
    } catch (error) {
      if (!(error instanceof UnauthorizedError)) throw error;
      if (error.reason === 'mfa_required' && !input.mfaCode) return { kind: 'mfaRequired' };
      await limits.recordPersonFailure(actor);
      parts.logger.info(
        { slackWorkspace: actor.workspaceId, slackUser: actor.userId },
        'login not accepted by the platform',
      );
      return { kind: 'rejected', mfaCodeGiven: Boolean(input.mfaCode) };
    }
    const platformUser = session.identifier ?? input.typedEmail ?? '';
    if (matching && !sameEmail(platformUser, slackEmail)) {
      // The platform says the login is another address than the one typed: end it, keep nothing.
      await parts.platform.auth.logout({ header: session.header }).catch(() => undefined);
      return mismatch(actor, platformUser, parts);
    }
    await parts.sessions.save(actor, session);
    audit(parts.logger, 'login', actor, { platformUser, company: session.company_id, teams: session.teams.length });
    if (!matching) await tellEmailOwner(actor, platformUser, parts);
    const only = session.teams.length === 1 ? session.teams[0] : undefined;
    if (only) await parts.sessions.selectTeam(actor, only.identifier);
    return { kind: 'loggedIn', session, teamSelected: only !== undefined };
  });
  return outcome ?? { kind: 'busy' };
}

function mismatch(actor: Actor, loginEmail: string, parts: LoginParts): LoginOutcome {
  parts.logger.warn(
    { slackWorkspace: actor.workspaceId, slackUser: actor.userId },
    "login refused: its e-mail is not the person's Slack e-mail",
  );
  return { kind: 'emailMismatch', loginEmail };
}

/**
 * With LOGIN_EMAIL_MATCH=off a login may be linked to any Slack person: when it went to someone
 * whose e-mail is not the login's, and a Slack person has the login's e-mail, that person is told
 * (with a button that ends the session). Never throws: the login itself is done.
 */
async function tellEmailOwner(actor: Actor, platformUser: string, parts: LoginParts): Promise<void> {
  try {
    // Slack e-mails are unique in a workspace: someone else holding it means the actor does not.
    const owner = await parts.directory.byEmail(platformUser);
    if (!owner || owner.userId === actor.userId) return;
    const [linkedTo, workspace] = await Promise.all([
      parts.directory.person(actor.userId),
      parts.directory.workspaceName(),
    ]);
    await parts.linkNotices.tell(owner, {
      platformUser,
      linkedTo: {
        workspaceId: actor.workspaceId,
        userId: actor.userId,
        name: linkedTo?.name ?? actor.userName,
        handle: linkedTo?.handle ?? actor.userName,
      },
      workspace,
    });
    parts.logger.info(
      { slackWorkspace: actor.workspaceId, slackUser: actor.userId, toldSlackUser: owner.userId },
      "told the owner of a login's e-mail that it was linked to another Slack person",
    );
  } catch (error) {
    parts.logger.warn({ err: error }, "could not tell the owner of a login's e-mail that it was linked elsewhere");
  }
}
