import { randomUUID } from 'node:crypto';
import { halt } from '../attacks/halt.ts';
import type { CardRecord } from '../attacks/cards.ts';
import { isLive } from '../attacks/lifecycle.ts';
import { ForbiddenError, NotFoundError, UnauthorizedError } from '../client/errors.ts';
import { startedUnder } from '../gamedays/gamedayReads.ts';
import type { Breathe } from '../jobs/scheduler.ts';
import { type Person, samePerson } from '../store/sessions.ts';
import { keys } from '../store/keys.ts';
import { type Guard, type GuardedAttack, guardKey, guardName, type GuardReading, readGuard } from './guards.ts';
import type { GuardrailParts } from './service.ts';

// The enforce-guards job: which guards cover what, each read once per pass, and a guard that
// turns unhealthy halting what it covers.

/** An attack a guard covers: its card once saved, else what was kept with its guards. */
type Covered = GuardedAttack & { ts?: string; guards?: CardRecord['guards'] };

interface EnforcedGuard {
  guard: Guard;
  /** Everyone who set this guard, the first first: their sessions halt what it covers. */
  owners: Guard['owner'][];
  attacks: Covered[];
  /** Channels whose running game day has this guard: their cards show its readings. */
  gameDays: Set<string>;
}

/** How long an attack whose card was never saved is covered: its length and a margin, else a day. */
const uncardedFor = (attack: GuardedAttack) => ((attack.lengthSeconds ?? 24 * 3600) + 600) * 1000;

/**
 * Every distinct guard over the live attacks, with the attacks it covers, and every guard of a
 * running game day, whose card shows it even while no attack runs. Only guarded attacks and the
 * live cards of channels whose running game day has guards are read, so a pass over many
 * unguarded cards costs next to nothing. An attack whose card is not saved yet (or could not be
 * posted) is covered from what was kept with its guards.
 */
async function enforcedGuards(deps: GuardrailParts, breathe?: Breathe): Promise<EnforcedGuard[]> {
  const byKey = new Map<string, EnforcedGuard>();
  const entryOf = (guard: Guard) => {
    const key = guardKey(guard.spec);
    const entry = byKey.get(key) ?? { guard, owners: [], attacks: [], gameDays: new Set<string>() };
    if (!entry.owners.some((o) => samePerson(o, guard.owner))) entry.owners.push(guard.owner);
    byKey.set(key, entry);
    return entry;
  };
  const cover = (guard: Guard, attack: Covered) => {
    const entry = entryOf(guard);
    if (!entry.attacks.some((a) => a.guid === attack.guid)) entry.attacks.push(attack);
  };
  const now = deps.clock.now();
  const guarded = await deps.guards.attackGuards();
  const guids = guarded.map(({ guid }) => guid);
  const guardedCards = await deps.cards.getMany(guids, breathe);
  for (const [index, { guid, attack, guards }] of guarded.entries()) {
    const card = guardedCards[index];
    const covered = card ?? attack;
    const live = card ? isLive(card) : !!attack && now - Date.parse(attack.createdAt) < uncardedFor(attack);
    if (covered && live) guards.forEach((guard) => cover(guard, covered));
    // A finished attack needs its guards no more.
    else await deps.guards.dropForAttack(guid);
  }
  const days = new Map<string, { channel: string; startedAt: string; guards: Guard[] }>();
  for (const day of await deps.gameDays.allRunning()) {
    const guards = await deps.guards.forGameDay(day.id);
    for (const guard of guards) entryOf(guard).gameDays.add(day.channel);
    if (guards.length) days.set(day.channel, { ...day, guards });
  }
  // A running game day's guards cover its attacks; once it ends, its attacks keep them as their own.
  if (days.size) {
    for (const card of await deps.cards.getMany([...(await deps.cards.liveByTeam(breathe)).values()].flat(), breathe)) {
      const day = card && days.get(card.channel);
      if (card && day && isLive(card) && startedUnder(day, card)) day.guards.forEach((guard) => cover(guard, card));
    }
  }
  return [...byKey.values()];
}

/**
 * Halts every attack a fired guard covers with the session of someone who set it (its owners in
 * turn: two game days may share a monitor) and the reason `guard <name> fired`, skipping those
 * another guard halted (`actedOn`, shared by a pass's trips). What no owner's session can halt is
 * recorded as not halted, so people are asked to. A halt that fails for another reason is given
 * back for the next pass, without keeping what the others did from being recorded.
 */
async function tripGuard(
  deps: GuardrailParts,
  enforced: EnforcedGuard,
  reading: GuardReading,
  before: GuardReading | undefined,
  actedOn: Set<string>,
): Promise<Set<string>> {
  const name = guardName(enforced.guard.spec, reading);
  const key = guardKey(enforced.guard.spec);
  const guard = { key, name, state: reading.state, at: reading.at };
  const logins = await Promise.all(
    enforced.owners.map(async (owner) => ({ owner, login: await deps.sessions.get(owner) })),
  );
  const halted = new Set<string>();
  const unhalted: Covered[] = [];
  const failed: string[] = [];
  const holder = randomUUID();
  for (const attack of enforced.attacks) {
    if (actedOn.has(attack.guid)) continue;
    // Another guard has halted it already: nobody needs to halt it again.
    const latest = (await deps.cards.get(attack.guid)) ?? attack;
    if (latest.guards?.some((g) => g.firedAt && g.key !== key)) continue;
    if (!(await deps.store.claim(keys.guardTrip.key(key, attack.guid), keys.guardTrip.ttlMs, holder))) continue;
    actedOn.add(attack.guid);
    let outcome: 'halted' | 'gone' | 'unhalted' | 'failed' = 'unhalted';
    for (const { owner, login } of logins) {
      const team = login?.session.teams.find((t) => t.identifier === attack.teamId);
      if (!login || !team) continue;
      try {
        const api = deps.platform.as({ header: login.session.header, teamId: team.identifier, background: true });
        const { result } = await halt(
          deps,
          api,
          { guid: attack.guid, kind: attack.kind, teamId: attack.teamId },
          { by: owner, platformUser: login.session.identifier, cause: 'guard', reason: `guard ${name} fired`, guard },
        );
        // An attack that had ended already (or that another halt was stopping) was not halted by this guard.
        outcome = result === 'halted' ? 'halted' : 'gone';
      } catch (error) {
        // Gone from the platform: there is nothing left to halt.
        if (error instanceof NotFoundError) outcome = 'gone';
        // Another owner's session may reach it.
        else if (error instanceof UnauthorizedError || error instanceof ForbiddenError) continue;
        else outcome = 'failed';
      }
      break;
    }
    if (outcome === 'halted') halted.add(attack.guid);
    else if (outcome === 'unhalted') unhalted.push(attack);
    else if (outcome === 'failed') {
      // A platform hiccup: the next pass tries this one again.
      failed.push(attack.guid);
      actedOn.delete(attack.guid);
      await deps.store.release(keys.guardTrip.key(key, attack.guid), holder).catch(() => undefined);
    }
  }
  await deps.events.record({
    kind: 'guard fired',
    guard: { ...guard, owner: enforced.guard.owner },
    halted: enforced.attacks.filter((a) => halted.has(a.guid)),
    notHalted: unhalted,
    gameDays: [...enforced.gameDays],
    already: before?.health === 'unhealthy',
  });
  if (failed.length)
    deps.logger.warn(
      { guard: key, attacks: failed },
      'could not halt attacks a fired guard covers; the next pass tries again',
    );
  return halted;
}

/** This process, as the holder of per-guard reading leases. */
const reader = randomUUID();

/**
 * Reads a guard with its owner's session, or, failing that, with a covered attack's starter's,
 * in a team of the attacks it covers; a guard covering none is read in the owner's team.
 */
async function read(deps: GuardrailParts, enforced: EnforcedGuard): Promise<GuardReading | undefined> {
  const people: Person[] = [...enforced.owners, ...enforced.attacks.map((a) => a.startedBy)];
  const seen = new Set<string>();
  for (const person of people) {
    const id = `${person.workspaceId}/${person.userId}`;
    if (seen.has(id)) continue;
    seen.add(id);
    const login = await deps.sessions.get(person);
    const team = enforced.attacks.length
      ? login?.session.teams.find((t) => enforced.attacks.some((a) => a.teamId === t.identifier))
      : (login?.team ?? login?.session.teams[0]);
    if (!login || !team) continue;
    try {
      return await readGuard(
        deps.platform.as({ header: login.session.header, teamId: team.identifier, background: true }),
        enforced.guard.spec,
        deps.clock.now,
      );
    } catch (error) {
      if (!(error instanceof UnauthorizedError)) throw error;
    }
  }
  return undefined;
}

/** One guard's reading in a pass, and the attacks its trip halted. */
interface Outcome {
  enforced: EnforcedGuard;
  reading: GuardReading;
  before: GuardReading | undefined;
  fired: Set<string>;
}

/**
 * Shows every guard's new reading on the cards it covers, one update per card per pass, so two
 * guards of one card never overwrite each other; a guard that halted an attack marks its card.
 */
async function showOnCards(deps: GuardrailParts, outcomes: Outcome[], breathe?: Breathe): Promise<void> {
  const byCard = new Map<string, Outcome[]>();
  for (const outcome of outcomes)
    for (const attack of outcome.enforced.attacks)
      byCard.set(attack.guid, [...(byCard.get(attack.guid) ?? []), outcome]);
  const guids = [...byCard.keys()];
  const cards = await deps.cards.getMany(guids, breathe);
  for (const [index, guid] of guids.entries()) {
    const mine = byCard.get(guid)!;
    // The card as read shows whether anything is new; the change itself is made on the card as stored.
    const readings = (card: CardRecord): CardRecord | undefined => {
      const guards = [...(card.guards ?? [])];
      let changed = false;
      for (const { enforced, reading, fired } of mine) {
        const key = guardKey(enforced.guard.spec);
        const index = guards.findIndex((g) => g.key === key);
        const before = guards[index];
        const next = {
          key,
          name: guardName(enforced.guard.spec, reading),
          state: reading.state,
          health: reading.health,
          firedAt: fired.has(guid) ? reading.at : before?.firedAt,
        };
        if (before && (['state', 'health', 'firedAt', 'name'] as const).every((f) => before[f] === next[f])) continue;
        if (index >= 0) guards[index] = next;
        else guards.push(next);
        changed = true;
      }
      return changed ? { ...card, guards } : undefined;
    };
    try {
      const card = cards[index];
      if (!card || !readings(card)) continue;
      const change = await deps.cards.update(guid, readings);
      if (change?.changed) await deps.events.record({ kind: 'changed', card: change.card });
    } catch (error) {
      deps.logger.warn({ err: error, attack: guid }, 'could not show guard readings on a card');
    }
  }
}

/**
 * Once per poll pass: each distinct guard over live attacks or of a running game day is read once,
 * its state shown on the cards it covers, and when it turns unhealthy every attack it covers is
 * halted. Never throws.
 */
export async function enforceGuards(deps: GuardrailParts, breathe?: Breathe): Promise<void> {
  let enforced: EnforcedGuard[];
  try {
    enforced = await enforcedGuards(deps, breathe);
  } catch (error) {
    deps.logger.warn({ err: error }, 'could not gather the guards of live attacks');
    return;
  }
  const ttlMs = keys.guardRead.ttlMs(deps.config.pollSeconds * 1000);
  // One replica reads a guard in a pass, as with the poller's lease.
  const claim = (w: EnforcedGuard) => deps.store.claim(keys.guardRead.key(guardKey(w.guard.spec)), ttlMs, reader);
  const warn = (w: EnforcedGuard) => (error: unknown) =>
    deps.logger.warn({ err: error, guard: guardKey(w.guard.spec) }, 'could not read or act on a guard');
  // Guards are read side by side…
  const readings = await Promise.all(
    enforced
      .map(async (w) => {
        if (!(await claim(w))) return undefined;
        const reading = (await read(deps, w)) ?? {
          health: 'unknown' as const,
          state: 'nobody logged in can read it',
          at: new Date(deps.clock.now()).toISOString(),
        };
        const before = await deps.guards.reading(w.guard.spec);
        await deps.guards.saveReading(w.guard.spec, reading);
        return { enforced: w, reading, before };
      })
      .map((p, i) => p.catch(warn(enforced[i]!))),
  );
  // …and acted on one after another, so two guards firing together halt an attack once.
  const outcomes: Outcome[] = [];
  const actedOn = new Set<string>();
  for (const r of readings) {
    if (!r) continue;
    const fired =
      r.reading.health === 'unhealthy'
        ? await tripGuard(deps, r.enforced, r.reading, r.before, actedOn).catch(warn(r.enforced))
        : undefined;
    outcomes.push({ ...r, fired: fired ?? new Set<string>() });
  }
  await showOnCards(deps, outcomes, breathe);
  for (const channel of new Set(outcomes.flatMap((o) => [...o.enforced.gameDays]))) {
    await deps.gameDays
      .showGuards(channel)
      .catch((error: unknown) =>
        deps.logger.warn({ err: error, channel }, 'could not redraw the guards of a game day'),
      );
  }
}
