import type { Services } from '../../services.ts';
import type { TeamEntry } from '../../client/index.ts';
import { teamName } from '../../attacks/access.ts';
import { UserInputError } from '../../errors.ts';
import { parseGameDayRef, type GameDayRecord } from '../../gamedays/gamedayRecord.ts';
import type { Actor } from '../../store/sessions.ts';
import { errorInBrief } from '../../views/errorReply.ts';
import { gameDayEndWarning } from '../../views/gamedays/gamedaySummary.ts';
import {
  gameDayAlreadyEndedText,
  gameDayEndedText,
  gameDayEndRefusedText,
  gameDayKeptText,
  gameDayStartRefusedText,
  notHaltedLine,
} from '../../views/gamedays/gamedayWords.ts';
import { type Action, message, replacement, type Reply } from '../command.ts';

/** `gameday end`, End game day on the card and the answers to its warning; the ending is the game-day service's. */

/** The team a game day is run with, as the game-day service decides it; refused in words when the person may not. */
export async function requireGameDayTeam({ gamedays, command }: Services, actor: Actor): Promise<TeamEntry> {
  const { team, may } = await gamedays.facilitatorTeam(actor);
  if (!may) throw new UserInputError(gameDayStartRefusedText(teamName(team), command));
  return team;
}

/** Refuses an end by anyone the game-day rule does not let end it. */
export async function requireMayEnd({ gamedays, command }: Services, actor: Actor, record: GameDayRecord) {
  const access = await gamedays.access(actor, record, 'end');
  if (!access.may) throw new UserInputError(gameDayEndRefusedText(record, access.loggedIn, command));
}

/** Ends the game day and posts its summary, whatever still runs; the words for the person. */
export async function endNow({ gamedays }: Services, actor: Actor, channel: string, halted = 0) {
  const ended = await gamedays.end(actor, channel, { afterHalts: halted > 0 });
  return ended && gameDayEndedText(ended.record, halted, ended.running);
}

/** `gameday end` and End game day, by someone who may end it: ends at once, unless attacks still run; then asks what to do. */
export async function endOrWarn(services: Services, actor: Actor, record: GameDayRecord): Promise<Reply> {
  const unfinished = await services.gamedays.unfinished(actor, record);
  if (unfinished.length) return { kind: 'message', message: gameDayEndWarning(record, unfinished) };
  return message((await endNow(services, actor, record.channel)) ?? gameDayAlreadyEndedText);
}

/** The running game day a button points at, once the clicker may end it; undefined once it has ended (or was replaced). */
async function endableFrom(action: Action, services: Services): Promise<GameDayRecord | undefined> {
  const ref = parseGameDayRef(action.value);
  if (!ref) throw new UserInputError('That button no longer points at a game day.');
  const running = await services.gamedays.days.running(ref.channel);
  if (running?.ts !== ref.ts) return undefined;
  await requireMayEnd(services, action.actor, running);
  return running;
}

/** End game day on the card (behind a confirm dialog). */
export async function endGameDayFromCard(action: Action, services: Services): Promise<Reply> {
  const record = await endableFrom(action, services);
  return record ? endOrWarn(services, action.actor, record) : message(gameDayAlreadyEndedText);
}

/** End anyway, on the warning: ends with attacks running; the summary follows them. */
export async function endGameDayAnyway(action: Action, services: Services): Promise<Reply> {
  const record = await endableFrom(action, services);
  return replacement((record && (await endNow(services, action.actor, record.channel))) ?? gameDayAlreadyEndedText);
}

/**
 * Halt all and end, on the warning: halts the game day's attacks that still run, with the
 * clicker's session, then ends it. An attack that cannot be halted keeps the game day running
 * and says why, so nothing ends with an attack nobody could stop.
 */
export async function haltAndEndGameDay(action: Action, services: Services): Promise<Reply> {
  const record = await endableFrom(action, services);
  if (!record) return replacement(gameDayAlreadyEndedText);
  const { halted, failed } = await services.gamedays.haltUnfinished(action.actor, record);
  if (failed.length) {
    const problems = failed.map((f) =>
      notHaltedLine(f.attack, errorInBrief(f.error, { team: f.attack.teamName, subject: `attack ${f.attack.guid}` })),
    );
    return { kind: 'message', message: gameDayEndWarning(record, failed, problems), replaceOriginal: true };
  }
  return replacement((await endNow(services, action.actor, record.channel, halted)) ?? gameDayAlreadyEndedText);
}

/** Cancel, on the warning. */
export async function keepGameDay(): Promise<Reply> {
  return replacement(gameDayKeptText);
}
