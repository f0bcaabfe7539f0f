import { NotLoggedInError } from '../../errors.ts';
import type { GameDayRecord } from '../../gamedays/gamedayRecord.ts';
import { ReportNotSharedError } from '../../gamedays/report.ts';
import { escapeMrkdwn, plural } from '../blocks.ts';
import { errorInBrief } from '../errorReply.ts';
import { reportFilename } from './report.ts';
import { badged } from './gamedayWords.ts';

/** Why a report could not be made, as a clause. */
export function reportProblem(error: unknown): string {
  if (error instanceof NotLoggedInError)
    return 'it is read with the platform session of whoever asks for it, and they were not logged in';
  if (error instanceof ReportNotSharedError) {
    if (error.slackError === 'missing_scope')
      return 'Slack refused the file because the app lacks the `files:write` scope (reinstall it from manifest.yml)';
    if (error.slackError === 'not_in_channel')
      return 'Slack refused the file because Faultline is not in the channel (invite it with /invite @Faultline)';
    return 'Slack did not take the file';
  }
  return errorInBrief(error);
}

/** The message that shares the report file in the channel. */
export function reportComment(
  record: Pick<GameDayRecord, 'title' | 'rehearsal' | 'plan'> & { id: string },
  attacks: number,
): string {
  const id = `(id \`${record.id.slice(0, 8)}\`)`;
  if (record.rehearsal)
    return badged(
      record,
      `:clipboard: Rehearsal report of game day *${escapeMrkdwn(record.title)}* ${id}: ${plural(record.plan?.steps.length ?? 0, 'step')}, each with what it would have hit and its verdict; nothing was created at the platform.`,
    );
  return `:clipboard: Full report of game day *${escapeMrkdwn(record.title)}* ${id}: ${plural(attacks, 'attack')}, with each target's execution and the tickets filed.`;
}

/** Told in the channel when the report could not be made; the summary stands without it. */
export function reportFailedText(
  record: Pick<GameDayRecord, 'title' | 'rehearsal'> & { id: string },
  reason: string,
  command: string,
): string {
  return badged(
    record,
    `:warning: The full report of game day *${escapeMrkdwn(record.title)}* could not be made: ${reason}. The summary above stands. Try again with \`${command} gameday report ${record.id.slice(0, 8)}\`.`,
  );
}

/** `gameday report` done: the report is shared in the channel, as the file it names. */
export const reportSharedText = (record: Pick<GameDayRecord, 'title' | 'startedAt' | 'rehearsal'>, attacks: number) =>
  badged(
    record,
    `:clipboard: The report of game day *${escapeMrkdwn(record.title)}* is shared in this channel as \`${reportFilename(record)}\`: ${plural(attacks, 'attack')}.`,
  );

/** `gameday report` when the report could not be made, and how to try again. */
export const reportAgainFailedText = (
  record: Pick<GameDayRecord, 'title' | 'rehearsal'> & { id: string },
  error: unknown,
  command: string,
) =>
  badged(
    record,
    `The report of game day *${escapeMrkdwn(record.title)}* could not be made: ${reportProblem(error)}. Try again in a moment with \`${command} gameday report ${record.id.slice(0, 8)}\`.`,
  );
