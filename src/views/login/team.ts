import type { ModalView, PlainTextOption } from '@slack/types';
import { context, input, limits, modal, plain, section, escapeMrkdwn, plural } from '../blocks.ts';
import { teamName } from '../../attacks/access.ts';
import type { TeamEntry } from '../../client/index.ts';
import type { Login } from '../../store/sessions.ts';
import { loggedInView } from './login.ts';

export const TEAM_PICKER_VIEW = 'team_picker';
export const TEAM_CHOICE = 'team_choice';

export interface TeamChoice {
  id: string;
  name: string;
}

/** The person's teams as a picker lists them. */
export const teamChoices = (teams: TeamEntry[]): TeamChoice[] =>
  teams.map((team) => ({ id: team.identifier, name: teamName(team) }));

export function teamOption(team: TeamChoice): PlainTextOption {
  return { text: plain(team.name, limits.optionText), value: team.id };
}

/** Teams whose name or id contains the query, best matches (name prefix) first, at most 100. */
export function filterTeams(teams: TeamChoice[], query: string): TeamChoice[] {
  const q = query.trim().toLowerCase();
  const matches = teams.filter((t) => !q || t.name.toLowerCase().includes(q) || t.id.toLowerCase() === q);
  const rank = (t: TeamChoice) => (t.name.toLowerCase().startsWith(q) ? 0 : 1);
  return matches.sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name)).slice(0, limits.selectOptions);
}

/** The picker's private metadata when it finishes a login: its answer is then the login's summary. */
export const PICKER_AFTER_LOGIN = 'after_login';

/** The teams as a select: a static one up to 100, beyond that an external one the team options handler answers. */
export function teamSelect(actionId: string, teams: TeamChoice[], current: string | undefined) {
  const sorted = [...teams].sort((a, b) => a.name.localeCompare(b.name));
  const initial = teams.find((team) => team.id === current);
  const initialOption = initial ? { initial_option: teamOption(initial) } : {};
  return sorted.length <= limits.selectOptions
    ? {
        type: 'static_select' as const,
        action_id: actionId,
        placeholder: plain('Choose a team'),
        options: sorted.map(teamOption),
        ...initialOption,
      }
    : {
        type: 'external_select' as const,
        action_id: actionId,
        placeholder: plain('Type to search your teams'),
        min_query_length: 0,
        ...initialOption,
      };
}

/** The team picker; with `intro`, the last step of a login. */
export function teamPickerModal(teams: TeamChoice[], current: string | undefined, intro?: string): ModalView {
  const element = teamSelect(TEAM_CHOICE, teams, current);
  return modal(
    TEAM_PICKER_VIEW,
    'Choose a team',
    [
      ...(intro ? [section(intro)] : []),
      input(TEAM_CHOICE, 'Team', element),
      context(`Every attack, list and halt uses this team. You belong to ${plural(teams.length, 'team')}.`),
    ],
    { submit: 'Use this team', close: 'Cancel', ...(intro ? { privateMetadata: PICKER_AFTER_LOGIN } : {}) },
  );
}

/** The picker's answer to a switch of team (not a login). */
export const teamChosenModal = (name: string): ModalView =>
  modal(TEAM_PICKER_VIEW, 'Team chosen', [section(teamSelectedText(name))], { close: 'Done' });

export function teamSelectedText(name: string): string {
  return `:white_check_mark: Now using team *${escapeMrkdwn(name)}*.`;
}

/** `team` for a login that belongs to no team. */
export const noTeamsText =
  'Your platform login belongs to no team, so there is nothing to choose. Ask a company admin to add you to a team.';

/** The login window once a login is done: the team picker with several teams, else who is logged in. */
export function afterLoginView(login: Login, command: string): ModalView {
  const teams = login.session.teams;
  if (teams.length <= 1) return loggedInView(login, command);
  const intro = `:white_check_mark: Logged in as *${escapeMrkdwn(login.session.identifier ?? 'you')}*. You belong to several teams: choose the one to work in.`;
  return teamPickerModal(teamChoices(teams), login.team?.identifier, intro);
}
