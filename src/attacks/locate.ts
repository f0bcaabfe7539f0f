import { ForbiddenError, NotFoundError } from '../client/errors.ts';
import type { TeamEntry } from '../client/index.ts';
import type { Deps } from '../deps.ts';
import { UserInputError } from '../errors.ts';
import { platformFor, requireTeam, teamName } from './access.ts';
import type { Login } from '../store/sessions.ts';
import type { CardRecord } from './cards.ts';

/** How many of a person's teams an id typed by hand is looked for in. */
const teamsSearched = 25;

/**
 * The team a button or command names, but only when it is one of the clicker's own teams;
 * otherwise the clicker's selected team. A payload never widens what a person can reach.
 */
/** No team of the person's login has the attack; the words are the views'. */
export class AttackNotFoundError extends UserInputError {
  override name = 'AttackNotFoundError';
  readonly guid: string;
  /** The names of the teams searched, in order; none when the login belongs to no team. */
  readonly searched: string[];
  /** How many teams the login belongs to (only the first few are searched). */
  readonly teams: number;
  constructor(guid: string, searched: string[], teams: number) {
    super('No team of the login has the attack.');
    this.guid = guid;
    this.searched = searched;
    this.teams = teams;
  }
}

export function teamForAction(login: Login, teamId: string | undefined): TeamEntry {
  return login.session.teams.find((t) => t.identifier === teamId) ?? requireTeam(login);
}

export interface LocatedAttack {
  team: TeamEntry;
  /** Undefined when the team is known from a card or button that did not say. */
  kind: 'attack' | 'kubernetes' | undefined;
  card: CardRecord | undefined;
}

async function exists(read: () => Promise<unknown>): Promise<boolean> {
  try {
    await read();
    return true;
  } catch (error) {
    // Not there, or not readable by this person there: either way, not the team to use.
    if (error instanceof NotFoundError || error instanceof ForbiddenError) return false;
    throw error;
  }
}

/**
 * Where an attack lives among the person's own teams. Its card or a button names the team (used
 * only when it is one of theirs); an id typed by hand is looked up in each of their teams, the
 * selected one first, so a halt never fails just because another team is selected.
 */
export async function locateAttack(
  deps: Deps,
  login: Login,
  guid: string,
  hint: { teamId?: string | undefined; kind?: 'attack' | 'kubernetes' | undefined } = {},
): Promise<LocatedAttack> {
  const card = await deps.cards.get(guid);
  const named = login.session.teams.find((t) => t.identifier === (hint.teamId ?? card?.teamId));
  if (named) return { team: named, kind: hint.kind ?? card?.kind, card };

  const teams = [
    ...(login.team ? [login.team] : []),
    ...login.session.teams.filter((t) => t.identifier !== login.team?.identifier),
  ];
  if (!teams.length) throw new AttackNotFoundError(guid, [], 0);
  const searched = teams.slice(0, teamsSearched);
  for (const team of searched) {
    const api = platformFor(deps, login, team);
    if (await exists(() => api.attacks.get(guid))) return { team, kind: 'attack', card };
    if (await exists(() => api.kubernetes.get(guid))) return { team, kind: 'kubernetes', card };
  }
  throw new AttackNotFoundError(guid, searched.map(teamName), teams.length);
}
