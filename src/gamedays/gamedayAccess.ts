import type { TeamEntry } from '../client/index.ts';
import type { GameDayParts } from './service.ts';
import { mayRunAttacks, RUN_PRIVILEGE } from '../attacks/access.ts';
import type { Actor } from '../store/sessions.ts';
import type { GameDayRecord } from './gamedayRecord.ts';

/**
 * Who may act on a game day besides its plan (whose rule is planChanges.ts's `requireMayRunStep`),
 * whichever way in (command, button, form, workflow step): read from the person's own session.
 */

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
