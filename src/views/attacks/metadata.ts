import type { MessageMetadata } from '@slack/types';
import type { CardRecord } from '../../attacks/cards.ts';
import { phaseOf } from '../../attacks/lifecycle.ts';
import type { GameDayRecord } from '../../gamedays/gamedayRecord.ts';

/** The event type other apps read on an attack card (declared under `types` in manifest.yml). */
export const ATTACK_EVENT_TYPE = 'faultline_attack';
/** The event type other apps read on a game-day card. */
export const GAME_DAY_EVENT_TYPE = 'faultline_game_day';

/**
 * What an attack card says to other apps: the attack, its team, its type and stage, and who
 * started it. Sent with every post and update of the card, so it is always the card's state.
 */
export function attackMetadata(card: CardRecord): MessageMetadata {
  return {
    event_type: ATTACK_EVENT_TYPE,
    event_payload: {
      id: card.guid,
      kind: card.kind,
      team_id: card.teamId,
      team: card.teamName,
      type: card.type,
      stage: card.stage,
      phase: phaseOf(card),
      // A Slack user id; for an attack a watch found, the person whose watch read it.
      started_by: card.startedBy.userId,
      ...(card.startedByPlatform ? { started_by_platform: card.startedByPlatform } : {}),
      ...(card.origin?.source ? { source: card.origin.source } : {}),
      created_at: card.createdAt,
      ...(card.endTime ? { ended_at: card.endTime } : {}),
    },
  };
}

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
