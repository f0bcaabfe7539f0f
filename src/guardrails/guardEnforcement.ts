import { randomUUID } from 'node:crypto';
import type { CardRecord } from '../attacks/cards.ts';
import { UnauthorizedError } from '../client/errors.ts';
import type { GuardrailParts } from './service.ts';
import type { Breathe } from '../jobs/scheduler.ts';
import type { Person } from '../store/sessions.ts';
import { keys } from '../store/keys.ts';
import { type EnforcedGuard, enforcedGuards } from './guardCoverage.ts';
import { guardKey, guardName, type GuardReading, readGuard } from './guards.ts';
import { tripGuard } from './guardTrips.ts';

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
 * Once per poll pass: each distinct guard over live attacks or of a running game day is read once (one replica reads it,
 * as with the poller's lease), its state shown on the cards it covers, and when it turns
 * unhealthy every attack it covers is halted. Never throws.
 */
export async function enforceGuards(deps: GuardrailParts, breathe?: Breathe): Promise<void> {
  let enforced: EnforcedGuard[];
  try {
    enforced = await enforcedGuards(deps, breathe);
  } catch (error) {
    deps.logger.warn({ err: error }, 'could not gather the guards of live attacks');
    return;
  }
  const intervalMs = deps.config.pollSeconds * 1000;
  const warn = (w: EnforcedGuard) => (error: unknown) =>
    deps.logger.warn({ err: error, guard: guardKey(w.guard.spec) }, 'could not read or act on a guard');
  // Guards are read side by side…
  const readings = await Promise.all(
    enforced
      .map(async (w) => {
        if (
          !(await deps.store.claim(
            keys.guardRead.key(guardKey(w.guard.spec)),
            keys.guardRead.ttlMs(intervalMs),
            reader,
          ))
        )
          return undefined;
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
