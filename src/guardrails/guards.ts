import { NoIntegrationError, NotFoundError, UnauthorizedError } from '../client/errors.ts';
import type { ScopedPlatform } from '../client/index.ts';
import { alertHealth, type Health, monitorHealth } from '../client/schemas.ts';
import type { CardGuard } from '../attacks/cards.ts';
import type { StartParts } from '../attacks/start.ts';
import { UserInputError } from '../errors.ts';
import type { Actor, Person } from '../store/sessions.ts';

/**
 * A health signal the platform reads for a team: a monitoringA monitor (integration, domain, id)
 * or a monitoringB alert (URI, name). Unhealthy refuses starts and halts what it covers.
 */
export type GuardSpec =
  | { kind: 'a'; monitorId: string; integration: string; domain?: string | undefined }
  | { kind: 'b'; alert: string; uri: string };

/** A guard as something covers it: who set it (their session reads it and halts). */
export interface Guard {
  spec: GuardSpec;
  owner: Person & { userName: string };
}

/** What a guard last read said. */
export interface GuardReading {
  health: Health;
  /** The state in the product's words (`Alert`, `firing`, `No Data`), or why none could be read. */
  state: string;
  /** The monitor's name, when it was read; an alert is named by its name already. */
  name?: string | undefined;
  at: string;
}

/** The one identity of a guard: two attacks guarded by the same monitor share its reading. */
export function guardKey(spec: GuardSpec): string {
  return spec.kind === 'a'
    ? `a|${spec.integration}|${spec.domain ?? ''}|${spec.monitorId}`
    : `b|${spec.uri}|${spec.alert}`;
}

/** Each guard once, the first of those sharing a key kept. */
export function distinctGuards(guards: readonly Guard[]): Guard[] {
  const seen = new Set<string>();
  return guards.filter((g) => !seen.has(guardKey(g.spec)) && seen.add(guardKey(g.spec)));
}

/** How a guard is written in a command: `a:1234567`, `b:CheckoutErrorRate`. */
export function guardFlag(spec: GuardSpec): string {
  return spec.kind === 'a' ? `a:${spec.monitorId}` : `b:${spec.alert}`;
}

/** A guard in words: its monitor's name when known, else what identifies it. */
export function guardName(spec: GuardSpec, reading?: Pick<GuardReading, 'name'>): string {
  if (spec.kind === 'b') return spec.alert;
  return reading?.name ? `${reading.name} (${spec.monitorId})` : `monitor ${spec.monitorId}`;
}

/**
 * Reads one guard with a session and a team. Never throws for the guard's own sake: a monitor
 * that is gone, an integration that is missing or a platform that does not answer is `unknown`,
 * with why. An expired session throws, so the caller can say whose it was.
 */
export async function readGuard(api: ScopedPlatform, spec: GuardSpec, now: () => number): Promise<GuardReading> {
  const at = new Date(now()).toISOString();
  try {
    if (spec.kind === 'a') {
      const monitor = await api.monitoring.getMonitorA(spec.monitorId, {
        integrationName: spec.integration,
        domain: spec.domain,
      });
      return { health: monitorHealth(monitor), state: monitor.overall_state ?? 'no state', name: monitor.name, at };
    }
    const alerts = await api.monitoring.alertsB({ uri: spec.uri, name: spec.alert });
    const alert = alerts.find((a) => a.name === spec.alert);
    if (!alert) return { health: 'unknown', state: 'not found', at };
    return { health: alertHealth(alert), state: alert.state ?? 'no state', at };
  } catch (error) {
    if (error instanceof UnauthorizedError) throw error;
    if (error instanceof NoIntegrationError) return { health: 'unknown', state: 'no integration', at };
    if (error instanceof NotFoundError) return { health: 'unknown', state: 'not found', at };
    return { health: 'unknown', state: 'unreachable', at };
  }
}

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
