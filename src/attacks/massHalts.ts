import type { ScopedPlatform } from '../client/index.ts';
import type { AttackParts } from './service.ts';
import type { Actor, Login } from '../store/sessions.ts';
import { platformFor } from './access.ts';
import type { AttackState } from './cards.ts';
import { type AttackKind, type Halter, type HaltResult, haltCompany, readState, recordHalt } from './halt.ts';
import { canHalt, isFinished } from './lifecycle.ts';

/** What a mass halt did to each attack it reached or that a card showed as running. */
export interface MassHaltOutcome {
  halted: { guid: string; kind: AttackKind }[];
  ended: { guid: string; kind: AttackKind; stage: string }[];
}

/** An attack a mass halt reached, or found finished: what it did to it. */
interface Reached {
  guid: string;
  teamId: string | undefined;
  kind: AttackKind;
  result: HaltResult;
  state: AttackState | undefined;
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
  deps: AttackParts,
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
  const answered = await haltCompany(platformFor(deps, login, undefined), halter, 'all');

  const results: Reached[] = answered.map((attack) => ({
    guid: attack.guid,
    teamId: attack.org_id,
    kind: 'attack',
    result: isFinished(attack) ? 'ended' : 'halted',
    state: attack,
  }));
  await Promise.all(
    kubernetesRunning.map(async ({ guid, teamId }) => {
      const state = await readState(deps, apiOf(teamId)!, 'kubernetes', guid);
      const ended = state && isFinished(state) && state.stage !== 'UserHalted';
      results.push({ guid, teamId, kind: 'kubernetes', result: ended ? 'ended' : 'halted', state });
    }),
  );
  results.push(...(await endedOnCards(deps, apiOf, new Set(results.map((a) => a.guid)))));

  const outcome: MassHaltOutcome = { halted: [], ended: [] };
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

/** The attacks live cards of the teams looked at still show as running, that the halt did not reach and the platform has finished. */
async function endedOnCards(
  deps: AttackParts,
  apiOf: (teamId: string) => ScopedPlatform | undefined,
  reached: Set<string>,
): Promise<Reached[]> {
  const ended: Reached[] = [];
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
      if (state && isFinished(state)) ended.push({ guid, teamId, kind: card.kind, result: 'ended', state });
    }
  }
  return ended;
}

/**
 * `halt everything`: every active impact on the platform, with the company-level halt. The
 * platform's answer names nothing, so only the halt itself is recorded.
 */
export async function haltEverything(
  deps: Pick<AttackParts, 'events'>,
  api: ScopedPlatform,
  halter: Halter,
  channel: string | undefined,
): Promise<void> {
  await haltCompany(api, halter, 'everything');
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
