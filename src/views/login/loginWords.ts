import type { KnownBlock } from '@slack/types';
import { actions, button, context, fields, section, escapeMrkdwn, slackDate, plural } from '../blocks.ts';
import { teamName } from '../../attacks/access.ts';
import type { LoginField } from '../../login/logIn.ts';
import type { SsoFailure } from '../../client/auth.ts';
import type { Login } from '../../store/sessions.ts';
import { type Message, textMessage } from '../message.ts';
import { END_LINKED_SESSION_BUTTON, LOGIN_BUTTON, pageButton } from './login.ts';
import { accountLockedText } from './pageWords.ts';

/** The direct message confirming a login made on the secure page. */
export function pageLoginConfirmation(summary: {
  identifier: string;
  company: string;
  team: string | undefined;
  severalTeams: boolean;
  command: string;
  chooseTeamAction: string;
}): { text: string; blocks: KnownBlock[] } {
  const text = escapeMrkdwn(`Logged in as ${summary.identifier} at ${summary.company} on the secure login page.`);
  const who = `:white_check_mark: Logged in as *${escapeMrkdwn(summary.identifier)}* at *${escapeMrkdwn(summary.company)}* on the secure login page.`;
  if (summary.severalTeams) {
    return {
      text,
      blocks: [
        section(`${who}\nYou belong to several teams: choose the one to work in.`),
        actions('login_confirmation', [button('Choose a team', summary.chooseTeamAction, { style: 'primary' })]),
      ],
    };
  }
  const team = summary.team
    ? `Team: *${escapeMrkdwn(summary.team)}*.`
    : `No team selected yet: run \`${summary.command} team\`.`;
  return {
    text,
    blocks: [
      section(`${who}\n${team}`),
      context(`If this was not you, run \`${summary.command} logout\` and tell whoever runs Faultline.`),
    ],
  };
}

/** The one direct message sent when a session ends soon while the person's attacks still run. */
export function expiryWarningMessage(warning: {
  expiresAt: Date;
  liveAttacks: number;
  secureUrl: string | undefined;
}): { text: string; blocks: KnownBlock[] } {
  const attacks =
    warning.liveAttacks === 1 ? 'an attack you started is' : `${warning.liveAttacks} attacks you started are`;
  const text = `Your platform session ends soon while ${attacks} still running. Log in again to keep control of them.`;
  const words = `:hourglass_flowing_sand: Your platform session ends at ${slackDate(warning.expiresAt, '{time}')} while ${attacks} still running. Log in again now, so that you can still halt them from Slack.`;
  const buttons = warning.secureUrl
    ? [pageButton(warning.secureUrl), button('Log in', LOGIN_BUTTON)]
    : [button('Log in', LOGIN_BUTTON, { style: 'primary' })];
  return { text, blocks: [section(words), actions('login_expiry', buttons)] };
}

/** "Try again at 14:32", in the reader's own time zone. */
export const lockedNotice = (until: Date) => accountLockedText(slackDate(until, '{time}'));

/** `logout` with no session to end. */
export const notLoggedInText = 'You were not logged in. Nothing to do.';

/** `logout` that the platform ended too. */
export const loggedOutText =
  ':wave: Logged out: the platform ended your session, and Faultline no longer holds one for you.';

/** `logout` that the platform could not be told of: the session is forgotten here, and expires there. */
export const loggedOutUnconfirmedText =
  'Faultline forgot your session, but the platform could not be told to end it. It ends by itself when it expires.';

function list(values: readonly string[] | undefined): string {
  return values?.length ? values.map((v) => `\`${v}\``).join(' ') : '_none_';
}

/** `whoami`: the login, company, team, roles and privileges, and when the session ends. */
export function whoamiMessage({ session, team, expiresAt }: Login, command: string): Message {
  const text = escapeMrkdwn(
    `Logged in as ${session.identifier ?? 'unknown'} at ${session.company_name ?? 'unknown company'}, team ${team ? teamName(team) : 'none'}.`,
  );
  return {
    text,
    blocks: [
      section(
        `Logged in as *${escapeMrkdwn(session.identifier ?? 'unknown')}* at *${escapeMrkdwn(session.company_name ?? 'unknown company')}*.`,
      ),
      fields([
        ['Current team', team ? escapeMrkdwn(teamName(team)) : `none: choose one with \`${command} team\``],
        ['Session ends', slackDate(expiresAt)],
        ['Company roles', list(session.roles)],
        ['Company privileges', list(session.privileges)],
        ['Team roles', team ? list(team.roles) : '_no team_'],
        ['Team privileges', team ? list(team.privileges) : '_no team_'],
      ]),
      context(
        `${plural(session.teams.length, 'team')} in all. \`${command} team\` switches, \`${command} logout\` ends the session.`,
      ),
    ],
  };
}

/** The login form's field errors, which the secure page shows too. */
export const loginFieldText: Record<LoginField, string> = {
  email: 'Enter the e-mail address you log in to the platform with.',
  password: 'Enter your password.',
  mfa: 'The MFA code is 6 digits.',
};

/** A login the platform refused: the e-mail or password, or the MFA code when one was given. */
export const loginRejectedText = (mfaCodeGiven: boolean) =>
  mfaCodeGiven
    ? 'E-mail, password or MFA code not accepted. Check them and try again.'
    : 'E-mail or password not accepted. Check them and try again.';

export const loginBusyText = 'Another login of yours is under way. Wait a moment, then try again.';

/** The form's MFA field, once the platform asked for a code. */
export const mfaRequiredText = 'Your account uses MFA: enter the current 6-digit code from your authenticator app.';

/** The reset form with no usable e-mail address. */
export const enterResetEmailText = 'Enter the e-mail address you log in with.';

/**
 * A login whose e-mail is not the Slack person's (LOGIN_EMAIL_MATCH=required). `whose` names the
 * person on the page (whoever holds it may not be them); the Slack form speaks to them directly.
 */
export const emailMismatchText = (loginEmail: string, whose?: string) =>
  whose
    ? `${loginEmail} is not the e-mail of ${whose}'s Slack profile, so the login was not linked. This page logs in ${whose} only: if you are not ${whose}, close it.`
    : `${loginEmail} is not the e-mail of your Slack profile. Log in with your own platform account, whose e-mail is the one in your Slack profile.`;

/** The Slack e-mail a login is matched against could not be read. */
export const emailUnknownText = (reason: 'noEmail' | 'slackUnavailable') =>
  reason === 'noEmail'
    ? 'Your Slack profile shows no e-mail address, so Faultline cannot check that this login is yours. Ask whoever runs Faultline.'
    : 'Faultline could not read your Slack profile to check that this login is yours. Try again in a minute.';

/** Who a login is linked to: `@handle` after the name, as Slack people know each other. */
const slackAccount = (person: { name: string; handle: string }) => `${person.name} (@${person.handle})`;

/** The direct message to the owner of a login's e-mail that was just linked to another Slack person. */
export function linkedElsewhereMessage(linked: {
  platformUser: string;
  linkedTo: { workspaceId: string; userId: string; name: string; handle: string };
  workspace: string | undefined;
}): Message {
  const where = linked.workspace ? ` in ${linked.workspace}` : '';
  const text = escapeMrkdwn(
    `Your platform login ${linked.platformUser} was just linked to the Slack account of ${slackAccount(linked.linkedTo)}${where}. Faultline acts for them with your platform account until that session ends.`,
  );
  return {
    text,
    blocks: [
      section(`:warning: ${text}`),
      context('If you did not log in for them, end that session now, then change your password.'),
      actions('login_linked_elsewhere', [
        button('End that session', END_LINKED_SESSION_BUTTON, {
          style: 'danger',
          value: JSON.stringify({
            w: linked.linkedTo.workspaceId,
            u: linked.linkedTo.userId,
            n: linked.linkedTo.name,
            h: linked.linkedTo.handle,
          }),
        }),
      ]),
    ],
  };
}

/** "End that session", done. */
export const linkedSessionEndedText = (person: { name: string; handle: string }, platformUser: string) =>
  `Ended: ${slackAccount(person)} is no longer logged in as ${platformUser}.`;

/** "End that session", when the session is no longer the clicker's login (ended, or another one since). */
export const linkedSessionGoneText = (person: { name: string; handle: string }) =>
  `${slackAccount(person)} is no longer logged in with your platform login. Nothing to end.`;

/** How many failures a reply lists; the platform keeps more. */
export const ssoFailuresShown = 15;

/** `sso failures [email]`: the newest first, each with when, who and why. */
export function ssoFailuresMessage(failures: SsoFailure[], email: string | undefined): Message {
  const whose = email ? ` of ${escapeMrkdwn(email)}` : '';
  if (failures.length === 0) return textMessage(`No recent single sign-on failures${whose}.`);
  const shown = failures.slice(0, ssoFailuresShown);
  const lines = shown.map(
    (f) =>
      `• ${escapeMrkdwn(f.timestamp.replace('T', ' ').slice(0, 16))} UTC · ${escapeMrkdwn(f.email)}: ${escapeMrkdwn(f.reason)}`,
  );
  const text = `Recent single sign-on failures${whose}, newest first:`;
  return {
    text: `${text} ${plural(failures.length, 'failure')}.`,
    blocks: [
      section(`*${text}*\n${lines.join('\n')}`),
      ...(failures.length > shown.length
        ? [context(`And ${plural(failures.length - shown.length, 'older one')}.`)]
        : []),
    ],
  };
}
