// The commands about the person's own session: whoami, team, logout, and SSO failures to help someone log in.
import type { Services } from '../../services.ts';
import {
  filterTeams,
  noTeamsText,
  TEAM_CHOICE,
  PICKER_AFTER_LOGIN,
  teamChosenModal,
  teamPickerModal,
  teamSelectedText,
  teamChoices,
} from '../../views/login/team.ts';
import { loggedInView } from '../../views/login/login.ts';
import { message, type OptionsHandler, type Submission, type SubmissionReply, subcommand } from '../command.ts';
import { z } from 'zod';
import { contract } from '../contract.ts';
import { matchTeam, teamUsage } from '../arguments.ts';
import {
  loggedOutText,
  loggedOutUnconfirmedText,
  notLoggedInText,
  ssoFailuresMessage,
  whoamiMessage,
} from '../../views/login/loginWords.ts';
import { teamName } from '../../attacks/access.ts';

export const teamCommand = subcommand({
  name: 'team',
  once: true,
  usage: teamUsage,
  summary: 'Choose the team every attack, list and halt uses. Without a name, opens a picker.',
  examples: ['team', 'team Payments', 'team 5c1b1f0e-…'],
  // A team's name may have spaces: every word is part of it.
  args: contract({ command: 'team', usage: teamUsage, rest: z.array(z.string()) }),
  async run(request, args, services) {
    const login = await services.login.require(request.actor);
    const teams = login.session.teams;
    if (teams.length === 0) return message(noTeamsText);
    const query = args.rest.join(' ').trim();
    if (!query) return { kind: 'openModal', view: teamPickerModal(teamChoices(teams), login.team?.identifier) };
    const team = matchTeam(teams, query);
    await services.login.selectTeam(request.actor, team, login);
    return message(teamSelectedText(teamName(team)));
  },
});

export async function submitTeamPicker(submission: Submission, services: Services): Promise<SubmissionReply> {
  const login = await services.login.selectOwnTeam(submission.actor, submission.inputs[TEAM_CHOICE]);
  if (!login?.team) return { kind: 'errors', errors: { [TEAM_CHOICE]: 'Choose one of your teams.' } };
  if (submission.privateMetadata !== PICKER_AFTER_LOGIN)
    return { kind: 'update', view: teamChosenModal(teamName(login.team)) };
  return { kind: 'update', view: loggedInView(login, services.command) };
}

/** Options for the external team select (more than 100 teams), filtered as the person types. */
export const suggestTeams: OptionsHandler = async (request, services) => {
  const login = await services.login.current(request.actor);
  if (!login) return [];
  return filterTeams(teamChoices(login.session.teams), request.query).map((t) => ({ text: t.name, value: t.id }));
};

export const whoamiCommand = subcommand({
  name: 'whoami',
  usage: 'whoami',
  summary: 'Shows your platform login, company, current team, roles, privileges and when the session ends.',
  examples: ['whoami'],
  args: contract({ command: 'whoami', usage: 'whoami' }),
  async run(request, _args, { login, command }) {
    return { kind: 'message', message: whoamiMessage(await login.require(request.actor), command) };
  },
});

export const logoutCommand = subcommand({
  name: 'logout',
  usage: 'logout',
  summary: 'Ends your platform session and forgets it.',
  examples: ['logout'],
  args: contract({ command: 'logout', usage: 'logout' }),
  async run(request, _args, { login }) {
    const outcome = await login.logOut(request.actor);
    if (outcome.kind === 'none') return message(notLoggedInText);
    return message(outcome.platformConfirmed ? loggedOutText : loggedOutUnconfirmedText);
  },
});

const ssoUsage = 'sso failures [email]';

/**
 * `sso failures [email]`: why the company's recent single sign-ons failed (newest first), for a
 * security reader (COMPANY_SECURITY_READ) helping someone from Slack. The platform decides who
 * may read them; a refusal says which privilege is missing.
 */
export const ssoCommand = subcommand({
  name: 'sso',
  usage: ssoUsage,
  summary: "Shows the company's recent single sign-on failures, or one person's (needs COMPANY_SECURITY_READ).",
  examples: ['sso failures', 'sso failures dana@acme.example'],
  args: contract({
    command: 'sso',
    usage: ssoUsage,
    words: {
      what: z.literal('failures', { error: 'Say which: `sso failures [email]`.' }),
      email: z.email({ error: 'That is not an e-mail address.' }).optional(),
    },
  }),
  async run(request, { words }, { login }) {
    const failures = await login.ssoFailures(request.actor, words.email);
    return { kind: 'message', message: ssoFailuresMessage(failures, words.email) };
  },
});
