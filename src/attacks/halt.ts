import { NotFoundError } from '../client/errors.ts';
import type { Attack, HaltRequest, ScopedPlatform, TeamEntry } from '../client/index.ts';
import type { Deps } from '../deps.ts';
import { explained } from '../errors.ts';
import type { Actor, Login } from '../store/sessions.ts';
import { platformFor, requireLogin, teamName } from './access.ts';
import type { AttackState, CardRecord } from './cards.ts';
import type { HaltCause, Who } from './events.ts';
import { canHalt, isFinished, phaseOf } from './lifecycle.ts';
import { locateAttack } from './locate.ts';
import { beginHaltCheck } from './haltChecks.ts';

export type AttackKind = 'attack' | 'kubernetes';

/**
 * What a halt did: it stopped the attack, or the attack had already ended (its real outcome is
 * in the state), or another halt of it was already under way.
 */
export type HaltResult = 'halted' | 'ended' | 'halting' | 'unconfirmed';

/** Who halts, with whose session, and why; `scope` names the mass halt an attack's halt is part of. */
export interface Halter {
  by: Who;
  platformUser: string | undefined;
  cause: HaltCause;
  reason: string | undefined;
  scope?: 'attack' | 'all' | 'everything' | undefined;
  guard?: { key: string; name: string; state: string; at: string } | undefined;
}

export interface Halted {
  guid: string;
  kind: AttackKind;
  result: HaltResult;
  /** The platform's latest word on the attack, when it could be read. */
  state: AttackState | undefined;
  /** Its card as it now shows, if it has one. */
  card: CardRecord | undefined;
}

export interface HaltOutcome extends Halted {
  team: TeamEntry;
}

/** The attack as the platform has it now; undefined when it cannot be read, and the halt itself decides. */
async function readState(
  deps: Pick<Deps, 'logger'>,
  api: ScopedPlatform,
  kind: AttackKind,
  guid: string,
): Promise<AttackState | undefined> {
  try {
    return kind === 'kubernetes' ? await api.kubernetes.get(guid) : await api.attacks.get(guid);
  } catch (error) {
    deps.logger.debug({ err: error, attack: guid }, 'could not read the attack around its halt');
    return undefined;
  }
}

const haltRequest = (halter: Halter): HaltRequest => ({
  ...(halter.reason ? { reason: halter.reason } : {}),
  reference: `slack:${halter.by.workspaceId}:${halter.by.userId}`,
});

/**
 * Says what a halt did to one attack, and gives back its card as it now shows. A halt that
 * stopped the attack, or that nobody could confirm, is then verified target by target.
 */
async function recordHalt(
  deps: Pick<Deps, 'events' | 'store' | 'clock' | 'logger'>,
  halter: Halter,
  target: { guid: string; teamId?: string | undefined },
  kind: AttackKind,
  result: HaltResult,
  state: AttackState | undefined,
): Promise<Halted> {
  const card = await deps.events.record({
    kind: 'halted',
    guid: target.guid,
    attackKind: kind,
    teamId: target.teamId,
    result,
    state,
    by: halter.by,
    platformUser: halter.platformUser,
    cause: halter.cause,
    reason: halter.reason,
    scope: halter.scope ?? 'attack',
    guard: halter.guard,
  });
  if (result === 'halted' || result === 'unconfirmed')
    await beginHaltCheck(deps, {
      guid: target.guid,
      kind,
      teamId: target.teamId ?? card?.teamId,
      by: halter.by,
      cause: halter.cause,
    }).catch((error: unknown) => {
      // The halt itself went through: not verifying it must not make it look failed.
      deps.logger.warn({ err: error, attack: target.guid }, 'could not start verifying a halt');
    });
  return { guid: target.guid, kind, result, state, card };
}

/**
 * The one halt of one attack, whoever asks for it (a person, a guard, a freeze): it says what
 * really happened, an attack this halt stopped, one that had already ended (with its real
 * outcome), or one another halt was already stopping, and records it. For an attack the
 * platform's answer says which: it lists the attacks the halt stopped, and halting an attack that
 * is no longer running changes nothing, so a halt is sent at once and the attack is read only
 * when the answer does not list it as running. A Kubernetes halt answers nothing, so a Kubernetes
 * attack is read first (one not running is left alone, one halting too unless the halt is sent
 * `again` for targets an earlier one did not stop) and after. An id of unknown kind that the
 * attacks do not know is halted as a Kubernetes attack. The platform's errors are thrown as they are.
 */
export async function halt(
  deps: Pick<Deps, 'events' | 'logger' | 'store' | 'clock'>,
  api: ScopedPlatform,
  target: { guid: string; kind?: AttackKind | undefined; teamId?: string | undefined; again?: boolean | undefined },
  halter: Halter,
): Promise<Halted> {
  const { guid } = target;
  const before = target.kind === 'kubernetes' ? await readState(deps, api, 'kubernetes', guid) : undefined;
  if (before && (target.again ? isFinished(before) : !canHalt(before))) {
    const result: HaltResult = isFinished(before) ? 'ended' : 'halting';
    return recordHalt(deps, halter, target, 'kubernetes', result, before);
  }
  const request = haltRequest(halter);
  let kind = target.kind;
  /** The attacks the halt stopped; undefined when the platform did not say (or for Kubernetes). */
  let answer: Attack[] | undefined;
  if (kind === 'kubernetes') await api.kubernetes.halt(guid, request);
  else {
    try {
      answer = await api.attacks.halt(guid, request);
      kind = 'attack';
    } catch (error) {
      // An id typed by hand may be a Kubernetes attack's.
      if (kind !== undefined || !(error instanceof NotFoundError)) throw error;
      await api.kubernetes.halt(guid, request);
      kind = 'kubernetes';
    }
  }
  const listed = answer?.find((a) => a.guid === guid);
  let state: AttackState | undefined = listed;
  let result: HaltResult = 'halted';
  if (!listed || isFinished(listed)) {
    state = (await readState(deps, api, kind, guid)) ?? listed;
    // Halted by this halt: listed in its answer, or, where the platform says nothing, found running before it.
    const stoppedByThis = listed !== undefined || before !== undefined;
    if (state && isFinished(state) && !(state.stage === 'UserHalted' && stoppedByThis)) result = 'ended';
    // The platform listed what the halt stopped, and not this attack: another halt was already stopping it.
    else if (state && phaseOf(state) === 'halting' && answer && !listed) result = 'halting';
    // The platform listed what it stopped, not this attack, and cannot show it: nobody can say it stopped.
    else if (!state && answer && !listed) result = 'unconfirmed';
  }
  return recordHalt(deps, halter, target, kind, result, state);
}

/**
 * A person's halt of one attack, with their own session, from a card, a list or a command;
 * `again` for Halt again, on an attack whose halt did not stop every target.
 */
export async function haltAttack(
  deps: Deps,
  actor: Actor,
  ref: { guid: string; teamId?: string | undefined; kind?: AttackKind | undefined; again?: boolean | undefined },
  reason?: string,
): Promise<HaltOutcome> {
  const login = await requireLogin(deps, actor);
  const { guid, team, kind } = await locateAttack(deps, login, ref.guid, ref);
  const api = platformFor(deps, login, team);
  const context = { team: teamName(team), doing: 'halt the attack', subject: `attack ${guid}` };
  const halted = await explained(context, () =>
    halt(
      deps,
      api,
      { guid, kind, teamId: team.identifier, again: ref.again },
      { by: actor, platformUser: login.session.identifier, cause: 'person', reason },
    ),
  );
  return { ...halted, team };
}

/** What a mass halt did to each attack it reached or that a card showed as running. */
export interface MassHaltOutcome {
  halted: { guid: string; kind: AttackKind }[];
  ended: { guid: string; kind: AttackKind; stage: string }[];
}

/** Teams whose Kubernetes attacks and cards a mass halt looks at: the person's own, a bounded number. */
const teamsLookedAt = 25;

/**
 * `halt all`: every active attack and Kubernetes attack the session reaches, with the platform's
 * company-level halts. The attacks halt returns are the ones it stopped. The Kubernetes halt
 * returns nothing, so the running ones are listed before and read after. Cards still showing an
 * attack as running that the platform had already finished are counted as ended and redrawn.
 * Each attack's outcome is recorded, then the mass halt itself.
 */
export async function haltAllAttacks(
  deps: Deps,
  actor: Actor,
  login: Login,
  reason: string,
  channel: string | undefined,
): Promise<MassHaltOutcome> {
  const halter: Halter = { by: actor, platformUser: login.session.identifier, cause: 'person', reason, scope: 'all' };
  const teams = login.session.teams.slice(0, teamsLookedAt);
  const apiOf = (teamId: string) => {
    const team = teams.find((t) => t.identifier === teamId);
    return team ? platformFor(deps, login, team) : undefined;
  };
  const kubernetesRunning = (
    await Promise.all(
      teams.map(async (team) => {
        const api = platformFor(deps, login, team);
        const listed = await api.kubernetes.list().catch((error: unknown) => {
          deps.logger.warn(
            { err: error, team: team.identifier },
            'could not list Kubernetes attacks before halting them',
          );
          return [];
        });
        return listed.filter((a) => canHalt(a)).map((a) => ({ guid: a.guid, teamId: team.identifier }));
      }),
    )
  ).flat();

  // Company-level calls: no team is sent, the session decides what is reached.
  const company = platformFor(deps, login, undefined);
  const request = haltRequest(halter);
  const answered = await explained({ doing: 'halt all attacks' }, () => company.attacks.haltAll(request));
  await explained({ doing: 'halt all Kubernetes attacks' }, () => company.kubernetes.haltAll(request));

  const outcome: MassHaltOutcome = { halted: [], ended: [] };
  const results: {
    guid: string;
    teamId: string | undefined;
    kind: AttackKind;
    result: HaltResult;
    state: AttackState | undefined;
  }[] = [];
  for (const attack of answered)
    results.push({
      guid: attack.guid,
      teamId: attack.org_id,
      kind: 'attack',
      result: isFinished(attack) ? 'ended' : 'halted',
      state: attack,
    });
  await Promise.all(
    kubernetesRunning.map(async ({ guid, teamId }) => {
      const state = await readState(deps, apiOf(teamId)!, 'kubernetes', guid);
      const ended = state && isFinished(state) && state.stage !== 'UserHalted';
      results.push({ guid, teamId, kind: 'kubernetes', result: ended ? 'ended' : 'halted', state });
    }),
  );

  const reached = new Set(results.map((a) => a.guid));
  const live = await deps.cards.liveByTeam().catch((error: unknown) => {
    deps.logger.warn({ err: error }, 'could not read the live cards after a mass halt');
    return new Map<string, string[]>();
  });
  for (const [teamId, guids] of live) {
    const api = apiOf(teamId);
    if (!api) continue;
    for (const guid of guids.filter((g) => !reached.has(g))) {
      const card = await deps.cards.get(guid).catch(() => undefined);
      if (!card) continue;
      const state = await readState(deps, api, card.kind, guid);
      if (state && isFinished(state)) results.push({ guid, teamId, kind: card.kind, result: 'ended', state });
    }
  }

  for (const { guid, teamId, kind, result, state } of results) {
    if (result === 'halted') outcome.halted.push({ guid, kind });
    else outcome.ended.push({ guid, kind, stage: state?.stage ?? 'Unknown' });
    await recordHalt(deps, halter, { guid, teamId }, kind, result, state);
  }
  await deps.events.record({
    kind: 'mass halted',
    scope: 'all',
    by: actor,
    platformUser: login.session.identifier,
    cause: 'person',
    channel,
    halted: outcome.halted.map((a) => a.guid),
  });
  return outcome;
}

/**
 * `halt everything`: every active impact on the platform, with the company-level halt. The
 * platform's answer names nothing, so only the halt itself is recorded.
 */
export async function haltEverything(
  deps: Pick<Deps, 'events'>,
  api: ScopedPlatform,
  halter: Halter,
  channel: string | undefined,
): Promise<void> {
  await api.attacks.haltEverything(haltRequest(halter));
  await deps.events.record({
    kind: 'mass halted',
    scope: 'everything',
    by: halter.by,
    platformUser: halter.platformUser,
    cause: halter.cause,
    channel,
    halted: [],
  });
}
