import type { ScopedPlatform } from '../client/index.ts';
import type { StartParts } from '../attacks/start.ts';
import { UserInputError } from '../errors.ts';
import type { Actor } from '../store/sessions.ts';
import type { CardGuard } from '../attacks/cards.ts';
import {
  distinctGuards,
  type Guard,
  guardKey,
  guardName,
  type GuardReading,
  type GuardSpec,
  readGuard,
} from './guards.ts';

export interface GuardCheck {
  guard: Guard;
  reading: GuardReading;
}

/**
 * The guards that cover a start: the attack's own (`--guard`, set by the starter) and those of
 * the game day running in its channel.
 */
export async function coveringGuards(
  deps: StartParts,
  actor: Actor,
  channel: string,
  own: GuardSpec[] = [],
): Promise<Guard[]> {
  const owner = { workspaceId: actor.workspaceId, userId: actor.userId, userName: actor.userName };
  const guards: Guard[] = own.map((spec) => ({ spec, owner }));
  const gameDay = await deps.gameDays.running(channel);
  if (gameDay) guards.push(...(await deps.guards.forGameDay(gameDay.id)));
  return distinctGuards(guards);
}

/** Reads every guard of a start with the starter's session, and keeps each reading for the cards. */
export async function checkGuards(deps: StartParts, api: ScopedPlatform, guards: Guard[]): Promise<GuardCheck[]> {
  return Promise.all(
    guards.map(async (guard) => {
      const reading = await readGuard(api, guard.spec, deps.clock.now);
      await deps.guards.saveReading(guard.spec, reading).catch(() => undefined);
      return { guard, reading };
    }),
  );
}

/** A start refused because a guard says the system is unhealthy; the words are the views'. */
export class UnhealthyGuardsError extends UserInputError {
  override name = 'UnhealthyGuardsError';
  readonly unhealthy: GuardCheck[];
  constructor(unhealthy: GuardCheck[]) {
    super('A guard says the system is unhealthy; nothing was started.');
    this.unhealthy = unhealthy;
  }
}

/** An unhealthy guard refuses the start, naming the guard and its state. */
export function refuseIfUnhealthy(checks: GuardCheck[]): void {
  const unhealthy = checks.filter((c) => c.reading.health === 'unhealthy');
  if (unhealthy.length) throw new UnhealthyGuardsError(unhealthy);
}

/** A start refused because a guard it names itself (`--guard`) watches a monitor or alert that does not exist. */
export class MissingGuardsError extends UserInputError {
  override name = 'MissingGuardsError';
  readonly missing: GuardCheck[];
  constructor(missing: GuardCheck[]) {
    super('A guard of this attack watches nothing that exists; nothing was started.');
    this.missing = missing;
  }
}

/**
 * A guard the start names itself that finds no monitor or alert could never halt it: refused,
 * rather than offered as Start anyway. A game day's guards are the facilitator's to mend.
 */
export function refuseIfMissing(checks: GuardCheck[], own: readonly GuardSpec[] = []): void {
  const ownKeys = new Set(own.map(guardKey));
  const missing = checks.filter((c) => c.reading.state === 'not found' && ownKeys.has(guardKey(c.guard.spec)));
  if (missing.length) throw new MissingGuardsError(missing);
}

/** A start whose guards cannot all be read, not yet confirmed with "Start anyway". */
export class GuardsUnknownError extends UserInputError {
  override name = 'GuardsUnknownError';
  readonly unknown: GuardCheck[];
  constructor(unknown: GuardCheck[]) {
    super('The state of a guard cannot be told; nothing was started.');
    this.unknown = unknown;
  }
}

/**
 * Before a start: unhealthy refuses; a state that cannot be told needs the person to have seen it
 * on the preview (its guard keys in `acknowledged`) and chosen Start anyway.
 */
export async function guardStart(
  deps: StartParts,
  api: ScopedPlatform,
  guards: Guard[],
  acknowledged: readonly string[] | undefined,
): Promise<GuardCheck[]> {
  const checks = await checkGuards(deps, api, guards);
  refuseIfUnhealthy(checks);
  const unknown = unknownGuards(checks).filter((c) => !acknowledged?.includes(guardKey(c.guard.spec)));
  if (unknown.length) throw new GuardsUnknownError(unknown);
  return checks;
}

/** The guards whose state cannot be told: Start then asks for an explicit "start anyway". */
export function unknownGuards(checks: GuardCheck[]): GuardCheck[] {
  return checks.filter((c) => c.reading.health === 'unknown');
}

/** The guards as a new card shows them. */
export function cardGuards(checks: GuardCheck[]): CardGuard[] {
  return checks.map((c) => ({
    key: guardKey(c.guard.spec),
    name: guardName(c.guard.spec, c.reading),
    state: c.reading.state,
    health: c.reading.health,
  }));
}
