import { isLive } from '../attacks/lifecycle.ts';
import type { LoginParts } from './service.ts';
import type { Breathe } from '../jobs/scheduler.ts';
import type { Person } from '../store/sessions.ts';
import { secureLoginUrl } from './entry.ts';
import { keys } from '../store/keys.ts';

/** What a person is warned of: when their session ends, how many of their attacks run, where to log in again. */
export interface ExpiryWarning {
  expiresAt: Date;
  liveAttacks: number;
  /** A one-time link to the secure login page, when Faultline offers it. */
  secureUrl: string | undefined;
}

/** Where a person is warned; the words and the Slack call are src/slack/sessionWarnings.ts's. */
export interface SessionWarnings {
  /** Sends the warning to the person directly. */
  warn(person: Person, warning: ExpiryWarning): Promise<void>;
}

/** A session that ends within this, while its owner's attacks run, earns its owner one warning. */
export const expiryWarningMs = 10 * 60_000;

/**
 * Warns, by direct message, each person whose platform session ends within ten minutes while
 * attacks they started are still live: once per session (the session's end is in the marker),
 * whichever replica gets there first. Never throws: a failed warning must not stop a poll.
 */
export async function warnExpiringSessions(parts: LoginParts, breathe?: Breathe): Promise<number> {
  try {
    const owners = new Map<string, { person: Person & { userName: string }; live: number }>();
    for (const card of [...(await parts.cards.liveCardsByTeam(breathe)).values()].flat()) {
      // A card a watch posted was started elsewhere: its reader did not start it.
      if (!isLive(card) || card.origin) continue;
      const key = `${card.startedBy.workspaceId}:${card.startedBy.userId}`;
      const owner = owners.get(key) ?? { person: card.startedBy, live: 0 };
      owner.live++;
      owners.set(key, owner);
    }
    let sent = 0;
    for (const [key, { person, live }] of owners) {
      const login = await parts.sessions.get(person);
      if (!login) continue;
      const left = login.expiresAt.getTime() - parts.clock.now();
      if (left > expiryWarningMs) continue;
      const marker = keys.expiryWarned.key(key, login.expiresAt.getTime());
      const markerTtlMs = keys.expiryWarned.ttlMs(left);
      // Claims outlive a restart on every store, so this one warns once per session, on one replica.
      if (!(await parts.store.claim(marker, markerTtlMs))) continue;
      const actor = { ...person, channelId: undefined };
      await parts.sessionWarnings.warn(person, {
        expiresAt: login.expiresAt,
        liveAttacks: live,
        secureUrl: await secureLoginUrl(actor, parts),
      });
      parts.logger.info(
        { slackWorkspace: person.workspaceId, slackUser: person.userId, liveAttacks: live },
        'warned a person that their session ends soon',
      );
      sent++;
    }
    return sent;
  } catch (error) {
    parts.logger.warn({ err: error }, 'could not warn about sessions that end soon');
    return 0;
  }
}
