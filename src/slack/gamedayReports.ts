import { type GameDayReport, ReportNotSharedError, type ReportSharing } from '../gamedays/report.ts';
import type { GameDayRecord } from '../gamedays/gamedayRecord.ts';
import { gameDayReportMarkdown, reportFilename, reportPeople, reportTitle } from '../views/gamedays/report.ts';
import { reportComment, reportFailedText, reportProblem } from '../views/gamedays/reportWords.ts';
import type { SlackFiles } from './files.ts';
import type { Messenger } from './messenger.ts';
import type { People } from './people.ts';

/** A game day's report, as a file shared in its channel, with people named as Slack names them. */
export class SlackGameDayReports implements ReportSharing {
  readonly #files: Pick<SlackFiles, 'share'>;
  readonly #people: Pick<People, 'names'>;
  readonly #messenger: Pick<Messenger, 'post'>;
  readonly #command: string;

  /** `command` is the slash command, for how to ask for a report again. */
  constructor(
    parts: { files: Pick<SlackFiles, 'share'>; people: Pick<People, 'names'>; messenger: Pick<Messenger, 'post'> },
    options: { command: string },
  ) {
    this.#files = parts.files;
    this.#people = parts.people;
    this.#messenger = parts.messenger;
    this.#command = options.command;
  }

  async share(report: GameDayReport): Promise<void> {
    const { record } = report;
    const names = await this.#people.names(reportPeople(report));
    const attacks = report.teams.reduce((total, team) => total + team.attacks.length, 0);
    try {
      await this.#files.share({
        channel: record.channel,
        filename: reportFilename(record),
        title: reportTitle(record),
        content: gameDayReportMarkdown(report, names),
        comment: reportComment(record, attacks),
      });
    } catch (error) {
      throw new ReportNotSharedError(error);
    }
  }

  async tellFailed(record: GameDayRecord & { id: string }, error: unknown): Promise<void> {
    await this.#messenger.post(record.channel, {
      text: reportFailedText(record, reportProblem(error), this.#command),
    });
  }
}
