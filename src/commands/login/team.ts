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
import { message, type OptionsHandler, type Submission, type SubmissionReply } from '../reply.ts';
import { z } from 'zod';
import { subcommand } from '../command.ts';
import { contract } from '../contract.ts';
import { matchTeam, teamUsage } from '../arguments.ts';
import { teamName } from '../../attacks/access.ts';

const usage = teamUsage;

export const teamCommand = subcommand({
  name: 'team',
  once: true,
  usage,
  summary: 'Choose the team every attack, list and halt uses. Without a name, opens a picker.',
  examples: ['team', 'team Payments', 'team 5c1b1f0e-…'],
  // A team's name may have spaces: every word is part of it.
  args: contract({ command: 'team', usage, rest: z.array(z.string()) }),
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
  const login = await services.login.require(submission.actor);
  const team = login.session.teams.find((t) => t.identifier === submission.inputs[TEAM_CHOICE]);
  // A team id that is not among the person's own teams is never used, whatever the payload says.
  if (!team) return { kind: 'errors', errors: { [TEAM_CHOICE]: 'Choose one of your teams.' } };
  await services.login.selectTeam(submission.actor, team, login);
  if (submission.privateMetadata !== PICKER_AFTER_LOGIN)
    return { kind: 'update', view: teamChosenModal(teamName(team)) };
  return { kind: 'update', view: loggedInView({ ...login, team }, services.command) };
}

/** Options for the external team select (more than 100 teams), filtered as the person types. */
export const suggestTeams: OptionsHandler = async (request, services) => {
  const login = await services.login.current(request.actor);
  if (!login) return [];
  return filterTeams(teamChoices(login.session.teams), request.query).map((t) => ({ text: t.name, value: t.id }));
};
