import type { Logger } from '../logger.ts';
import type { CardRecord, MessageRef } from '../attacks/cards.ts';
import type { GameDayAttack, GameDayEvent, GameDayOutcomes, GameDayRecord } from './gamedayRecord.ts';
import { keys } from '../store/keys.ts';
import type { GameDayPlan, PlanStep, StepRef, StepRehearsal } from './plan.ts';
import { type GameDay, type GameDayParts, GameDayReads } from './gamedayReads.ts';
import { endStep, iso, rehearseStep, takeAttack } from './planStepState.ts';

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

/** What a game day is shown with, besides what it is read from. */
export interface GameDayShowParts extends GameDayParts {
  board: GameDayBoard;
  logger: Logger;
  now: () => number;
}

/** What the card shows of the guards: a redraw is due when this changes. */
export function guardsShown(record: GameDayRecord): string {
  return JSON.stringify([record.guards ?? [], (record.trips ?? []).map((t) => [t.key, t.at])]);
}

/**
 * A game day's card and its plan's steps as they start and end: the countdown cards, a rehearsed
 * step told in the thread, and the question whether a step's hypothesis held. The game day's own
 * life (start, events, end, summary) is gamedays.ts's.
 */
export class GameDaySteps extends GameDayReads {
  /** Where the game day is shown: its card, its thread, its countdowns and its summary. */
  readonly board: GameDayBoard;
  protected readonly logger: Logger;
  protected readonly now: () => number;

  constructor(parts: GameDayShowParts) {
    super(parts);
    this.board = parts.board;
    this.logger = parts.logger;
    this.now = parts.now;
  }

  /** Queues the redraw of a running game day's card as its record now stands, remembering which guard readings it shows. */
  async showCard(record: GameDay): Promise<void> {
    await this.store.set(keys.gameDayGuardsShown.key(record.id), guardsShown(record), keys.gameDayGuardsShown.ttlMs);
    this.board.updateCard(record);
  }

  /** A step's attack was created (by its start at zero, or by the second person it needed): it runs. */
  async stepStarted(ref: StepRef, guid: string): Promise<void> {
    const { result: step } = await this.plans.change({ gameDayId: ref.gameDayId }, (plan) =>
      takeAttack(plan, ref.stepId, guid),
    );
    if (step === 'late')
      this.logger.info({ attack: guid, step: ref.stepId }, 'an attack started for a step that no longer waited for it');
    if (typeof step === 'string') return;
    await this.plans.linkAttack(guid, ref);
    const record = await this.running(ref.channel);
    if (record?.id === ref.gameDayId && step.countdown?.ts) this.board.updateCountdown(record, step);
  }

  /** A step's attack ended: the step has ended, and the channel is asked whether its hypothesis held. */
  protected async stepEnded(ref: StepRef, card: CardRecord): Promise<void> {
    const at = iso(this.now());
    await this.#endStep(ref, (plan) => endStep(plan, ref.stepId, card, at));
  }

  /**
   * A rehearsal's step went through the start policy at zero and was not created: it has ended,
   * what it would have done is told in the thread, and its hypothesis is asked as after an attack.
   */
  async stepRehearsed(ref: StepRef, rehearsal: StepRehearsal): Promise<void> {
    const at = iso(this.now());
    await this.#endStep(ref, (plan) => rehearseStep(plan, ref.stepId, rehearsal, at));
  }

  /**
   * A step has ended (`end` gives it, once): its countdown card follows it, a rehearsed one is
   * told, and the channel is asked, once, whether its hypothesis held (in the game day's thread,
   * even when the game day ended meanwhile).
   */
  async #endStep(ref: StepRef, end: (plan: GameDayPlan) => PlanStep | undefined): Promise<void> {
    const { result: step } = await this.plans.change({ gameDayId: ref.gameDayId }, end);
    if (!step) return;
    const record = await this.recordOf(ref);
    // Its countdown card follows it to its end, whoever asks the question.
    if (record && step.countdown?.ts) this.board.updateCountdown(record, step);
    if (record && step.rehearsed) await this.board.tellRehearsed(record, step);
    if (!record || !(await this.plans.claimQuestion(step.id))) return;
    const asked = await this.board.askHypothesis(record, step);
    await this.plans.change({ gameDayId: ref.gameDayId }, (plan) => {
      const kept = plan.steps.find((s) => s.id === step.id);
      if (kept) kept.questionTs = asked.ts;
    });
    if (!record.endedAt) await this.showCard((await this.recordOf(ref))!);
  }

  /** Queues the redraw of a step's countdown card. */
  redrawCountdown(record: GameDayRecord, step: PlanStep): void {
    if (step.countdown?.ts) this.board.updateCountdown(record, step);
  }

  /** Queues the redraw of a step's question, once answered. */
  redrawQuestion(record: GameDayRecord, step: PlanStep): void {
    if (step.questionTs) this.board.updateQuestion(record, step);
  }
}
