import type { Attack, Execution, TeamEntry, TrackerIssue } from '../client/index.ts';
import type { GameDayParts } from './service.ts';
import type { Actor, Login } from '../store/sessions.ts';
import { platformFor, requireLogin, teamName } from '../attacks/access.ts';
import type { GameDayAttack, GameDayRecord } from './gamedayRecord.ts';
import type { HaltProgress } from '../attacks/haltChecks.ts';
import type { GameDay } from './gamedayReads.ts';
import { readTeam } from './reportTeam.ts';

/** Why part of a report could not be read: no session reached the team, or the platform failed. */
export type ReportProblem =
  | { kind: 'no session' }
  | { kind: 'failed'; error: unknown; team: string; subject?: string | undefined };

/** The target as created: as the channel's card said it, or as the platform records it. */
export type ReportTarget =
  | { words: string }
  | { platform: Pick<Attack, 'total_clients' | 'targets' | 'target_type' | 'infra_target'> }
  | undefined;

/** One attack of a game day as the report tells it: what the platform says, and what happened in the channel. */
export interface ReportAttack {
  guid: string;
  type: string;
  args: string[];
  /** The target as created; the resolved targets are the executions'. */
  target: ReportTarget;
  stage: string;
  lifecycle: string;
  createdAt?: string | undefined;
  startTime?: string | undefined;
  endTime?: string | undefined;
  /** Who created it on the platform (an e-mail), and from where (`WebApp`, `Api`, `Scenario`...). */
  createdBy?: string | undefined;
  createSource?: string | undefined;
  /** Set when it was started from the game day's channel. */
  chat?: GameDayAttack | undefined;
  /** Slack user ids of who halted it from Slack. */
  haltedBy: string[];
  /** Its last halt's receipt, as its card keeps it. */
  halt?: HaltProgress | undefined;
  /** Its notes on the platform (annotations). */
  platformNotes: string[];
  executions: Execution[];
  /** Why its executions could not be read. */
  executionsProblem?: ReportProblem | undefined;
  tickets: TrackerIssue[];
  /** Why its tickets could not be read; unset with no tracker integration (the team says so). */
  ticketsProblem?: ReportProblem | undefined;
}

/** One team whose attacks the report read. */
export interface ReportTeam {
  id: string;
  name: string;
  attacks: ReportAttack[];
  /** Why its attacks (those started outside the channel) could not be read. */
  problem?: ReportProblem | undefined;
  /** The window held more attacks than the report reads. */
  more?: boolean | undefined;
  /** The team has no tracker integration, so it has no tickets. */
  noTracker?: boolean | undefined;
  /** Read because the channel watches it, not because one of its attacks was started there. */
  watched?: boolean | undefined;
}

/** Everything the report file says about one ended game day. */
export interface GameDayReport {
  record: GameDay;
  teams: ReportTeam[];
  /** When it was made, ISO 8601, and by whom (Slack user id), with whose platform session. */
  madeAt: string;
  madeBy: string;
  /** The window of `GET /attacks/range`. */
  window: { start: string; end: string };
}

/**
 * Where a game day's report goes: the file, its words and the Slack calls are
 * src/slack/gamedayReports.ts's.
 */
export interface ReportSharing {
  /** Shares the report file in the game day's channel; rejects with ReportNotSharedError when Slack does not take it. */
  share(report: GameDayReport): Promise<void>;
  /** Tells the game day's channel that its report could not be made, why, and how to ask again. */
  tellFailed(record: GameDay, error: unknown): Promise<void>;
}

export interface GameDayReportOptions {
  /**
   * Team ids to read besides those of the attacks started in the channel: the teams the channel
   * watches, whose attacks belong to the game day wherever they were started.
   */
  watchedTeams?: readonly string[] | undefined;
}

/** The teams a report reads: those of the attacks started in the channel, then the watched ones; none for a rehearsal. */
function teamsOf(
  record: GameDayRecord,
  login: Login,
  watchedTeams: readonly string[],
): { id: string; name: string; watched: boolean; entry: TeamEntry | undefined }[] {
  // A rehearsal created nothing, and attacks started in its channel were not part of it.
  if (record.rehearsal) return [];
  const entry = (id: string) => login.session.teams.find((t) => t.identifier === id);
  const teams = new Map<string, { id: string; name: string; watched: boolean; entry: TeamEntry | undefined }>();
  const add = (id: string, name: string, watched: boolean, known: TeamEntry | undefined) => {
    if (!teams.has(id)) teams.set(id, { id, name, watched, entry: known });
  };
  for (const attack of record.attacks) add(attack.teamId, attack.teamName, false, entry(attack.teamId));
  for (const id of watchedTeams) {
    const known = entry(id);
    add(id, known ? teamName(known) : id, true, known);
  }
  // With nothing started in the channel, the team of whoever asks for the report is the one in play.
  if (!teams.size && login.team) add(login.team.identifier, teamName(login.team), false, login.team);
  return [...teams.values()];
}

/**
 * Reads everything the report of an ended game day says, with the platform session of the person
 * who ends it or asks for it, and shares it in the game day's channel: every attack created in each
 * team during the game day, wherever it was started, with each target's execution and the tickets
 * filed. Rejects when nothing could be read at all (no session, or the platform failing for every
 * team), so it can be tried again, or when Slack does not take it.
 */
export async function shareGameDayReport(
  deps: GameDayParts,
  actor: Actor,
  record: GameDay,
  options: GameDayReportOptions = {},
): Promise<GameDayReport> {
  const login = await requireLogin(deps, actor);
  const window = { start: record.startedAt, end: record.endedAt ?? new Date(deps.clock.now()).toISOString() };
  const read = [];
  for (const team of teamsOf(record, login, options.watchedTeams ?? []))
    read.push(
      await readTeam(deps, record, team.entry ? platformFor(deps, login, team.entry) : undefined, team, window),
    );
  const failed = read.filter((r) => r.failure !== undefined);
  if (read.length && failed.length === read.length) throw failed[0]!.failure;
  const report = {
    record,
    teams: read.map((r) => r.team),
    madeAt: new Date(deps.clock.now()).toISOString(),
    madeBy: actor.userId,
    window,
  };
  await deps.reports.share(report);
  return report;
}

/** Slack did not take the report file. */
export class ReportNotSharedError extends Error {
  /** Slack's error code, such as `missing_scope` or `not_in_channel`, when it gave one. */
  readonly slackError: string | undefined;

  constructor(cause: unknown) {
    super('Slack did not take the report file', { cause });
    this.name = 'ReportNotSharedError';
    this.slackError = (cause as { data?: { error?: unknown } } | undefined)?.data?.error as string | undefined;
  }
}

/**
 * The report at the end of a game day. It never fails the end: when it cannot be made, the
 * channel is told why and how to ask for it again.
 */
export async function reportAtEnd(
  deps: GameDayParts,
  actor: Actor,
  record: GameDay,
  options: GameDayReportOptions = {},
): Promise<boolean> {
  try {
    await shareGameDayReport(deps, actor, record, options);
    return true;
  } catch (error) {
    deps.logger.warn(
      { err: error, gameDay: record.id, channel: record.channel },
      'could not make the report of a game day',
    );
    await deps.reports
      .tellFailed(record, error)
      .catch((failure: unknown) =>
        deps.logger.warn(
          { err: failure, channel: record.channel },
          'could not say in the channel that the game-day report failed',
        ),
      );
    return false;
  }
}
