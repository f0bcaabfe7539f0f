import type { ScopedPlatform } from '../client/index.ts';
import type { Deps } from '../deps.ts';
import { UserInputError } from '../errors.ts';
import type { Actor } from '../store/sessions.ts';
import { escapeMrkdwn } from '../views/blocks.ts';
import type { CardGuard } from '../attacks/cards.ts';
import { type Guard, guardKey, guardName, type GuardReading, type GuardSpec, readGuard } from './guards.ts';

export interface GuardCheck {
  guard: Guard;
  reading: GuardReading;
}

/**
 * The guards that cover a start: the attack's own (`--guard`, set by the starter) and those of
 * the game day running in its channel.
 */
export async function coveringGuards(
  deps: Deps,
  actor: Actor,
  channel: string,
  own: GuardSpec[] = [],
): Promise<Guard[]> {
  const owner = { workspaceId: actor.workspaceId, userId: actor.userId, userName: actor.userName };
  const guards: Guard[] = own.map((spec) => ({ spec, owner }));
  const gameDay = await deps.gameDays.running(channel);
  if (gameDay) guards.push(...(await deps.guards.forGameDay(gameDay.id)));
  const seen = new Set<string>();
  return guards.filter((g) => !seen.has(guardKey(g.spec)) && seen.add(guardKey(g.spec)));
}

/** Reads every guard of a start with the starter's session, and keeps each reading for the cards. */
export async function checkGuards(deps: Deps, api: ScopedPlatform, guards: Guard[]): Promise<GuardCheck[]> {
  return Promise.all(
    guards.map(async (guard) => {
      const reading = await readGuard(api, guard.spec, deps.clock.now);
      await deps.guards.saveReading(guard.spec, reading).catch(() => undefined);
      return { guard, reading };
    }),
  );
}

const named = (checks: GuardCheck[]) =>
  checks
    .map((c) => `*${escapeMrkdwn(guardName(c.guard.spec, c.reading))}* (${escapeMrkdwn(c.reading.state)})`)
    .join(', ');

/** An unhealthy guard refuses the start, naming the guard and its state. */
export function refuseIfUnhealthy(checks: GuardCheck[]): void {
  const unhealthy = checks.filter((c) => c.reading.health === 'unhealthy');
  if (unhealthy.length) {
    throw new UserInputError(
      `:rotating_light: Not started: ${unhealthy.length === 1 ? 'its guard' : 'its guards'} ${named(unhealthy)} ${unhealthy.length === 1 ? 'says' : 'say'} the system is unhealthy. Nothing was sent; start it once ${unhealthy.length === 1 ? 'it recovers' : 'they recover'}.`,
    );
  }
}

/** A start whose guards cannot all be read, not yet confirmed with "Start anyway". */
export class GuardsUnknownError extends UserInputError {
  override name = 'GuardsUnknownError';
}

/**
 * Before a start: unhealthy refuses; a state that cannot be told needs the person to have seen it
 * on the preview (its guard keys in `acknowledged`) and chosen Start anyway.
 */
export async function guardStart(
  deps: Deps,
  api: ScopedPlatform,
  guards: Guard[],
  acknowledged: readonly string[] | undefined,
): Promise<GuardCheck[]> {
  const checks = await checkGuards(deps, api, guards);
  refuseIfUnhealthy(checks);
  const unknown = unknownGuards(checks).filter((c) => !acknowledged?.includes(guardKey(c.guard.spec)));
  if (unknown.length)
    throw new GuardsUnknownError(
      `${unknownGuardsText(unknown)} Nothing was started: run the command again, and its preview shows the guards and offers Start anyway.`,
    );
  return checks;
}

/** The guards whose state cannot be told: Start then asks for an explicit "start anyway". */
export function unknownGuards(checks: GuardCheck[]): GuardCheck[] {
  return checks.filter((c) => c.reading.health === 'unknown');
}

export function unknownGuardsText(checks: GuardCheck[]): string {
  return `:grey_question: The state of ${checks.length === 1 ? 'guard' : 'guards'} ${named(checks)} cannot be told, so ${checks.length === 1 ? 'it' : 'they'} cannot stop this attack if the system turns unhealthy.`;
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
