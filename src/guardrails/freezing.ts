// Declaring and lifting a freeze: who may, what it halts, and what it records.
import type { TeamEntry } from '../client/index.ts';
import { audit } from '../audit.ts';
import { UserInputError } from '../errors.ts';
import { platformFor, teamName } from '../attacks/access.ts';
import { haltEverything } from '../attacks/massHalts.ts';
import { recordHalt } from '../attacks/halt.ts';
import type { CardRecord } from '../attacks/cards.ts';
import type { Actor, Login } from '../store/sessions.ts';
import type { Freeze } from './freezes.ts';
import type { GuardrailParts } from './service.ts';
import { haltTeamAttacks, type SweepResult } from './sweep.ts';

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
function requireHaltPrivilege(login: Login, scope: Scope, doing: string): void {
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
 * The channels of the teams a freeze covers: those that watch them, where their live attacks'
 * cards are and where their game days run. Read before the halt, while the attacks are still
 * live; a failed read leaves them out rather than the freeze.
 */
async function teamChannels(deps: GuardrailParts, login: Login, scope: Scope): Promise<string[]> {
  const covered = (teamId: string | undefined) =>
    teamId !== undefined &&
    (scope.scope === 'all'
      ? login.session.teams.some((team) => team.identifier === teamId)
      : teamId === scope.team.identifier);
  const channels: string[] = [];
  try {
    for (const watch of await deps.watches.all()) if (covered(watch.teamId)) channels.push(watch.channel);
    const guids = [...(await deps.cards.liveByTeam())].filter(([teamId]) => covered(teamId)).flatMap(([, g]) => g);
    for (const card of await deps.cards.getMany(guids)) if (card) channels.push(card.channel);
    for (const day of await deps.gameDays.allRunning()) if (covered(day.teamId)) channels.push(day.channel);
  } catch (error) {
    deps.logger.warn({ err: error }, "could not read the frozen teams' channels");
  }
  return channels;
}

/**
 * The live attacks Faultline follows in the person's teams: what a halt of everything stops, as
 * far as Faultline can tell, since the platform's answer to it names nothing.
 */
async function liveAttacksFollowed(deps: GuardrailParts, login: Login): Promise<CardRecord[]> {
  const teams = new Set(login.session.teams.map((team) => team.identifier));
  try {
    const guids = [...(await deps.cards.liveByTeam())].filter(([teamId]) => teams.has(teamId)).flatMap(([, g]) => g);
    return (await deps.cards.getMany(guids)).filter((card): card is CardRecord => card !== undefined);
  } catch (error) {
    deps.logger.warn({ err: error }, 'could not read the live attacks before halting everything');
    return [];
  }
}

/**
 * Declares a freeze and halts what runs in its scope, with the person's session: for `freeze`
 * and the Freeze chaos step alike. The privilege is checked first; the freeze is declared before
 * the halt, so no start slips in between, and a halt that fails leaves it standing.
 */
export async function declareFreeze(
  deps: GuardrailParts,
  actor: Actor,
  login: Login,
  scope: Scope,
  reason: string,
): Promise<Declared> {
  // Refused up front: a freeze that cannot halt would promise what it cannot keep.
  requireHaltPrivilege(login, scope, 'freeze');
  const existing = await deps.freezes.get(scope.scope, scope.scope === 'team' ? scope.team.identifier : undefined);
  const channels = existing ? [] : await teamChannels(deps, login, scope);
  const where = [...new Set([...(actor.channelId ? [actor.channelId] : []), ...channels])];
  // Never unannounced: a workflow's freeze of a team nothing shows is told to whoever ran it.
  const announceIn = existing ? [] : where.length ? where : [actor.userId];
  const freeze: Freeze = {
    scope: scope.scope,
    ...(scope.scope === 'team' ? { teamId: scope.team.identifier, teamName: teamName(scope.team) } : {}),
    by: { workspaceId: actor.workspaceId, userId: actor.userId, userName: actor.userName },
    reason,
    since: existing?.since ?? new Date(deps.clock.now()).toISOString(),
    // A workflow's freeze has no channel of its own: it reports where it was announced.
    channel: actor.channelId ?? existing?.channel ?? announceIn[0],
  };
  const halter = {
    by: actor,
    platformUser: login.session.identifier,
    cause: 'freeze' as const,
    reason: `frozen: ${reason}`,
  };
  let halting: FreezeHalting;
  await deps.freezes.declare(freeze);
  if (scope.scope === 'all') {
    const live = await liveAttacksFollowed(deps, login);
    const followed = live.length;
    try {
      await haltEverything(deps, platformFor(deps, login, undefined), halter, undefined);
      // Each card it followed says why, and its halt is verified like any other.
      for (const card of live) await recordHalt(deps, halter, card, card.kind, 'halted', undefined);
      halting = { scope: 'all', followed };
    } catch (error) {
      deps.logger.warn({ err: error }, 'a freeze of every team could not halt everything');
      halting = { scope: 'all', followed, error };
    }
  } else {
    try {
      const swept = await haltTeamAttacks(deps, platformFor(deps, login, scope.team), halter);
      halting = { scope: 'team', teamName: teamName(scope.team), swept };
    } catch (error) {
      deps.logger.warn({ err: error }, 'a freeze could not halt the attacks of its team');
      halting = { scope: 'team', teamName: teamName(scope.team), error };
    }
  }
  await deps.events.record({
    kind: 'frozen',
    by: actor,
    platformUser: login.session.identifier,
    scope: freeze.scope,
    teamId: freeze.teamId,
    reason,
  });
  return { freeze, wasFrozen: !!existing, halting, announceIn };
}

/**
 * What lifting a freeze found: the freeze lifted, or none, with what stands instead (the freeze
 * of everything, for a team; the teams' own freezes, for every team).
 */
export type Lifted =
  | { freeze: Freeze }
  | { freeze: undefined; standing: { all?: Freeze | undefined; teams?: Freeze[] | undefined } };

/** Lifts the freeze of the scope, for `unfreeze` and the Unfreeze chaos step; needs what declaring it needs. */
export async function liftFreeze(deps: GuardrailParts, actor: Actor, login: Login, scope: Scope): Promise<Lifted> {
  const teamId = scope.scope === 'team' ? scope.team.identifier : undefined;
  const freeze = await deps.freezes.get(scope.scope, teamId);
  if (!freeze) {
    if (scope.scope === 'team') return { freeze: undefined, standing: { all: await deps.freezes.get('all') } };
    const teams = await deps.freezes.touching(login.session.teams.map((t) => t.identifier));
    return { freeze: undefined, standing: { teams: teams.filter((f) => f.scope === 'team') } };
  }
  requireHaltPrivilege(login, scope, 'lift the freeze on');
  await deps.freezes.lift(scope.scope, teamId);
  audit(deps.logger, 'unfreeze', actor, { platformUser: login.session.identifier, team: teamId, scope: scope.scope });
  return { freeze };
}
