import { NotFoundError } from '../client/errors.ts';
import type { Attack, HaltRequest, ScopedPlatform, TeamEntry } from '../client/index.ts';
import { isFinished } from './lifecycle.ts';
import { audit } from '../audit.ts';
import type { Deps } from '../deps.ts';
import { explained } from '../errors.ts';
import type { Actor, Login } from '../store/sessions.ts';
import { platformFor, requireLogin, teamName } from './access.ts';
import { withState, type AttackState, type CardRecord } from './cards.ts';
import { locateAttack } from './locate.ts';

type AttackKind = 'attack' | 'kubernetes';

/**
 * What a halt did: it stopped the attack, or the attack had already ended (its real outcome is
 * in the state), or another halt of it was already under way.
 */
export type HaltResult = 'halted' | 'ended' | 'halting';

export interface HaltOutcome {
  guid: string;
  kind: AttackKind;
  team: TeamEntry;
  card: CardRecord | undefined;
  result: HaltResult;
  /** The platform's latest word on the attack, when it could be read. */
  state: AttackState | undefined;
}

const finished = (state: AttackState) =>
  isFinished({ stage_lifecycle: state.stage_lifecycle, end_time: state.end_time });

/** The attack as the platform has it now; undefined when it cannot be read, and the halt itself decides. */
async function readState(
  deps: Deps,
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

/** Shows the platform's latest state on a card, without saying anybody halted it. */
export async function showState(deps: Deps, card: CardRecord, state: AttackState | undefined): Promise<CardRecord> {
  if (!state) return card;
  const { card: next, changed } = withState(card, state);
  if (changed) await deps.poller.publish(next);
  return next;
}

/** Marks a card as halted by this person (once), says so in its thread and shows the new stage. */
export async function recordHalt(
  deps: Deps,
  card: CardRecord,
  actor: Actor,
  state: AttackState | undefined,
): Promise<CardRecord> {
  // Two quick clicks both find the card unmarked; the claim lets only one of them say so.
  const first =
    !card.haltedBy.some((h) => h.userId === actor.userId) &&
    (await deps.store.claim(`halt-noted:${card.guid}:${actor.userId}`, 24 * 3600_000));
  const marked: CardRecord = first
    ? { ...card, haltedBy: [...card.haltedBy, { userId: actor.userId, at: new Date(deps.clock.now()).toISOString() }] }
    : card;
  if (first) {
    await deps.slack
      .post(card.channel, { text: `:octagonal_sign: <@${actor.userId}> halted this attack.` }, { threadTs: card.ts })
      .catch((error: unknown) => {
        deps.logger.warn({ err: error, attack: card.guid }, 'could not post the halt in the thread');
      });
    await deps.gameDays.record(card.channel, {
      kind: 'halt',
      halt: { guid: card.guid, by: actor.userId, at: new Date(deps.clock.now()).toISOString(), scope: 'attack' },
    });
  }
  // Show the halting stage now rather than at the next poll.
  const { card: next, changed } = state ? withState(marked, state) : { card: marked, changed: false };
  if (first || changed) await deps.poller.publish(next);
  return next;
}

/** Tells Slack what a halt did; the platform already has it, so a failure here is only logged. */
async function showOutcome(
  deps: Deps,
  actor: Actor,
  card: CardRecord | undefined,
  result: HaltResult,
  state: AttackState | undefined,
): Promise<CardRecord | undefined> {
  if (!card) return undefined;
  const shown = result === 'halted' ? recordHalt(deps, card, actor, state) : showState(deps, card, state);
  return shown.catch((error: unknown) => {
    deps.logger.warn({ err: error, attack: card.guid }, 'could not show the halt on the card');
    return card;
  });
}

/**
 * Halts one attack with the clicker's session, and says what really happened: an attack this halt
 * stopped, one that had already ended (with its real outcome), or one another halt was already
 * stopping. For an attack the platform's answer says which: it lists the attacks the halt stopped,
 * and halting an attack that is no longer running changes nothing, so a halt is sent at once and
 * the attack is read only when the answer does not list it as running. A Kubernetes halt answers
 * nothing, so a Kubernetes attack is read first (one not running is left alone) and after.
 */
export async function haltAttack(
  deps: Deps,
  actor: Actor,
  ref: { guid: string; teamId?: string | undefined; kind?: AttackKind | undefined },
  reason?: string,
): Promise<HaltOutcome> {
  const login = await requireLogin(deps, actor);
  const { team, kind: knownKind, card } = await locateAttack(deps, login, ref.guid, ref);
  const api = platformFor(deps, login, team);
  const before = knownKind === 'kubernetes' ? await readState(deps, api, knownKind, ref.guid) : undefined;
  if (before && (finished(before) || before.stage_lifecycle === 'Halting')) {
    const result: HaltResult = finished(before) ? 'ended' : 'halting';
    deps.logger.info({ attack: ref.guid, stage: before.stage, result }, 'halt asked for an attack that is not running');
    return {
      guid: ref.guid,
      kind: knownKind!,
      team,
      card: await showOutcome(deps, actor, card, result, before),
      result,
      state: before,
    };
  }

  const request = { ...(reason ? { reason } : {}), reference: `slack:${actor.workspaceId}:${actor.userId}` };
  const context = { team: teamName(team), doing: 'halt the attack', subject: `attack ${ref.guid}` };
  let kind = knownKind;
  /** The attacks the halt stopped; undefined when the platform did not say (or for Kubernetes). */
  let answer: Attack[] | undefined;
  await explained(context, async () => {
    if (kind === 'kubernetes') return api.kubernetes.halt(ref.guid, request);
    try {
      answer = await api.attacks.halt(ref.guid, request);
      kind = 'attack';
    } catch (error) {
      // An id typed by hand may be a Kubernetes attack's.
      if (kind !== undefined || !(error instanceof NotFoundError)) throw error;
      await api.kubernetes.halt(ref.guid, request);
      kind = 'kubernetes';
    }
  });
  const haltedKind = kind ?? 'attack';
  const listed = answer?.find((a) => a.guid === ref.guid);
  let state: AttackState | undefined = listed;
  let result: HaltResult = 'halted';
  if (!listed || finished(listed)) {
    state = (await readState(deps, api, haltedKind, ref.guid)) ?? listed;
    // Halted by this halt: listed in its answer, or, where the platform says nothing, found running before it.
    const stoppedByThis = listed !== undefined || before !== undefined;
    if (state && finished(state) && !(state.stage === 'UserHalted' && stoppedByThis)) result = 'ended';
    // The platform listed what the halt stopped, and not this attack: another halt was already stopping it.
    else if (state?.stage_lifecycle === 'Halting' && answer && !listed) result = 'halting';
  }
  if (result === 'halted') {
    audit(deps.logger, 'attack_halted', actor, {
      platformUser: login.session.identifier,
      team: team.identifier,
      attack: ref.guid,
      kind: haltedKind,
      reason,
    });
  } else {
    deps.logger.info({ attack: ref.guid, stage: state?.stage, result }, 'halt asked for an attack that is not running');
  }
  return {
    guid: ref.guid,
    kind: haltedKind,
    team,
    card: await showOutcome(deps, actor, card, result, state),
    result,
    state,
  };
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
 */
export async function haltAllAttacks(
  deps: Deps,
  actor: Actor,
  login: Login,
  request: HaltRequest,
): Promise<MassHaltOutcome> {
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
        return listed
          .filter((a) => a.stage_lifecycle === 'Active')
          .map((a) => ({ guid: a.guid, teamId: team.identifier }));
      }),
    )
  ).flat();

  // Company-level calls: no team is sent, the session decides what is reached.
  const company = platformFor(deps, login, undefined);
  const answered = await explained({ doing: 'halt all attacks' }, () => company.attacks.haltAll(request));
  await explained({ doing: 'halt all Kubernetes attacks' }, () => company.kubernetes.haltAll(request));

  const outcome: MassHaltOutcome = { halted: [], ended: [] };
  const states = new Map<string, AttackState>();
  for (const attack of answered) {
    states.set(attack.guid, attack);
    if (finished(attack)) outcome.ended.push({ guid: attack.guid, kind: 'attack', stage: attack.stage ?? 'Unknown' });
    else outcome.halted.push({ guid: attack.guid, kind: 'attack' });
  }
  await Promise.all(
    kubernetesRunning.map(async ({ guid, teamId }) => {
      const state = await readState(deps, apiOf(teamId)!, 'kubernetes', guid);
      if (state) states.set(guid, state);
      if (state && finished(state) && state.stage !== 'UserHalted')
        outcome.ended.push({ guid, kind: 'kubernetes', stage: state.stage ?? 'Unknown' });
      else outcome.halted.push({ guid, kind: 'kubernetes' });
    }),
  );

  const reached = new Set([...outcome.halted, ...outcome.ended].map((a) => a.guid));
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
      if (!state || !finished(state)) continue;
      outcome.ended.push({ guid, kind: card.kind, stage: state.stage ?? 'Unknown' });
      await showOutcome(deps, actor, card, 'ended', state);
    }
  }

  for (const { guid } of outcome.halted) {
    const card = await deps.cards.get(guid).catch(() => undefined);
    if (card) await showOutcome(deps, actor, card, 'halted', states.get(guid));
  }
  for (const { guid } of outcome.ended.filter((a) => states.has(a.guid))) {
    const card = await deps.cards.get(guid).catch(() => undefined);
    if (card) await showOutcome(deps, actor, card, 'ended', states.get(guid));
  }
  return outcome;
}
