import type { CardRecord } from '../attacks/cards.ts';
import { isLive } from '../attacks/lifecycle.ts';
import type { GuardrailParts } from './service.ts';
import { startedUnder } from '../gamedays/gamedayReads.ts';
import type { Breathe } from '../jobs/scheduler.ts';
import { type Guard, guardKey } from './guards.ts';
import type { GuardedAttack } from './guardStore.ts';

/** An attack a guard covers: its card once saved, else what was kept with its guards. */
export type Covered = GuardedAttack & { ts?: string; guards?: CardRecord['guards'] };

export interface EnforcedGuard {
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
export async function enforcedGuards(deps: GuardrailParts, breathe?: Breathe): Promise<EnforcedGuard[]> {
  const byKey = new Map<string, EnforcedGuard>();
  const entryOf = (guard: Guard) => {
    const key = guardKey(guard.spec);
    const entry = byKey.get(key) ?? { guard, owners: [], attacks: [], gameDays: new Set<string>() };
    if (!entry.owners.some((o) => o.workspaceId === guard.owner.workspaceId && o.userId === guard.owner.userId))
      entry.owners.push(guard.owner);
    byKey.set(key, entry);
    return entry;
  };
  const cover = (guard: Guard, attack: Covered) => {
    const entry = entryOf(guard);
    if (!entry.attacks.some((a) => a.guid === attack.guid)) entry.attacks.push(attack);
  };
  const now = deps.clock.now();
  const guarded = await deps.guards.attackGuards();
  const guardedCards = await deps.cards.getMany(
    guarded.map(({ guid }) => guid),
    breathe,
  );
  for (const [index, { guid, attack, guards }] of guarded.entries()) {
    const card = guardedCards[index];
    const covered = card
      ? isLive(card)
        ? card
        : undefined
      : attack && now - Date.parse(attack.createdAt) < uncardedFor(attack)
        ? attack
        : undefined;
    if (covered) guards.forEach((guard) => cover(guard, covered));
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
