import { NotFoundError } from '../client/errors.ts';
import type { Attack, HaltRequest, ScopedPlatform, TeamEntry } from '../client/index.ts';
import type { AttackParts } from './service.ts';
import { explained } from '../errors.ts';
import type { Actor } from '../store/sessions.ts';
import { type LocateParts, locateAttack, platformFor, requireLogin, teamName } from './access.ts';
import type { AttackState, CardRecord } from './cards.ts';
import type { AttackEvent } from './events.ts';
import { canHalt, isFinished, phaseOf } from './lifecycle.ts';
import type { HaltCheck } from './haltChecks.ts';
import { keys } from '../store/keys.ts';

export type AttackKind = 'attack' | 'kubernetes';

/**
 * What a halt did: it stopped the attack, or the attack had already ended (its real outcome is
 * in the state), or another halt of it was already under way.
 */
export type HaltResult = 'halted' | 'ended' | 'halting' | 'unconfirmed';

/** Who halts, with whose session, and why; `scope` names the mass halt an attack's halt is part of. */
export type Halter = Pick<HaltedEvent, 'by' | 'platformUser' | 'cause' | 'reason' | 'guard'> & {
  scope?: HaltedEvent['scope'] | undefined;
};
type HaltedEvent = Extract<AttackEvent, { kind: 'halted' }>;

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
export async function readState(
  deps: Pick<AttackParts, 'logger'>,
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
 * stopped the attack, or that nobody could confirm, is then verified target by target: the next
 * passes of `verifyHalts` (haltChecks.ts) read its executions.
 */
export async function recordHalt(
  deps: Pick<AttackParts, 'events' | 'store' | 'clock' | 'logger'>,
  halter: Halter,
  target: { guid: string; teamId?: string | undefined },
  kind: AttackKind,
  result: HaltResult,
  state: AttackState | undefined,
  times?: { haltedAt: string; acceptedAt: string },
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
  if (result === 'halted' || result === 'unconfirmed') {
    // Kept in the store, so a restarted bot carries on; a halt sent again starts the clock again.
    const check: HaltCheck = {
      guid: target.guid,
      kind,
      teamId: target.teamId ?? card?.teamId,
      by: halter.by,
      cause: halter.cause,
      haltedAt: times?.haltedAt ?? new Date(deps.clock.now()).toISOString(),
      acceptedAt: times?.acceptedAt,
    };
    await deps.store.set(keys.haltCheck.key(target.guid), check, keys.haltCheck.ttlMs).catch((error: unknown) => {
      // The halt itself went through: not verifying it must not make it look failed.
      deps.logger.warn({ err: error, attack: target.guid }, 'could not start verifying a halt');
    });
  }
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
  deps: Pick<AttackParts, 'events' | 'logger' | 'store' | 'clock'>,
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
  const at = () => new Date(deps.clock.now()).toISOString();
  const haltedAt = at();
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
  const times = { haltedAt, acceptedAt: at() };
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
  return recordHalt(deps, halter, target, kind, result, state, times);
}

/**
 * A person's halt of one attack, with their own session, from a card, a list or a command;
 * `again` for Halt again, on an attack whose halt did not stop every target.
 */
export async function haltAttack(
  deps: LocateParts & Pick<AttackParts, 'sessions' | 'events' | 'store' | 'clock'>,
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

/**
 * The platform's company-level halts, the session deciding what they reach: `all` halts every
 * active attack and Kubernetes attack, and gives back the attacks it stopped (the Kubernetes halt
 * answers nothing); `everything` halts every active impact, and names nothing.
 */
export async function haltCompany(api: ScopedPlatform, halter: Halter, what: 'all' | 'everything'): Promise<Attack[]> {
  const request = haltRequest(halter);
  if (what === 'everything') {
    await api.attacks.haltEverything(request);
    return [];
  }
  const answered = await explained({ doing: 'halt all attacks' }, () => api.attacks.haltAll(request));
  await explained({ doing: 'halt all Kubernetes attacks' }, () => api.kubernetes.haltAll(request));
  return answered;
}
