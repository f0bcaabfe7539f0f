import { ForbiddenError, NotFoundError } from '../client/errors.ts';
import type { PlatformClient, ScopedPlatform, TeamEntry } from '../client/index.ts';
import { NoTeamSelectedError, NotLoggedInError, UserInputError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { Actor, Login, SessionStore } from '../store/sessions.ts';
import type { CardRecord, CardStore } from './cards.ts';

/* Who may reach what: the person's login and team, the platform as them, and where an attack lives among their teams. */

/** The actor's stored login, or NotLoggedInError (the adapter turns it into a Log in button). */
export async function requireLogin(deps: { sessions: SessionStore }, actor: Actor): Promise<Login> {
  const { login, expired } = await deps.sessions.lookup(actor);
  if (!login) throw new NotLoggedInError(expired);
  return login;
}

export function requireTeam(login: Login): TeamEntry {
  if (!login.team) throw new NoTeamSelectedError();
  return login.team;
}

/** The platform, called with the actor's session and, for team-scoped calls, the selected team. */
export function platformFor(
  deps: { platform: PlatformClient },
  login: Login,
  team: TeamEntry | undefined = login.team,
): ScopedPlatform {
  return deps.platform.as({ header: login.session.header, ...(team ? { teamId: team.identifier } : {}) });
}

export function teamName(team: TeamEntry): string {
  return team.name ?? team.identifier;
}

/** The team privilege the platform asks of a session to start an attack in a team. */
export const RUN_PRIVILEGE = 'EXPERIMENTS_RUN';

/** Whether the session may start attacks in the team, as the platform will decide it. */
export const mayRunAttacks = (team: TeamEntry): boolean => team.privileges.includes(RUN_PRIVILEGE);

/** Whether the session may halt an attack of the team (HALT_WRITE), as the platform will decide it. */
export const mayHalt = (team: TeamEntry): boolean => team.privileges.includes('HALT_WRITE');

/** Whether the session may halt every attack it reaches at once (HALT_ALL, a company privilege). */
export const mayHaltAll = (login: Login): boolean => login.session.privileges.includes('HALT_ALL');

/** What finding an attack reads: the platform as the person, and the kept cards. */
export type LocateParts = { platform: PlatformClient; cards: CardStore; logger: Logger };

/** How many of a person's teams an id typed by hand is looked for in. */
const teamsSearched = 25;

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

/** An id typed short matches more than one attack the person can reach; nothing was done. */
export class AmbiguousAttackIdError extends UserInputError {
  override name = 'AmbiguousAttackIdError';
  readonly typed: string;
  readonly matches: AttackMatch[];
  constructor(typed: string, matches: AttackMatch[]) {
    super('The id matches several attacks.');
    this.typed = typed;
    this.matches = matches;
  }
}

/** One attack a short id matches. */
export interface AttackMatch {
  guid: string;
  type: string | undefined;
  teamName: string;
  stage: string | undefined;
}

/**
 * The team a button or command names, but only when it is one of the clicker's own teams;
 * otherwise the clicker's selected team. A payload never widens what a person can reach.
 */
export function teamForAction(login: Login, teamId: string | undefined): TeamEntry {
  return login.session.teams.find((t) => t.identifier === teamId) ?? requireTeam(login);
}

export interface LocatedAttack {
  /** The attack's whole id, also when a short one was typed. */
  guid: string;
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

/** A whole attack id as the platform gives it (a UUID): it is looked up as it is, never as a prefix. */
const wholeId = /^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$/i;

/** How many of a team's most recent finished attacks a short id is matched against (besides the cards kept). */
const recentSearched = 100;

interface Candidate extends AttackMatch {
  team: TeamEntry;
  kind: 'attack' | 'kubernetes';
}

/**
 * The attacks of the person's teams whose id begins with `prefix`: their active and recent ones
 * on the platform, and those whose card is kept. A team that cannot be read adds none.
 */
async function attacksWithPrefix(
  deps: LocateParts,
  login: Login,
  teams: readonly TeamEntry[],
  prefix: string,
): Promise<Candidate[]> {
  const wanted = prefix.toLowerCase();
  const matches = (guid: string) => guid.toLowerCase().startsWith(wanted);
  const found = new Map<string, Candidate>();
  const add = (candidate: Candidate) => {
    if (!found.has(candidate.guid)) found.set(candidate.guid, candidate);
  };
  await Promise.all(
    teams.map(async (team) => {
      const api = platformFor(deps, login, team);
      const name = teamName(team);
      try {
        const [active, recent, kubernetes] = await Promise.all([
          api.attacks.activePage({ pageSize: recentSearched }),
          api.attacks.completedPage({ pageSize: recentSearched }),
          api.kubernetes.list(),
        ]);
        for (const a of [...active.items, ...recent.items].filter((a) => matches(a.guid)))
          add({ guid: a.guid, type: a.infra_command?.type, teamName: name, stage: a.stage, team, kind: 'attack' });
        for (const k of kubernetes.filter((k) => matches(k.guid)))
          add({
            guid: k.guid,
            type: k.impact_definition?.cli_args?.[0],
            teamName: name,
            stage: k.stage,
            team,
            kind: 'kubernetes',
          });
      } catch (error) {
        deps.logger.warn({ err: error, team: team.identifier }, 'could not list attacks to match a short id');
      }
    }),
  );
  for (const card of await deps.cards.withIdPrefix(wanted)) {
    const team = teams.find((t) => t.identifier === card.teamId);
    if (team)
      add({ guid: card.guid, type: card.type, teamName: teamName(team), stage: card.stage, team, kind: card.kind });
  }
  return [...found.values()].sort((a, b) => a.guid.localeCompare(b.guid));
}

/**
 * Where an attack lives among the person's own teams. Its card or a button names the team (used
 * only when it is one of theirs); an id typed by hand is looked up in each of their teams, the
 * selected one first, so a halt never fails just because another team is selected. An id typed
 * short (its first characters, 8 or more) stands for the one attack of those teams it begins;
 * when it begins several, they are named and nothing is done.
 */
export async function locateAttack(
  deps: LocateParts,
  login: Login,
  guid: string,
  hint: { teamId?: string | undefined; kind?: 'attack' | 'kubernetes' | undefined } = {},
): Promise<LocatedAttack> {
  const card = await deps.cards.get(guid);
  const named = login.session.teams.find((t) => t.identifier === (hint.teamId ?? card?.teamId));
  if (named) return { guid, team: named, kind: hint.kind ?? card?.kind, card };

  const teams = [
    ...(login.team ? [login.team] : []),
    ...login.session.teams.filter((t) => t.identifier !== login.team?.identifier),
  ];
  if (!teams.length) throw new AttackNotFoundError(guid, [], 0);
  const searched = teams.slice(0, teamsSearched);
  if (!wholeId.test(guid)) {
    const matched = await attacksWithPrefix(deps, login, searched, guid);
    if (matched.length > 1)
      throw new AmbiguousAttackIdError(
        guid,
        matched.map(({ guid, type, teamName, stage }) => ({ guid, type, teamName, stage })),
      );
    const [only] = matched;
    if (only) return { guid: only.guid, team: only.team, kind: only.kind, card: await deps.cards.get(only.guid) };
  }
  for (const team of searched) {
    const api = platformFor(deps, login, team);
    if (await exists(() => api.attacks.get(guid))) return { guid, team, kind: 'attack', card };
    if (await exists(() => api.kubernetes.get(guid))) return { guid, team, kind: 'kubernetes', card };
  }
  throw new AttackNotFoundError(guid, searched.map(teamName), teams.length);
}
