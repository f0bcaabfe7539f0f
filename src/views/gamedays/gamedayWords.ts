import type { GameDayAttack, GameDayRecord } from '../../gamedays/gamedayRecord.ts';
import { escapeMrkdwn, plural } from '../blocks.ts';

/** What every card and message of a rehearsal starts with. */
export const rehearsalBadge = ':performing_arts: *REHEARSAL*';

/** A game day's words, badged first when it is a rehearsal. */
export const badged = (day: Pick<GameDayRecord, 'rehearsal'>, text: string): string =>
  day.rehearsal ? `${rehearsalBadge} · ${text}` : text;

/** A header's plain text (no mrkdwn), badged first when the game day is a rehearsal. */
export const badgedHeader = (day: Pick<GameDayRecord, 'rehearsal'>, text: string): string =>
  day.rehearsal ? `REHEARSAL · ${text}` : text;

/** What a rehearsal is, on its card and when it starts. */
export const rehearsalWords =
  'Each step goes through every check a start makes at zero (freeze, target, guards, who may run it, approval) and is never created at the platform. Attacks started in this channel meanwhile are real and not part of it.';

/** `gameday status` or `end` in a channel without a game day. */
export function noGameDayText(command: string): string {
  return `No game day is running in this channel. Start one with \`${command} gameday start <title>\`.`;
}

/** What ending a game day answers: what it halted first, or what of it still runs. */
export function gameDayEndedText(
  record: Pick<GameDayRecord, 'title' | 'rehearsal'>,
  halted: number,
  running: number,
): string {
  const name = `*${escapeMrkdwn(record.title)}*`;
  if (halted)
    return `:octagonal_sign: Halted ${plural(halted, 'attack')} and ended game day ${name}. Its summary is in the channel and shows each attack's outcome once the halt is done; the report follows then.`;
  const still = running
    ? ` ${plural(running, 'attack')} of it ${running === 1 ? 'is' : 'are'} still running: the summary shows how ${running === 1 ? 'it ends' : 'they end'} once ${running === 1 ? 'it does' : 'they do'}.`
    : '';
  return badged(record, `:checkered_flag: Game day ${name} ended; its summary is in the channel.${still}`);
}

export const gameDayAlreadyEndedText = 'That game day has already ended.';

/** Cancel, on the end warning. */
export const gameDayKeptText = 'Cancelled: nothing was halted, and the game day goes on.';

/** An attack that Halt all and end could not halt, and why. */
export const notHaltedLine = (attack: Pick<GameDayAttack, 'type' | 'guid'>, reason: string) =>
  `*${escapeMrkdwn(attack.type)}* \`${attack.guid}\`: ${reason}`;

export const gameDayStartingText =
  'Someone is starting a game day in this channel right now; see its card in a moment.';

/**
 * `gameday start` where one already runs. A rehearsal never turns into a real game day, nor a real
 * one into a rehearsal: the other kind is refused, and started anew once this one has ended.
 */
export function gameDayRunningText(
  record: Pick<GameDayRecord, 'title' | 'facilitator' | 'rehearsal'>,
  command: string,
  rehearsal: boolean,
): string {
  const end = `\`${command} gameday end\``;
  const which = `*${escapeMrkdwn(record.title)}*, facilitated by <@${record.facilitator}>`;
  if (record.rehearsal && !rehearsal)
    return badged(
      record,
      `A rehearsal is running in this channel: ${which}. A rehearsal never turns into a real game day: end it with ${end}, then start the real game day anew.`,
    );
  if (!record.rehearsal && rehearsal)
    return `A real game day is running in this channel: ${which}. It cannot be rehearsed while it runs: end it with ${end} first, then start the rehearsal.`;
  return badged(record, `A game day is already running here: ${which}. End it with ${end} first.`);
}

/** A start refused: the person could not run attacks in their selected team. */
export const gameDayStartRefusedText = (teamName: string, command: string) =>
  `You cannot start a game day with team *${escapeMrkdwn(teamName)}*: your platform role lacks the \`EXPERIMENTS_RUN\` privilege on it, so you could not run its attacks. Ask an owner of the team for a role that has it, or choose another team with \`${command} team\`.`;

/**
 * An end refused: only the facilitator, or someone whose platform role could halt the game day's
 * team, ends it. `loggedIn` says whether the person's own role was the reason.
 */
export function gameDayEndRefusedText(
  record: Pick<GameDayRecord, 'facilitator' | 'teamName'>,
  loggedIn: boolean,
  command: string,
): string {
  const team = record.teamName === undefined ? 'one of your teams' : `team *${escapeMrkdwn(record.teamName)}*`;
  const why = loggedIn
    ? 'Your platform role lacks that privilege.'
    : `You are not logged in: if your role has that privilege, log in with \`${command} login\` and try again.`;
  return `Only <@${record.facilitator}>, who started this game day, or someone with the \`HALT_WRITE\` privilege on ${team} can end it. ${why} The game day goes on.`;
}

/** `gameday start` done, with the guards it set (their lines), if any. */
export function gameDayStartedText(record: Pick<GameDayRecord, 'title' | 'rehearsal'>, guardLines?: string): string {
  const guarded = guardLines === undefined ? '' : `\nGuards:\n${guardLines}`;
  const name = `*${escapeMrkdwn(record.title)}*`;
  return record.rehearsal
    ? badged(
        record,
        `:rocket: Rehearsal of game day ${name} started. Its card is in the channel. ${rehearsalWords}${guarded}`,
      )
    : `:rocket: Game day ${name} started. Its card is in the channel; attacks started here go into its thread.${guarded}`;
}

/**
 * A change to a game day's guards refused by the person's own role: adding needs the game day's
 * team and EXPERIMENTS_RUN or HALT_WRITE there; removing that, or being its facilitator.
 */
export function gameDayGuardsRefusedText(
  record: Pick<GameDayRecord, 'facilitator' | 'teamName'>,
  change: 'add' | 'remove',
): string {
  const team = record.teamName === undefined ? 'one of your teams' : `team *${escapeMrkdwn(record.teamName)}*`;
  const who =
    change === 'add'
      ? `Only someone with the \`EXPERIMENTS_RUN\` or \`HALT_WRITE\` privilege on ${team} can add guards to this game day.`
      : `Only <@${record.facilitator}>, who started this game day, or someone with the \`EXPERIMENTS_RUN\` or \`HALT_WRITE\` privilege on ${team} can remove its guards.`;
  return `${who} Your platform login has neither there, so its guards were left as they were.`;
}

/** Guards removed from a running game day, one line each; those it did not have are named. */
export function gameDayGuardsRemovedText(title: string, removed: string[], missing: string[]): string {
  const gone = removed.length
    ? `:shield: Removed from game day *${escapeMrkdwn(title)}*: ${removed.map(escapeMrkdwn).join(', ')}.`
    : `Game day *${escapeMrkdwn(title)}* had none of those guards; nothing was removed.`;
  return missing.length && removed.length ? `${gone} It had no ${missing.map(escapeMrkdwn).join(', ')}.` : gone;
}

/** The guards set on a running game day, one line each. */
export const gameDayGuardsSetText = (title: string, lines: string) =>
  `:shield: Guards set on game day *${escapeMrkdwn(title)}*:\n${lines}`;

export const ambiguousGameDayIdText = (id: string) =>
  `Several game days of this channel have an id starting with \`${escapeMrkdwn(id)}\`; give more of it.`;

/** `gameday report` with no ended game day to share: none with that id, one still running, or none at all. */
export function noReportText(id: string | undefined, runningTitle: string | undefined, command: string): string {
  if (id)
    return `No ended game day of this channel has the id \`${escapeMrkdwn(id)}\`. Without an id, \`${command} gameday report\` shares the report of the last one that ended here.`;
  return runningTitle !== undefined
    ? `Game day *${escapeMrkdwn(runningTitle)}* is still running; its report is shared here when it ends.`
    : 'No game day has ended in this channel in the last 30 days, so there is no report to share.';
}
