import type { MessageRef } from '../attacks/cards.ts';
import type { GameDayAttack, GameDayEvent, GameDayOutcomes, GameDayRecord } from './gamedayRecord.ts';
import type { PlanStep } from './plan.ts';

/**
 * Where a game day is shown: its card, the timeline in the card's thread, and the summary once it
 * ends. The words and the Slack calls are src/slack/gamedayBoard.ts's.
 */
export interface GameDayBoard {
  /** Posts the card of a game day that has just started. */
  postCard(record: GameDayRecord): Promise<MessageRef>;
  /** Queues the redraw of the card. */
  updateCard(record: GameDayRecord): void;
  /** Tells an event in the card's thread. */
  tell(record: GameDayRecord, event: GameDayEvent): Promise<void>;
  /** Tells in the card's thread that an attack of the game day failed, at which stage. */
  tellFailure(record: GameDayRecord, attack: GameDayAttack, stage: string): Promise<void>;
  postSummary(record: GameDayRecord, outcomes: GameDayOutcomes): Promise<MessageRef>;
  /** Posts the countdown card of a step: it starts at `startsAt` unless someone vetoes or skips it. */
  postCountdown(record: GameDayRecord, step: PlanStep): Promise<MessageRef>;
  /** Queues the redraw of a step's countdown card, as the step now stands. */
  updateCountdown(record: GameDayRecord, step: PlanStep): void;
  /** Tells, in a rehearsal's thread, what a rehearsed step would have started: nothing was created. */
  tellRehearsed(record: GameDayRecord, step: PlanStep): Promise<void>;
  /** Asks the channel, in the game day's thread, whether the step's hypothesis held. */
  askHypothesis(record: GameDayRecord, step: PlanStep): Promise<MessageRef>;
  /** Queues the redraw of the question, answered. */
  updateQuestion(record: GameDayRecord, step: PlanStep): void;
  /** Why a start was refused, in the words a person reads. */
  describeError(error: unknown, teamName: string): string;
  /** Queues the redraw of a posted summary, with outcomes learnt since. */
  updateSummary(at: MessageRef, record: GameDayRecord, outcomes: GameDayOutcomes): void;
}
