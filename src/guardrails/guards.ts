import { NoIntegrationError, NotFoundError, UnauthorizedError } from '../client/errors.ts';
import type { ScopedPlatform } from '../client/index.ts';
import { alertHealth, type Health, monitorHealth } from '../client/monitoring.ts';
import type { CardGuard, CardRecord } from '../attacks/cards.ts';
import type { StartParts } from '../attacks/start.ts';
import { UserInputError } from '../errors.ts';
import type { KeyValueStore } from '../store/keyValue.ts';
import type { Actor, Person } from '../store/sessions.ts';
import { keys } from '../store/keys.ts';

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
function distinctGuards(guards: readonly Guard[]): Guard[] {
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
      const options = { integrationName: spec.integration, domain: spec.domain };
      const monitor = await api.monitoring.getMonitorA(spec.monitorId, options);
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

/** What halting a guarded attack needs, and where to say so. */
export type GuardedAttack = Pick<
  CardRecord,
  'guid' | 'kind' | 'teamId' | 'teamName' | 'channel' | 'type' | 'createdAt' | 'startedBy' | 'lengthSeconds'
>;

/** An attack's guards as stored; a bare list is how they were kept before the attack was kept with them. */
type StoredAttackGuards = { attack: GuardedAttack; guards: Guard[] } | Guard[];

/** A guard of a game day, under a key of its own. */
type GameDayGuard = { guard: Guard; addedAt: number };

const guardsOf = (stored: StoredAttackGuards | undefined): Guard[] =>
  stored === undefined ? [] : Array.isArray(stored) ? stored : stored.guards;

/**
 * Where guards are kept: per attack and per game day (by its id, so they end with it), and the
 * last reading of each distinct guard, shared by everything it covers.
 */
export class GuardStore {
  readonly #store: KeyValueStore;

  constructor(store: KeyValueStore) {
    this.#store = store;
  }

  async forAttack(guid: string): Promise<Guard[]> {
    return guardsOf(await this.#store.get<StoredAttackGuards>(keys.attackGuards.key(guid)));
  }

  /**
   * Keeps an attack's guards with what halting it needs, written as soon as it is created: they
   * hold before its card is saved, and when its card could not be posted at all.
   */
  async setForAttack(attack: GuardedAttack, guards: Guard[]): Promise<void> {
    const stored: StoredAttackGuards = { attack, guards };
    if (guards.length) await this.#store.set(keys.attackGuards.key(attack.guid), stored, keys.attackGuards.ttlMs);
  }

  /**
   * Adds guards to an attack's own (one it has already keeps its owner), so they cover it for as
   * long as it lives, whatever happens to where they came from.
   */
  async addForAttack(attack: GuardedAttack, guards: Guard[]): Promise<void> {
    const own = await this.forAttack(attack.guid);
    const all = distinctGuards([...own, ...guards]);
    if (all.length > own.length) await this.setForAttack(attack, all);
  }

  /** Every attack that has guards of its own, with them (the attack itself unless kept before it was). */
  async attackGuards(): Promise<{ guid: string; attack: GuardedAttack | undefined; guards: Guard[] }[]> {
    const found: { guid: string; attack: GuardedAttack | undefined; guards: Guard[] }[] = [];
    for await (const [key, stored] of this.#store.entries<StoredAttackGuards>(keys.attackGuards.prefix)) {
      const attack = Array.isArray(stored) ? undefined : stored.attack;
      found.push({ guid: key.slice(keys.attackGuards.prefix.length), attack, guards: guardsOf(stored) });
    }
    return found;
  }

  async dropForAttack(guid: string): Promise<void> {
    await this.#store.delete(keys.attackGuards.key(guid));
  }

  /** A game day's guards in the order they were added. */
  async forGameDay(id: string): Promise<Guard[]> {
    // Kept as one list per game day before each guard had its own key.
    const listed = (await this.#store.get<Guard[]>(keys.gameDayGuard.list(id))) ?? [];
    const added: GameDayGuard[] = [];
    for await (const [, entry] of this.#store.entries<GameDayGuard>(keys.gameDayGuard.ofGameDay(id))) added.push(entry);
    return distinctGuards([...listed, ...added.sort((x, y) => x.addedAt - y.addedAt).map((entry) => entry.guard)]);
  }

  /**
   * Adds guards to a game day (one already there keeps its owner), each under a key of its own,
   * so two people adding guards at once both keep theirs.
   */
  async addToGameDay(id: string, guards: Guard[]): Promise<Guard[]> {
    const kept = new Set((await this.forGameDay(id)).map((g) => guardKey(g.spec)));
    const now = Date.now();
    for (const [index, guard] of guards.entries()) {
      const key = guardKey(guard.spec);
      if (kept.has(key)) continue;
      kept.add(key);
      await this.#store.set(keys.gameDayGuard.key(id, key), { guard, addedAt: now + index }, keys.gameDayGuard.ttlMs);
    }
    return this.forGameDay(id);
  }

  /**
   * Removes the game day's guards written as `flags` (`a:1234567`, whatever their integration),
   * from the one list kept before too; gives those removed.
   */
  async removeFromGameDay(id: string, flags: readonly string[]): Promise<Guard[]> {
    const removed = (await this.forGameDay(id)).filter((g) => flags.includes(guardFlag(g.spec)));
    if (!removed.length) return [];
    const gone = new Set(removed.map((g) => guardKey(g.spec)));
    for (const key of gone) await this.#store.delete(keys.gameDayGuard.key(id, key));
    const listed = (await this.#store.get<Guard[]>(keys.gameDayGuard.list(id))) ?? [];
    const rest = listed.filter((g) => !gone.has(guardKey(g.spec)));
    if (rest.length < listed.length) await this.#store.set(keys.gameDayGuard.list(id), rest, keys.gameDayGuard.ttlMs);
    return removed;
  }

  reading(spec: GuardSpec): Promise<GuardReading | undefined> {
    return this.#store.get<GuardReading>(keys.guardReading.key(guardKey(spec)));
  }

  async saveReading(spec: GuardSpec, reading: GuardReading): Promise<void> {
    await this.#store.set(keys.guardReading.key(guardKey(spec)), reading, keys.guardReading.ttlMs);
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
  const gameDay = await deps.gameDays.runningBase(channel);
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

/** A start its guards refuse, with the guards that refuse it; the words are the views'. */
export class GuardsRefusedError extends UserInputError {
  readonly checks: GuardCheck[];
  constructor(checks: GuardCheck[], why: string) {
    super(`${why}; nothing was started.`);
    this.checks = checks;
  }
}

/** A guard says the system is unhealthy. */
export class UnhealthyGuardsError extends GuardsRefusedError {
  override name = 'UnhealthyGuardsError';
}

/** An unhealthy guard refuses the start, naming the guard and its state. */
export function refuseIfUnhealthy(checks: GuardCheck[]): void {
  const unhealthy = checks.filter((c) => c.reading.health === 'unhealthy');
  if (unhealthy.length) throw new UnhealthyGuardsError(unhealthy, 'A guard says the system is unhealthy');
}

/** A guard the start names itself (`--guard`) watches a monitor or alert that does not exist. */
export class MissingGuardsError extends GuardsRefusedError {
  override name = 'MissingGuardsError';
}

/**
 * A guard the start names itself that finds no monitor or alert could never halt it: refused,
 * rather than offered as Start anyway. A game day's guards are the facilitator's to mend.
 */
export function refuseIfMissing(checks: GuardCheck[], own: readonly GuardSpec[] = []): void {
  const ownKeys = new Set(own.map(guardKey));
  const missing = checks.filter((c) => c.reading.state === 'not found' && ownKeys.has(guardKey(c.guard.spec)));
  if (missing.length) throw new MissingGuardsError(missing, 'A guard of this attack watches nothing that exists');
}

/** A start whose guards cannot all be read, not yet confirmed with "Start anyway". */
export class GuardsUnknownError extends GuardsRefusedError {
  override name = 'GuardsUnknownError';
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
  if (unknown.length) throw new GuardsUnknownError(unknown, 'The state of a guard cannot be told');
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
