import type { AttackParts } from './service.ts';
import type { MessageRef } from './cards.ts';
import { keys } from '../store/keys.ts';

/**
 * Notes the cards whose last update did not reach Slack before this replica stopped (Slack was
 * rate-limiting, or slow past the shutdown's time limit). The store already holds what they
 * should show; redrawUnsent, on whichever replica polls next, puts that on them.
 */
export async function rememberUnsent(
  deps: Pick<AttackParts, 'store' | 'logger'>,
  messages: MessageRef[],
): Promise<void> {
  for (const { channel, ts } of messages) {
    await deps.store
      .set(keys.unsentUpdate.key(channel, ts), { channel, ts }, keys.unsentUpdate.ttlMs)
      .catch((error: unknown) => {
        deps.logger.warn({ err: error, channel, ts }, 'could not keep a card update for the next replica');
      });
  }
}

/**
 * Draws again, from the store, every attack or game-day card noted by rememberUnsent, and
 * forgets the note once the update is queued. Never throws: it is a background job.
 */
export async function redrawUnsent(
  deps: Pick<AttackParts, 'store' | 'cards' | 'events' | 'gameDays' | 'logger'>,
): Promise<number> {
  let redrawn = 0;
  try {
    const noted: MessageRef[] = [];
    for await (const [, message] of deps.store.entries<MessageRef>(keys.unsentUpdate.prefix)) noted.push(message);
    for (const { channel, ts } of noted) {
      const card = await deps.cards.byMessage(channel, ts);
      if (card) {
        await deps.events.record({ kind: 'changed', card });
        redrawn++;
      } else {
        const gameDay = await deps.gameDays.byCard(channel, ts);
        if (gameDay) {
          deps.gameDays.redrawCard(gameDay);
          redrawn++;
        }
      }
      await deps.store.delete(keys.unsentUpdate.key(channel, ts));
    }
  } catch (error) {
    deps.logger.warn({ err: error }, 'could not redraw the cards a stopped replica left');
  }
  return redrawn;
}
