import type { GuardrailParts } from './service.ts';
import { platformFor } from '../attacks/access.ts';
import { type GameDayAccess, gameDayAccess } from '../gamedays/gamedayAccess.ts';
import type { GameDayRecord } from '../gamedays/gamedayRecord.ts';
import type { Actor } from '../store/sessions.ts';
import {
  checkGuards,
  type GuardCheck,
  guardFlag,
  guardKey,
  guardName,
  type GuardReading,
  type GuardSpec,
} from './guards.ts';

/**
 * A running game day's guards, added and removed whichever way in (command, form, start), by
 * those the game-day rule lets change them (src/gamedays/gamedayAccess.ts).
 */

type RunningGameDay = GameDayRecord & { id: string };

/**
 * Adds guards to the game day, with the person as their owner; gives a reading of each, in order.
 * `checks` are readings already taken of these guards (the form reads them to refuse bad ones).
 */
export async function addGameDayGuards(
  deps: GuardrailParts,
  actor: Actor,
  record: RunningGameDay,
  specs: readonly GuardSpec[],
  checks?: GuardCheck[],
): Promise<{ refused: GameDayAccess } | { readings: (GuardReading | undefined)[] }> {
  const access = await gameDayAccess(deps, actor, record, 'add guards');
  if (!access.may) return { refused: access };
  const owner = { workspaceId: actor.workspaceId, userId: actor.userId, userName: actor.userName };
  const all = await deps.guards.addToGameDay(
    record.id,
    specs.map((spec) => ({ spec, owner })),
  );
  let readings = checks;
  if (!readings) {
    const login = await deps.sessions.get(actor);
    readings = login?.team
      ? await checkGuards(
          deps,
          platformFor(deps, login, login.team),
          all.filter((g) => specs.some((s) => guardKey(s) === guardKey(g.spec))),
        )
      : [];
  }
  return { readings: specs.map((spec) => readings.find((r) => guardKey(r.guard.spec) === guardKey(spec))?.reading) };
}

/** Removes guards from the game day; gives the names of those removed, and the flags it did not have. */
export async function removeGameDayGuards(
  deps: GuardrailParts,
  actor: Actor,
  record: RunningGameDay,
  specs: readonly GuardSpec[],
): Promise<{ refused: GameDayAccess } | { removed: string[]; missing: string[] }> {
  const access = await gameDayAccess(deps, actor, record, 'remove guards');
  if (!access.may) return { refused: access };
  const flags = specs.map(guardFlag);
  const removed = await deps.guards.removeFromGameDay(record.id, flags);
  const names: string[] = [];
  for (const guard of removed) names.push(guardName(guard.spec, await deps.guards.reading(guard.spec)));
  return { removed: names, missing: flags.filter((flag) => !removed.some((g) => guardFlag(g.spec) === flag)) };
}
