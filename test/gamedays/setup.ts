/**
 * The game days on a store of their own, with a recording board in place of Slack: what a test
 * of the game days, their plans or their report sets up alike.
 */
import { CardStore } from '../../src/attacks/cards.ts';
import type { GameDayBoard } from '../../src/gamedays/gamedaySteps.ts';
import { GameDays } from '../../src/gamedays/gamedays.ts';
import { GuardStore } from '../../src/guardrails/guards.ts';
import { createLogger, type Logger } from '../../src/logger.ts';
import type { KeyValueStore } from '../../src/store/keyValue.ts';

/** A board that adds what reached Slack's side to `seen`, in order; what it posts is in `channel`. */
export function recordingBoard(seen: string[], channel: string): GameDayBoard {
  const posted = (what: string) => async () => {
    seen.push(what);
    return { channel, ts: `${seen.length}.0` };
  };
  const queued = (what: string) => () => void seen.push(what);
  return {
    postCard: posted('card posted'),
    updateCard: queued('card'),
    tell: async (_record, event) => void seen.push(`told ${event.kind}`),
    tellFailure: async () => void seen.push('failure told'),
    postSummary: posted('summary posted'),
    postCountdown: posted('countdown posted'),
    updateCountdown: queued('countdown'),
    tellRehearsed: async () => void seen.push('rehearsal told'),
    askHypothesis: posted('question asked'),
    updateQuestion: queued('question'),
    describeError: (error) => (error as Error).name,
    updateSummary: queued('summary'),
  };
}

/** The game days over `store`, on the clock `now`, with the cards and guards they read. */
export function gameDaysOn(
  store: KeyValueStore,
  options: { seen: string[]; channel: string; now: () => number; board?: GameDayBoard; logger?: Logger },
) {
  const logger = options.logger ?? createLogger('silent');
  const cards = new CardStore(store);
  const guards = new GuardStore(store);
  const board = options.board ?? recordingBoard(options.seen, options.channel);
  return { logger, cards, guards, gameDays: new GameDays({ store, board, logger, now: options.now, cards, guards }) };
}
