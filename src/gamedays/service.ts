import type { PlatformClient } from '../client/index.ts';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import type { KeyValueStore } from '../store/keyValue.ts';
import type { Actor, SessionStore } from '../store/sessions.ts';
import type { CardStore } from '../attacks/cards.ts';
import type { Recorder } from '../attacks/events.ts';
import type { SavedAttacks } from '../attacks/saved.ts';
import type { StartAsk } from '../attacks/start.ts';
import type { StartOutcome, StartWay } from '../attacks/startPolicy.ts';
import type { Watches } from '../attacks/watches.ts';
import type { GuardStore } from '../guardrails/guards.ts';
import type { GuardrailService } from '../guardrails/service.ts';
import { requireLogin } from '../attacks/access.ts';
import type { GameDays } from './gamedays.ts';
import type { GameDayPlan, HypothesisAnswer, StepRef } from './plan.ts';
import { runnerOf } from './planChanges.ts';
import { runPlans } from './planRunner.ts';
import { type GameDayChange, gameDayAccess } from './gamedayAccess.ts';
import { endGameDay, haltUnfinished, makeDueReports, unfinishedAttacks } from './gamedayEnd.ts';
import type { GameDayRecord } from './gamedayRecord.ts';
import { answerStep, delayStep, skipStep, startStepNow, vetoStep } from './planSteps.ts';
import type { ReportSharing } from './report.ts';

/** What game days, their plans and their reports use. */
export interface GameDayParts {
  gameDays: GameDays;
  store: KeyValueStore;
  cards: CardStore;
  sessions: SessionStore;
  platform: PlatformClient;
  events: Recorder;
  logger: Logger;
  clock: { now(): number };
  config: Pick<Config, 'countdownSeconds'>;
  /** Where a game day's report is shared, or its failure said. */
  reports: ReportSharing;
  guards: GuardStore;
  watches: Watches;
  savedAttacks: SavedAttacks;
  guardrails: GuardrailService;
  /** What a plan step starts at zero: the attacks' start policy, with the runner's session. */
  startStep(ask: StartAsk, way: StartWay): Promise<StartOutcome>;
}

/** Game days, their plans and a plan's steps under way: who may act on them, and what changes. */
export class GameDayService {
  readonly #parts: GameDayParts;

  constructor(parts: GameDayParts) {
    this.#parts = parts;
  }

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

  /** The channel's running game day, if any. */
  running(channel: string) {
    return this.#parts.gameDays.running(channel);
  }

  /** Whether the person may make this change to the game day (end it, change its guards). */
  access(actor: Actor, record: GameDayRecord, change: GameDayChange) {
    return gameDayAccess(this.#parts, actor, record, change);
  }

  /** The game day's attacks that still run, as the person's teams show them. */
  unfinished(actor: Actor, record: GameDayRecord) {
    return unfinishedAttacks(this.#parts, actor, record);
  }

  /** Halts, with the person's session (they must be logged in), the game day's attacks that still run. */
  async haltUnfinished(actor: Actor, record: GameDayRecord) {
    await requireLogin(this.#parts, actor);
    return haltUnfinished(this.#parts, actor, record);
  }

  /**
   * Ends the channel's game day and posts its summary, whatever still runs; after a halt of what
   * ran (`afterHalts`), its report waits for the halts to land.
   */
  end(actor: Actor, channel: string, options: { afterHalts?: boolean } = {}) {
    return endGameDay(this.#parts, actor, channel, options);
  }

  /**
   * The background job: starts the steps whose countdown is over, and the automatic mode's next;
   * makes the reports that waited for their halts to land.
   */
  async runPlans(): Promise<void> {
    await runPlans(this.#parts);
    await makeDueReports(this.#parts);
  }
}
