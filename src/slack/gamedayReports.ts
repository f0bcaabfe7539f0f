import type { WebClient } from '@slack/web-api';
import { type GameDayReport, ReportNotSharedError, type ReportSharing } from '../gamedays/report.ts';
import type { GameDayRecord } from '../gamedays/gamedayRecord.ts';
import { gameDayReportMarkdown, reportFilename, reportPeople, reportTitle } from '../views/gamedays/report.ts';
import { reportComment, reportFailedText, reportProblem } from '../views/gamedays/reportWords.ts';
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

interface FileToShare {
  channel: string;
  /** Shared as a reply in this thread; in the channel itself without it. */
  threadTs?: string | undefined;
  filename: string;
  title: string;
  content: string;
  /** The message that shares the file. */
  comment?: string | undefined;
}

/** How long the bytes may take to reach Slack's upload URL. */
const uploadTimeoutMs = 30_000;

/**
 * Shares files in channels through Slack's external upload, in its three steps:
 * files.getUploadURLExternal, the bytes posted to the URL it gives, files.completeUploadExternal
 * (scope files:write). The steps are called one by one rather than through filesUploadV2 so the
 * methods the bot calls stay visible, and in step with the scopes manifest.yml asks for.
 */
export class SlackFiles {
  readonly #client: WebClient;

  constructor(client: WebClient) {
    this.#client = client;
  }

  /** Uploads and shares one file; returns its Slack id. Rejects when any step fails. */
  async share(file: FileToShare): Promise<string> {
    const bytes = Buffer.from(file.content, 'utf8');
    const { upload_url: uploadUrl, file_id: fileId } = await this.#client.files.getUploadURLExternal({
      filename: file.filename,
      length: bytes.length,
    });
    if (!uploadUrl || !fileId) throw new Error('Slack gave no upload URL for the file');
    const target = new URL(uploadUrl);
    // Slack's upload URLs are https:; plain http only reaches a local stand-in for Slack.
    if (target.protocol !== 'https:' && !(target.protocol === 'http:' && isLoopback(target.hostname)))
      throw new Error('Slack gave an upload URL that is not https:');
    const response = await fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: bytes,
      signal: AbortSignal.timeout(uploadTimeoutMs),
    });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`Slack refused the file's bytes (${response.status})`);
    await this.#client.files.completeUploadExternal({
      files: [{ id: fileId, title: file.title }],
      channel_id: file.channel,
      ...(file.threadTs ? { thread_ts: file.threadTs } : {}),
      ...(file.comment ? { initial_comment: file.comment } : {}),
    });
    return fileId;
  }
}

function isLoopback(hostname: string): boolean {
  return (
    hostname === 'localhost' ||
    hostname === '[::1]' ||
    hostname === '::1' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
  );
}
