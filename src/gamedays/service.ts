import type { Config } from '../config.ts';
import type { Actor } from '../store/sessions.ts';
import type { SavedAttacks } from '../attacks/saved.ts';
import type { StartAsk, StartParts } from '../attacks/start.ts';
import type { RehearsedStart, StartOutcome, StartWay } from '../attacks/startPolicy.ts';
import type { Watches } from '../attacks/watches.ts';
import type { GuardrailService } from '../guardrails/service.ts';
import { mayRunAttacks, requireLogin, RUN_PRIVILEGE } from '../attacks/access.ts';
import type { TeamEntry } from '../client/index.ts';
import type { GameDays } from './gamedays.ts';
import type { GameDayPlan, HypothesisAnswer, StepRef } from './plan.ts';
import { addStep, moveStep, planPlace, removeStep, runnerOf, setAutomatic } from './planChanges.ts';
import type { AfterParts } from '../parts.ts';
import { shareGameDayReport } from './report.ts';
import { runPlans } from './planRunner.ts';
import { endGameDay, haltUnfinished, makeDueReports, unfinishedAttacks, watchedTeamsOf } from './gamedayEnd.ts';
import type { GameDayRecord } from './gamedayRecord.ts';
import { answerStep, countDown, delayStep, skipStep, startStepNow, vetoStep } from './planSteps.ts';
import type { ReportSharing } from './report.ts';

/** What game days, their plans and their reports use. */
export interface GameDayParts
  extends Pick<
    StartParts,
    'gameDays' | 'store' | 'cards' | 'sessions' | 'platform' | 'events' | 'logger' | 'clock' | 'guards'
  > {
  config: Pick<Config, 'countdownSeconds'>;
  /** Where a game day's report is shared, or its failure said. */
  reports: ReportSharing;
  watches: Watches;
  savedAttacks: SavedAttacks;
  guardrails: GuardrailService;
  /** What a plan step starts at zero: the attacks' start policy, with the runner's session. */
  startStep(ask: StartAsk, way: StartWay): Promise<StartOutcome>;
  /** What a rehearsal's step meets at zero: the same policy, with nothing created. */
  rehearseStep(ask: StartAsk): Promise<RehearsedStart>;
}

// Who may act on a game day besides its plan (whose rule is planChanges.ts's `requireMayRunStep`),
// whichever way in (command, button, form, workflow step): read from the person's own session.

/** A game day is run by someone who may run attacks in their selected team: its guards act with their session. */
export const mayFacilitate = (team: TeamEntry): boolean => mayRunAttacks(team);

export type GameDayChange = 'end' | 'add guards' | 'remove guards';

/**
 * Any one of these privileges on the game day's team (on any of the person's teams, for a game
 * day kept before its team was) allows the change; its facilitator may also end it and remove guards.
 */
const allowedBy: Record<GameDayChange, { privileges: readonly string[]; facilitator: boolean }> = {
  end: { privileges: ['HALT_WRITE'], facilitator: true },
  'add guards': { privileges: [RUN_PRIVILEGE, 'HALT_WRITE'], facilitator: false },
  'remove guards': { privileges: [RUN_PRIVILEGE, 'HALT_WRITE'], facilitator: true },
};

/** Whether the person may make the change; when not, whether they are logged in (and their session just expired). */
export interface GameDayAccess {
  may: boolean;
  loggedIn: boolean;
  expired: boolean;
}

export async function gameDayAccess(
  deps: Pick<GameDayParts, 'sessions'>,
  actor: Actor,
  record: Pick<GameDayRecord, 'facilitator' | 'teamId'>,
  change: GameDayChange,
): Promise<GameDayAccess> {
  const rule = allowedBy[change];
  if (rule.facilitator && actor.userId === record.facilitator) return { may: true, loggedIn: true, expired: false };
  const { login, expired } = await deps.sessions.lookup(actor);
  const may = login?.session.teams.some(
    (t) =>
      (record.teamId === undefined || t.identifier === record.teamId) &&
      rule.privileges.some((p) => t.privileges.includes(p)),
  );
  return { may: may === true, loggedIn: login !== undefined, expired };
}

/** Game days, their plans and a plan's steps under way: who may act on them, and what changes. */
export class GameDayService {
  readonly #parts: GameDayParts;

  constructor(parts: GameDayParts) {
    this.#parts = parts;
    this.days = parts.gameDays;
  }

  /** The game days: running, ended, their plans and outcomes. */
  readonly days: GameDays;

  /** A step's game-day plan, for a person logged in. */
  async planOf(actor: Actor, ref: StepRef): Promise<GameDayPlan> {
    await requireLogin(this.#parts, actor);
    return this.#parts.gameDays.plans.get({ gameDayId: ref.gameDayId });
  }

  /**
   * Start now, Delay 5 min and Skip on a countdown: anyone logged in may delay or skip; Start now
   * is a start, by whoever may run the step.
   */
  async countdown(actor: Actor, ref: StepRef, what: 'start now' | 'delay' | 'skip') {
    await requireLogin(this.#parts, actor);
    if (what === 'start now') return startStepNow(this.#parts, ref, runnerOf(actor));
    return (what === 'delay' ? delayStep : skipStep)(this.#parts, ref, actor.userId);
  }

  async veto(actor: Actor, ref: StepRef, reason: string) {
    await requireLogin(this.#parts, actor);
    return vetoStep(this.#parts, ref, actor.userId, reason);
  }

  /** The hypothesis answer, by anyone logged in. */
  async answer(actor: Actor, ref: StepRef, answer: HypothesisAnswer, observation: string | undefined) {
    await requireLogin(this.#parts, actor);
    return answerStep(this.#parts, ref, actor.userId, answer, observation);
  }

  /** Whether the person may make this change to the game day (end it, change its guards). */
  access(actor: Actor, record: Pick<GameDayRecord, 'facilitator' | 'teamId'>, change: GameDayChange) {
    return gameDayAccess(this.#parts, actor, record, change);
  }
  /** The game day's attacks that still run, as the person's teams show them. */
  unfinished = (...a: AfterParts<typeof unfinishedAttacks>) => unfinishedAttacks(this.#parts, ...a);

  /** Halts, with the person's session (they must be logged in), the game day's attacks that still run. */
  async haltUnfinished(actor: Actor, record: GameDayRecord) {
    await requireLogin(this.#parts, actor);
    return haltUnfinished(this.#parts, actor, record);
  }

  /**
   * Ends the channel's game day and posts its summary, whatever still runs; after a halt of what
   * ran (`afterHalts`), its report waits for the halts to land.
   */
  end = (...a: AfterParts<typeof endGameDay>) => endGameDay(this.#parts, ...a);

  /** Where a plan is made: the channel's running game day, else the channel's plan for its next one. */
  planPlace = (...a: AfterParts<typeof planPlace>) => planPlace(this.#parts, ...a);
  /** A plan's changes, by whoever may run the step they touch. */
  addStep = (...a: AfterParts<typeof addStep>) => addStep(this.#parts, ...a);
  moveStep = (...a: AfterParts<typeof moveStep>) => moveStep(this.#parts, ...a);
  removeStep = (...a: AfterParts<typeof removeStep>) => removeStep(this.#parts, ...a);
  setAutomatic = (...a: AfterParts<typeof setAutomatic>) => setAutomatic(this.#parts, ...a);
  /** Run next: the step's countdown starts. */
  countDown = (...a: AfterParts<typeof countDown>) => countDown(this.#parts, ...a);
  /** The game day's report, shared again. */
  shareReport = (...a: AfterParts<typeof shareGameDayReport>) => shareGameDayReport(this.#parts, ...a);
  /** The teams watched in the channel, whose attacks a report counts. */
  watchedTeams = (...a: AfterParts<typeof watchedTeamsOf>) => watchedTeamsOf(this.#parts, ...a);

  /**
   * The background job: starts the steps whose countdown is over, and the automatic mode's next;
   * makes the reports that waited for their halts to land.
   */
  async runPlans(): Promise<void> {
    await runPlans(this.#parts);
    await makeDueReports(this.#parts);
  }
}
