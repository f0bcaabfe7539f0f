import type { MessageRef } from '../attacks/cards.ts';
import type { GameDayBoard } from '../gamedays/gamedaySteps.ts';
import type { GameDayAttack, GameDayEvent, GameDayOutcomes, GameDayRecord } from '../gamedays/gamedayRecord.ts';
import { gameDayCard, gameDayFailureLine, gameDayTimelineLine } from '../views/gamedays/gameday.ts';
import { gameDaySummary } from '../views/gamedays/gamedaySummary.ts';
import type { Messenger } from './messenger.ts';
import type { PlanStep } from '../gamedays/plan.ts';
import { StepNotStartedError } from '../gamedays/planStepState.ts';
import { countdownMessage, hypothesisQuestion, rehearsedStepMessage } from '../views/gamedays/countdown.ts';
import { badged } from '../views/gamedays/gamedayWords.ts';
import { planWords } from '../views/gamedays/planWords.ts';
import { errorInBrief } from '../views/errorReply.ts';

/** A game day in its channel: the card, the timeline in the card's thread, the summary. */
export class SlackGameDayBoard implements GameDayBoard {
  readonly #messenger: Pick<Messenger, 'post' | 'update'>;
  readonly #now: () => number;

  constructor(messenger: Pick<Messenger, 'post' | 'update'>, now: () => number = Date.now) {
    this.#messenger = messenger;
    this.#now = now;
  }

  postCard(record: GameDayRecord): Promise<MessageRef> {
    return this.#messenger.post(record.channel, gameDayCard(record));
  }

  updateCard(record: GameDayRecord): void {
    this.#messenger.update(record.channel, record.ts, gameDayCard(record));
  }

  async tell(record: GameDayRecord, event: GameDayEvent): Promise<void> {
    await this.#messenger.post(
      record.channel,
      { text: badged(record, gameDayTimelineLine(event, record.attacks)) },
      { threadTs: record.ts },
    );
  }

  async tellFailure(record: GameDayRecord, attack: GameDayAttack, stage: string): Promise<void> {
    await this.#messenger.post(record.channel, { text: gameDayFailureLine(attack, stage) }, { threadTs: record.ts });
  }

  postSummary(record: GameDayRecord, outcomes: GameDayOutcomes): Promise<MessageRef> {
    return this.#messenger.post(record.channel, gameDaySummary(record, outcomes));
  }

  updateSummary(at: MessageRef, record: GameDayRecord, outcomes: GameDayOutcomes): void {
    this.#messenger.update(at.channel, at.ts, gameDaySummary(record, outcomes));
  }

  postCountdown(record: GameDayRecord, step: PlanStep): Promise<MessageRef> {
    return this.#messenger.post(record.channel, countdownMessage(record, step, this.#now()));
  }

  updateCountdown(record: GameDayRecord, step: PlanStep): void {
    if (step.countdown?.ts)
      this.#messenger.update(step.countdown.channel, step.countdown.ts, countdownMessage(record, step, this.#now()));
  }

  async tellRehearsed(record: GameDayRecord, step: PlanStep): Promise<void> {
    await this.#messenger.post(record.channel, rehearsedStepMessage(record, step), { threadTs: record.ts });
  }

  askHypothesis(record: GameDayRecord, step: PlanStep): Promise<MessageRef> {
    return this.#messenger.post(record.channel, hypothesisQuestion(record, step), { threadTs: record.ts });
  }

  updateQuestion(record: GameDayRecord, step: PlanStep): void {
    if (step.questionTs) this.#messenger.update(record.channel, step.questionTs, hypothesisQuestion(record, step));
  }

  describeError(error: unknown, teamName: string): string {
    if (error instanceof StepNotStartedError) return planWords.runnerGone(error.reason, error.runBy);
    return errorInBrief(error, { team: teamName });
  }
}
