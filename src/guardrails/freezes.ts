import type { KeyValueStore } from '../store/keyValue.ts';
import type { Person } from '../store/sessions.ts';
import { UserInputError } from '../errors.ts';
import { keys } from '../store/keys.ts';

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
