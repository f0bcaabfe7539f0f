import { UnauthorizedError } from '../client/errors.ts';
import type { CompanySession, LoginInput } from '../client/index.ts';
import { audit } from '../audit.ts';
import type { LoginParts, SlackIdentity } from './service.ts';
import type { Actor, Person } from '../store/sessions.ts';
import { LoginLimits } from './limits.ts';

/** The login form's fields a person may get wrong, as the Slack form and the page both name them. */
export type LoginField = 'email' | 'password' | 'mfa';

/** An e-mail address as the forms take it, before the platform is asked. */
export const looksLikeEmail = (text: string) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text.trim());

/** The login form read by field name, tidied alike from the Slack form and the page. */
export function readLoginForm(field: (name: LoginField | 'company') => string | undefined): LoginInput {
  return {
    email: field('email')?.trim() ?? '',
    password: field('password') ?? '',
    companyName: field('company')?.trim() || undefined,
    mfaCode: field('mfa')?.replace(/\s/g, '') || undefined,
  };
}

/** The fields of a login that will not do, before anything is counted or asked. */
export function invalidFields({ email, password, mfaCode }: LoginInput): LoginField[] {
  const invalid: LoginField[] = [];
  if (!looksLikeEmail(email)) invalid.push('email');
  if (!password) invalid.push('password');
  if (mfaCode !== undefined && !/^\d{6}$/.test(mfaCode)) invalid.push('mfa');
  return invalid;
}

/** How a login reads the person's Slack profile: the Slack form asks Slack, the page the profile its link kept. */
export type ProfileReader = () => Promise<SlackIdentity | undefined>;

/** Two e-mail addresses are one when they differ only in case or surrounding space, as Slack matches them. */
export function sameEmail(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b) return false;
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

/** LOGIN_EMAIL_MATCH=required, and Slack gave no e-mail to match (`noEmail`) or could not be asked. */
type EmailUnknown = { kind: 'emailUnknown'; reason: 'noEmail' | 'slackUnavailable' };

/** Why a profile cannot be matched against, or undefined when it has an e-mail. */
const emailUnknown = (profile: SlackIdentity | undefined): EmailUnknown | undefined =>
  profile?.email ? undefined : { kind: 'emailUnknown', reason: profile ? 'noEmail' : 'slackUnavailable' };

/** The person a log line is about, by Slack ids only. */
const who = (person: Person) => ({ slackWorkspace: person.workspaceId, slackUser: person.userId });

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
  | EmailUnknown;

/** How asking for a reset e-mail ended: sent, or why not. */
export type ResetOutcome =
  | { kind: 'sent' }
  /** No e-mail address was typed: nothing counted or sent. */
  | { kind: 'invalid' }
  /** Refused until a limit lets one through again. */
  | { kind: 'limited'; until: Date }
  /** LOGIN_EMAIL_MATCH=required, and the address is not the asker's Slack e-mail: nothing sent. */
  | { kind: 'notOwnEmail' }
  | EmailUnknown;

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
      parts.logger.warn(who(actor), 'login refused: too many failed logins');
      return { kind: 'locked', until };
    }
    const matching = parts.config.login.emailMatch === 'required';
    let slackEmail: string | undefined;
    if (matching) {
      const profile = await (input.profile ?? (() => parts.directory.person(actor.userId)))();
      const unknown = emailUnknown(profile);
      if (unknown) return unknown;
      slackEmail = profile?.email;
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
      parts.logger.info(who(actor), 'login not accepted by the platform');
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
  parts.logger.warn(who(actor), "login refused: its e-mail is not the person's Slack e-mail");
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
      { ...who(actor), toldSlackUser: owner.userId },
      "told the owner of a login's e-mail that it was linked to another Slack person",
    );
  } catch (error) {
    parts.logger.warn({ err: error }, "could not tell the owner of a login's e-mail that it was linked elsewhere");
  }
}

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
  if (!looksLikeEmail(email)) return { kind: 'invalid' };
  const slack = await profile();
  const own = sameEmail(email, slack?.email);
  if (parts.config.login.emailMatch === 'required' && !own) {
    const unknown = emailUnknown(slack);
    if (unknown) return unknown;
    parts.logger.warn(who(person), "password reset refused: the address is not the person's Slack e-mail");
    return { kind: 'notOwnEmail' };
  }
  const until = await new LoginLimits(parts.store, parts.clock.now).takeReset(person, email, { own });
  if (until) {
    parts.logger.warn(who(person), 'password reset refused: too many reset e-mails asked for');
    return { kind: 'limited', until };
  }
  await parts.platform.auth.resetPassword(email);
  return { kind: 'sent' };
}
