import { subcommand } from './command.ts';
import { contract } from './contract.ts';
import { escapeMrkdwn, fields, section, context, slackDate } from '../views/blocks.ts';
import { plural } from '../views/plural.ts';
import { requireLogin, teamName } from '../attacks/access.ts';

function list(values: readonly string[] | undefined): string {
  return values?.length ? values.map((v) => `\`${v}\``).join(' ') : '_none_';
}

export const whoamiCommand = subcommand({
  name: 'whoami',
  usage: 'whoami',
  summary: 'Shows your platform login, company, current team, roles, privileges and when the session ends.',
  examples: ['whoami'],
  args: contract({ command: 'whoami', usage: 'whoami' }),
  async run(request, _args, deps) {
    const { session, team, expiresAt } = await requireLogin(deps, request.actor);
    const cmd = deps.config.slack.command;
    const text = escapeMrkdwn(
      `Logged in as ${session.identifier ?? 'unknown'} at ${session.company_name ?? 'unknown company'}, team ${team ? teamName(team) : 'none'}.`,
    );
    return {
      kind: 'message',
      message: {
        text,
        blocks: [
          section(
            `Logged in as *${escapeMrkdwn(session.identifier ?? 'unknown')}* at *${escapeMrkdwn(session.company_name ?? 'unknown company')}*.`,
          ),
          fields([
            ['Current team', team ? escapeMrkdwn(teamName(team)) : `none: choose one with \`${cmd} team\``],
            ['Session ends', slackDate(expiresAt)],
            ['Company roles', list(session.roles)],
            ['Company privileges', list(session.privileges)],
            ['Team roles', team ? list(team.roles) : '_no team_'],
            ['Team privileges', team ? list(team.privileges) : '_no team_'],
          ]),
          context(
            `${plural(session.teams.length, 'team')} in all. \`${cmd} team\` switches, \`${cmd} logout\` ends the session.`,
          ),
        ],
      },
    };
  },
});
