import type { TeamEntry } from '../client/index.ts';
import { UserInputError } from '../errors.ts';
import { platformFor, teamName } from '../attacks/access.ts';
import type { CardRecord } from '../attacks/cards.ts';
import { type Halter, recordHalt } from '../attacks/halt.ts';
import { haltEverything } from '../attacks/massHalts.ts';
import type { KeyValueStore } from '../store/keyValue.ts';
import type { Login, Person } from '../store/sessions.ts';
import { keys } from '../store/keys.ts';
import type { GuardrailParts } from './service.ts';
import { haltTeamAttacks, type SweepResult } from './sweep.ts';

/**
 * A freeze: while it stands, no attack starts through Faultline in its scope (one team, or every
 * team), and the enforce-freezes job halts any attack that appears there from elsewhere.
 */
export interface Freeze {
  scope: 'team' | 'all';
  /** The frozen team (scope `team`). */
  teamId?: string | undefined;
  teamName?: string | undefined;
  /** Who declared it; their session halts what appears while it stands. */
  by: Person & { userName: string };
  reason: string;
  /** ISO time it was declared. */
  since: string;
  /** Where it was declared: halts made while it stands are reported there. */
  channel: string | undefined;
}

/** The freezes, one store key each, so every replica honours them and they survive restarts. */
export class Freezes {
  readonly #store: KeyValueStore;

  constructor(store: KeyValueStore) {
    this.#store = store;
  }

  async declare(freeze: Freeze): Promise<void> {
    await this.#store.set(keys.freeze.key(freeze.scope, freeze.teamId), freeze, keys.freeze.ttlMs);
  }

  /** Lifts a freeze; false when there was none. */
  lift(scope: Freeze['scope'], teamId?: string): Promise<boolean> {
    return this.#store.delete(keys.freeze.key(scope, teamId));
  }

  get(scope: Freeze['scope'], teamId?: string): Promise<Freeze | undefined> {
    return this.#store.get<Freeze>(keys.freeze.key(scope, teamId));
  }

  async all(): Promise<Freeze[]> {
    const found: Freeze[] = [];
    for await (const [, freeze] of this.#store.entries<Freeze>(keys.freeze.prefix)) found.push(freeze);
    return found;
  }

  /** The freezes that touch these teams: a freeze of everything, and the teams' own. */
  async touching(teamIds: Iterable<string>): Promise<Freeze[]> {
    const teams = new Set(teamIds);
    return (await this.all()).filter((f) => f.scope === 'all' || (f.teamId !== undefined && teams.has(f.teamId)));
  }

  /** The freeze that stops starts in a team: a freeze of everything first, else the team's own. */
  async covering(teamId: string): Promise<Freeze | undefined> {
    return (await this.get('all')) ?? (await this.get('team', teamId));
  }
}

/** A start refused because its team, or every team, is frozen; the refusal's words are the views'. */
export class FrozenError extends UserInputError {
  override name = 'FrozenError';
  readonly freeze: Freeze;
  constructor(freeze: Freeze) {
    super('Attacks are frozen there; nothing was started.');
    this.freeze = freeze;
  }
}

/** Where a freeze stands: one team, or every team. */
export type Scope = { scope: 'all' } | { scope: 'team'; team: TeamEntry };

/** What a freeze's halt did. */
export type FreezeHalting =
  /** `followed`: the live attacks Faultline followed there, which the platform's halt of everything does not count. */
  | { scope: 'all'; followed: number; error?: unknown }
  | { scope: 'team'; teamName: string; swept: SweepResult }
  | { scope: 'team'; teamName: string; error: unknown };

/** A person whose platform role could not halt where they would freeze or lift a freeze; the words are the views'. */
export class HaltPrivilegeError extends UserInputError {
  override name = 'HaltPrivilegeError';
  /** "freeze", "lift the freeze on". */
  readonly doing: string;
  /** The team, or undefined for every team. */
  readonly teamName: string | undefined;
  constructor(doing: string, team: string | undefined) {
    super(`Your platform role cannot ${doing} ${team ?? 'every team'}.`);
    this.doing = doing;
    this.teamName = team;
  }
}

/**
 * Refuses a person whose platform role could not halt in the scope: HALT_WRITE on the team, or
 * HALT_ALL for every team. Freezing and lifting need the same, so nobody lifts a freeze they could
 * not have declared. The privileges are those of the stored session.
 */
export function requireHaltPrivilege(login: Login, scope: Scope, doing: string): void {
  if (scope.scope === 'all') {
    if (!login.session.privileges.includes('HALT_ALL')) throw new HaltPrivilegeError(doing, undefined);
  } else if (!scope.team.privileges.includes('HALT_WRITE')) throw new HaltPrivilegeError(doing, teamName(scope.team));
}

/** What declaring a freeze did: the freeze, whether one stood there already, and what its halt did. */
export interface Declared {
  freeze: Freeze;
  wasFrozen: boolean;
  halting: FreezeHalting;
  /**
   * Where the freeze is announced: the channel it was declared in, then the team's channels (those
   * that watch it, and those of its live attacks' cards and running game days), else the person
   * who froze it; none when the scope was frozen already, whose announcement stands.
   */
  announceIn: string[];
}

/**
 * What lifting a freeze found: the freeze lifted, or none, with what stands instead (the freeze
 * of everything, for a team; the teams' own freezes, for every team).
 */
export type Lifted =
  | { freeze: Freeze }
  | { freeze: undefined; standing: { all?: Freeze | undefined; teams?: Freeze[] | undefined } };

/** Whether a team is in the scope, as the person's session sees their teams. */
const inScope = (login: Login, scope: Scope) => (teamId: string | undefined) =>
  teamId !== undefined &&
  (scope.scope === 'all'
    ? login.session.teams.some((team) => team.identifier === teamId)
    : teamId === scope.team.identifier);

/** The live attacks Faultline follows in the scope, as their cards. */
async function liveCards(deps: GuardrailParts, login: Login, scope: Scope): Promise<CardRecord[]> {
  const covered = inScope(login, scope);
  const guids = [...(await deps.cards.liveByTeam())].filter(([teamId]) => covered(teamId)).flatMap(([, g]) => g);
  return (await deps.cards.getMany(guids)).filter((card): card is CardRecord => card !== undefined);
}

/**
 * The channels of the teams a freeze covers: those that watch them, where their live attacks'
 * cards are and where their game days run. Read before the halt, while the attacks are still
 * live; a failed read leaves them out rather than the freeze.
 */
export async function teamChannels(deps: GuardrailParts, login: Login, scope: Scope): Promise<string[]> {
  const covered = inScope(login, scope);
  const channels: string[] = [];
  try {
    for (const watch of await deps.watches.all()) if (covered(watch.teamId)) channels.push(watch.channel);
    for (const card of await liveCards(deps, login, scope)) channels.push(card.channel);
    for (const day of await deps.gameDays.allRunning()) if (covered(day.teamId)) channels.push(day.channel);
  } catch (error) {
    deps.logger.warn({ err: error }, "could not read the frozen teams' channels");
  }
  return channels;
}

/**
 * Halts what runs in a freeze's scope with the person's session: the team's attacks swept, or
 * everything on the platform, each card Faultline followed then saying why. A halt that fails is
 * said, not thrown: the freeze stands either way.
 */
export async function haltFrozen(
  deps: GuardrailParts,
  login: Login,
  scope: Scope,
  halter: Halter,
): Promise<FreezeHalting> {
  if (scope.scope === 'team') {
    const name = teamName(scope.team);
    try {
      return {
        scope: 'team',
        teamName: name,
        swept: await haltTeamAttacks(deps, platformFor(deps, login, scope.team), halter),
      };
    } catch (error) {
      deps.logger.warn({ err: error }, 'a freeze could not halt the attacks of its team');
      return { scope: 'team', teamName: name, error };
    }
  }
  // What a halt of everything stops, as far as Faultline can tell: the platform's answer names nothing.
  const live = await liveCards(deps, login, scope).catch((error: unknown) => {
    deps.logger.warn({ err: error }, 'could not read the live attacks before halting everything');
    return [];
  });
  try {
    await haltEverything(deps, platformFor(deps, login, undefined), halter, undefined);
    // Each card it followed says why, and its halt is verified like any other.
    for (const card of live) await recordHalt(deps, halter, card, card.kind, 'halted', undefined);
    return { scope: 'all', followed: live.length };
  } catch (error) {
    deps.logger.warn({ err: error }, 'a freeze of every team could not halt everything');
    return { scope: 'all', followed: live.length, error };
  }
}
