import type { Freeze, HaltPrivilegeError } from '../../guardrails/freezes.ts';
import { escapeMrkdwn, slackDate } from '../blocks.ts';

// How a freeze is named, down to the refusal of a start under it: the error replies read these,
// and the freeze's announcements and notices (freeze.ts) build on them.

/** "Payments" or "every team". */
export function freezeScopeText(freeze: Pick<Freeze, 'scope' | 'teamName' | 'teamId'>): string {
  return freeze.scope === 'all' ? 'every team' : `*${escapeMrkdwn(freeze.teamName ?? freeze.teamId ?? 'a team')}*`;
}

/** "frozen by @x since 14:02: reason", as previews, refusals, Home and status show it. */
export function frozenLine(freeze: Freeze): string {
  const since = Number.isNaN(Date.parse(freeze.since)) ? '' : ` since ${slackDate(new Date(freeze.since), '{time}')}`;
  return `frozen by <@${freeze.by.userId}>${since}: ${escapeMrkdwn(freeze.reason)}`;
}

/** The refusal of a start in a frozen scope, with the way out. */
export function frozenRefusal(freeze: Freeze, command: string): string {
  const unfreeze =
    freeze.scope === 'all'
      ? `${command} unfreeze --all`
      : `${command} unfreeze --team ${freeze.teamName ?? freeze.teamId}`;
  return `:snowflake: Attacks in ${freezeScopeText(freeze)} are ${frozenLine(freeze)}. Nothing was started. When it is safe again, \`${escapeMrkdwn(unfreeze)}\` lifts the freeze.`;
}

/** Why a person may not freeze or lift a freeze there: their role lacks the halt privilege. */
export function haltPrivilegeText({ doing, teamName }: HaltPrivilegeError): string {
  if (teamName === undefined)
    return `You cannot ${doing} every team: your platform role lacks the \`HALT_ALL\` privilege in your company. Ask a company owner or admin, or name one team with --team.`;
  const name = `*${escapeMrkdwn(teamName)}*`;
  return `You cannot ${doing} ${name}: your platform role lacks the \`HALT_WRITE\` privilege on team ${name}. Ask an owner of the team for a role that has it.`;
}
