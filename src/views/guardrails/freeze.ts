import type { Freeze, FreezeHalting } from '../../guardrails/freezes.ts';
import type { FreezeNotice, SweepResult, SweptAttack } from '../../guardrails/sweep.ts';
import { escapeMrkdwn } from '../blocks.ts';
import { errorInBrief, freezeScopeText, frozenLine } from '../errorReply.ts';

/** "its attacks", "its Kubernetes attacks", or both, for what a sweep could not read. */
function unreadText(unread: SweepResult['unread']): string {
  const sources = new Set(unread.map((u) => u.source));
  if (sources.size === 2) return 'attacks or its Kubernetes attacks';
  return sources.has('kubernetes') ? 'Kubernetes attacks' : 'attacks';
}

const sweptName = (a: SweptAttack) =>
  `${a.kind === 'kubernetes' ? 'Kubernetes ' : ''}${a.type ? `*${escapeMrkdwn(a.type)}* ` : ''}\`${a.guid}\``;

/** What keeps a freeze from halting, as its channel is told. */
export function freezeNoticeText(freeze: Freeze, notice: FreezeNotice, command: string): string {
  const where = freezeScopeText(freeze);
  const cannotHalt = `:warning: The freeze on ${where} cannot halt attacks started elsewhere`;
  const declareAgain = `\`${command} freeze ${freeze.scope === 'all' ? '--all' : `--team ${freeze.teamName ?? freeze.teamId}`}\``;
  const by = `<@${freeze.by.userId}>`;
  switch (notice.kind) {
    case 'logged out':
      return `:warning: The freeze on ${where} still refuses starts through Faultline, but it can no longer halt attacks started elsewhere: ${by} is logged out. Someone logged in can declare it again with \`${command} freeze\`.`;
    case 'not member': {
      const team = escapeMrkdwn(freeze.teamName ?? freeze.teamId ?? 'the team');
      return `${cannotHalt}: ${by} is no longer in ${team}. It still refuses starts through Faultline; someone in ${team} can declare it again with ${escapeMrkdwn(declareAgain)}.`;
    }
    case 'session refused':
      return `${cannotHalt}: the platform no longer accepts the session of ${by}. It still refuses starts through Faultline; ${by} can log in again, or someone logged in can declare it again with ${escapeMrkdwn(declareAgain)}.`;
    case 'halt failed': {
      const name = `*${escapeMrkdwn(notice.teamName)}*`;
      return `:warning: Could not halt ${sweptName(notice.attack)} in ${name}, which started while the team is frozen (${errorInBrief(notice.error, { team: notice.teamName })}). Faultline keeps trying; halt it from the card, the web UI or \`${command} halt ${notice.attack.guid}\`.`;
    }
    case 'unread': {
      const name = `*${escapeMrkdwn(notice.teamName)}*`;
      return `:warning: The freeze on ${where} could not read the ${notice.source === 'kubernetes' ? 'Kubernetes attacks' : 'attacks'} of ${name} (${errorInBrief(notice.error, { team: notice.teamName })}), so it cannot halt those that start there. It keeps trying; \`${command} halt all\` halts them meanwhile.`;
    }
  }
}

/** What a freeze did to the attacks already running: halted everything, or swept its team, or could not. */
const attackNames = (list: SweptAttack[]) => list.map((a) => `\`${a.guid}\``).join(', ');

function haltingText(halting: FreezeHalting, command: string): string {
  if (halting.scope === 'all')
    return 'error' in halting
      ? `:warning: Could not halt what already runs: ${errorInBrief(halting.error)}. The freeze stands; halt what runs with \`${command} halt everything\`, and Faultline keeps halting what it finds in each frozen team.`
      : 'Every active impact on the platform was halted.';
  const team = { team: halting.teamName };
  if ('error' in halting)
    return `:warning: Could not halt its attacks (${errorInBrief(halting.error, team)}). Halt them from the web UI, or with \`${command} halt all\`.`;
  const { halted, failed, unread } = halting.swept;
  let text = halted.length
    ? `Halted ${halted.length === 1 ? '1 attack' : `${halted.length} attacks`}: ${attackNames(halted)}.`
    : unread.length
      ? ''
      : 'No attack was running there.';
  if (failed.length)
    text += ` :warning: Could not halt ${attackNames(failed)} (${errorInBrief(failed[0]!.error, team)}); halt ${failed.length === 1 ? 'it' : 'them'} from the web UI or with \`${command} halt <id>\`.`;
  if (unread.length)
    text += ` :warning: Could not read its ${unreadText(unread)} (${errorInBrief(unread[0]!.error, team)}), so any running there still run. Halt them from the web UI, or with \`${command} halt all\`.`;
  return text.trim();
}

/** The channel's announcement of a freeze: who, where, why, what it halted, and how it is lifted. */
export function frozenAnnouncement(userId: string, freeze: Freeze, halting: FreezeHalting, command: string): string {
  const lift = freeze.scope === 'all' ? `${command} unfreeze --all` : `${command} unfreeze --team ${freeze.teamName}`;
  return `:snowflake: <@${userId}> froze attacks in ${freezeScopeText(freeze)}: ${escapeMrkdwn(freeze.reason)}. ${haltingText(halting, command)} No attack starts there through Faultline until \`${escapeMrkdwn(lift)}\`.`;
}

/** The answer to whoever froze, once the channel has the announcement. */
export function frozenText(freeze: Freeze, wasFrozen: boolean): string {
  const where = freezeScopeText(freeze);
  return wasFrozen ? `${where} was already frozen; the freeze now has your reason.` : `Done: ${where} is frozen.`;
}

/**
 * The answer to an unfreeze with nothing to lift: the team, or every team, named; and what does
 * stand: a freeze of every team, or (for `--all`) the teams' own freezes, with what lifts each.
 */
export function notFrozenText(
  teamName: string | undefined,
  standing: { all?: Freeze | undefined; teams?: Freeze[] | undefined },
  command: string,
): string {
  if (teamName !== undefined && standing.all)
    return `*${escapeMrkdwn(teamName)}* has no freeze of its own, but every team is ${frozenLine(standing.all)}. \`${command} unfreeze --all\` lifts that.`;
  if (teamName !== undefined) return `*${escapeMrkdwn(teamName)}* is not frozen.`;
  const teams = standing.teams ?? [];
  if (!teams.length) return 'There is no freeze of every team, nor of any of your teams.';
  const lines = teams.map(
    (f) =>
      `• ${freezeScopeText(f)}: ${frozenLine(f)}. \`${command} unfreeze --team ${escapeMrkdwn(f.teamName ?? f.teamId ?? '')}\` lifts it.`,
  );
  return ['There is no freeze of every team. These teams of yours are frozen:', ...lines].join('\n');
}

/** The announcement that a freeze was lifted. */
export const freezeLiftedAnnouncement = (userId: string, freeze: Freeze) =>
  `:sunny: <@${userId}> lifted the freeze on ${freezeScopeText(freeze)} (${frozenLine(freeze)}). Attacks can start there again.`;

/** The answer to whoever lifted a freeze. */
export const unfrozenText = (freeze: Freeze) => `Done: ${freezeScopeText(freeze)} is no longer frozen.`;
