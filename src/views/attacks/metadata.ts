import type { MessageMetadata } from '@slack/types';
import type { GameDayRecord } from '../../gamedays/gamedayRecord.ts';

/** The event type other apps read on a game-day card. */
export const GAME_DAY_EVENT_TYPE = 'faultline_game_day';

/** What a game-day card says to other apps: the game day, whether it runs, and who started it. */
export function gameDayMetadata(record: GameDayRecord): MessageMetadata {
  return {
    event_type: GAME_DAY_EVENT_TYPE,
    event_payload: {
      ...(record.id ? { id: record.id } : {}),
      channel: record.channel,
      title: record.title,
      stage: record.endedAt ? 'ended' : 'running',
      started_by: record.facilitator,
      started_at: record.startedAt,
      ...(record.endedAt ? { ended_at: record.endedAt } : {}),
      attacks: record.attacks.length,
      halts: record.halts.length,
    },
  };
}
