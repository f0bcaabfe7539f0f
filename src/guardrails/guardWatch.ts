import { randomUUID } from 'node:crypto';
import { ForbiddenError, UnauthorizedError } from '../client/errors.ts';
import { type CardRecord, isLive } from '../attacks/cards.ts';
import type { Deps } from '../deps.ts';
import type { Person } from '../store/sessions.ts';
import { actions, escapeMrkdwn, section, slackDate } from '../views/blocks.ts';
import { haltAllButton } from '../views/halt.ts';
import { type Guard, guardKey, guardName, type GuardReading, readGuard } from './guards.ts';

/** This process, as the holder of per-guard reading leases. */
const reader = randomUUID();

interface Watched {
  guard: Guard;
  cards: CardRecord[];
  /** Channels whose running game day has this guard: their cards show its readings. */
  gameDays: Set<string>;
}

/**
 * Every distinct guard over the live cards, with the cards it covers, and every guard of a
 * running game day, whose card shows it even while no attack runs. Only guarded attacks and the
 * live cards of channels whose running game day has guards are read, so a pass over many
 * unguarded cards costs next to nothing.
 */
async function watchedGuards(deps: Deps): Promise<Watched[]> {
  const byKey = new Map<string, Watched>();
  const entryOf = (guard: Guard) => {
    const key = guardKey(guard.spec);
    const entry = byKey.get(key) ?? { guard, cards: [], gameDays: new Set<string>() };
    byKey.set(key, entry);
    return entry;
  };
  const cover = (guard: Guard, card: CardRecord) => {
    const entry = entryOf(guard);
    if (!entry.cards.some((c) => c.guid === card.guid)) entry.cards.push(card);
  };
  for (const [guid, guards] of await deps.guards.attackGuards()) {
    const card = await deps.cards.get(guid);
    if (card && isLive(card)) guards.forEach((guard) => cover(guard, card));
    // A finished attack needs its guards no more.
    else await deps.guards.dropForAttack(guid);
  }
  const days = new Map<string, { startedAt: string; guards: Guard[] }>();
  for (const day of await deps.gameDays.allRunning()) {
    const guards = await deps.guards.forGameDay(day.id);
    for (const guard of guards) entryOf(guard).gameDays.add(day.channel);
    if (guards.length) days.set(day.channel, { startedAt: day.startedAt, guards });
  }
  if (days.size) {
    for (const [, guids] of await deps.cards.liveByTeam()) {
      for (const guid of guids) {
        const card = await deps.cards.get(guid);
        const day = card && days.get(card.channel);
        if (card && day && isLive(card) && day.startedAt <= card.createdAt) day.guards.forEach((guard) => cover(guard, card));
      }
    }
  }
  return [...byKey.values()];
}

/**
 * Reads a guard with its owner's session, or, failing that, with a covered attack's starter's,
 * in a team of the attacks it covers; a guard covering none is read in the owner's team.
 */
async function read(deps: Deps, watched: Watched): Promise<GuardReading | undefined> {
  const people: Person[] = [watched.guard.owner, ...watched.cards.map((c) => c.startedBy)];
  const seen = new Set<string>();
  for (const person of people) {
    const id = `${person.workspaceId}/${person.userId}`;
    if (seen.has(id)) continue;
    seen.add(id);
    const login = await deps.sessions.get(person);
    const team = watched.cards.length
      ? login?.session.teams.find((t) => watched.cards.some((c) => c.teamId === t.identifier))
      : (login?.team ?? login?.session.teams[0]);
    if (!login || !team) continue;
    try {
      return await readGuard(deps.platform.as({ header: login.session.header, teamId: team.identifier }), watched.guard.spec, deps.clock.now);
    } catch (error) {
      if (!(error instanceof UnauthorizedError)) throw error;
    }
  }
  return undefined;
}

/** Shows a guard's new reading on every card it covers; a fired guard marks the card. */
async function showOnCards(deps: Deps, watched: Watched, reading: GuardReading, fired: Set<string>): Promise<void> {
  const key = guardKey(watched.guard.spec);
  const name = guardName(watched.guard.spec, reading);
  for (const stale of watched.cards) {
    const card = (await deps.cards.get(stale.guid)) ?? stale;
    const guards = [...(card.guards ?? [])];
    const index = guards.findIndex((g) => g.key === key);
    const before = index >= 0 ? guards[index]! : undefined;
    const next = { key, name, state: reading.state, health: reading.health, firedAt: fired.has(card.guid) ? reading.at : before?.firedAt };
    if (before && before.state === next.state && before.health === next.health && before.firedAt === next.firedAt && before.name === next.name) continue;
    if (index >= 0) guards[index] = next;
    else guards.push(next);
    await deps.poller.publish({ ...card, guards });
  }
}

/**
 * Halts every attack a fired guard covers, with the guard owner's session and the reason
 * `guard <name> fired`. What that session cannot halt is put in front of people: a message in
 * the attack's channel with Halt all, and a direct message to the guard's owner.
 */
async function trip(deps: Deps, watched: Watched, reading: GuardReading, before: GuardReading | undefined): Promise<Set<string>> {
  const name = guardName(watched.guard.spec, reading);
  const reason = `guard ${name} fired`;
  const owner = watched.guard.owner;
  const login = await deps.sessions.get(owner);
  const halted = new Set<string>();
  const stuck: CardRecord[] = [];
  const holder = randomUUID();
  const key = guardKey(watched.guard.spec);
  for (const card of watched.cards) {
    // Another guard has halted it already: nobody needs to halt it again.
    const latest = (await deps.cards.get(card.guid)) ?? card;
    if (latest.guards?.some((g) => g.firedAt && g.key !== key)) continue;
    if (!(await deps.guards.claimTrip(watched.guard.spec, card.guid, holder))) continue;
    const team = login?.session.teams.find((t) => t.identifier === card.teamId);
    if (!login || !team) {
      stuck.push(card);
      continue;
    }
    try {
      const api = deps.platform.as({ header: login.session.header, teamId: team.identifier });
      const request = { reason, reference: `slack:${owner.workspaceId}:${owner.userId}` };
      if (card.kind === 'kubernetes') await api.kubernetes.halt(card.guid, request);
      else await api.attacks.halt(card.guid, request);
      halted.add(card.guid);
      deps.logger.info({ audit: 'attack_halted', slackWorkspace: owner.workspaceId, slackUser: owner.userId, team: card.teamId, attack: card.guid, reason, guard: guardKey(watched.guard.spec) }, 'audit: attack_halted');
      const line = `:rotating_light: Guard *${escapeMrkdwn(name)}* fired (${escapeMrkdwn(reading.state)}) at ${slackDate(new Date(reading.at), '{time}')}: halted this attack with <@${owner.userId}>'s session.`;
      await deps.slack.post(card.channel, { text: line }, { threadTs: card.ts }).catch((error: unknown) => deps.logger.warn({ err: error, attack: card.guid }, 'could not post a guard halt in the thread'));
    } catch (error) {
      if (!(error instanceof UnauthorizedError || error instanceof ForbiddenError)) {
        // A platform hiccup: let the next pass try again.
        await deps.guards.releaseTrip(watched.guard.spec, card.guid, holder).catch(() => undefined);
        throw error;
      }
      stuck.push(card);
    }
  }
  if (stuck.length) await askPeopleToHalt(deps, watched.guard, name, reading, stuck);
  await recordTrips(deps, watched, reading, before, watched.cards.filter((c) => halted.has(c.guid)), stuck);
  return halted;
}

/**
 * Puts a trip in the timeline of each game day it touched: the channels of the attacks acted on
 * now, and, when the guard has just turned unhealthy, the game days it guards with nothing running.
 */
async function recordTrips(deps: Deps, watched: Watched, reading: GuardReading, before: GuardReading | undefined, halted: CardRecord[], stuck: CardRecord[]): Promise<void> {
  const channels = new Set([...halted, ...stuck].map((c) => c.channel));
  if (before?.health !== 'unhealthy') for (const channel of watched.gameDays) channels.add(channel);
  const attack = (c: CardRecord) => ({ guid: c.guid, type: c.type });
  const inOrder = (cards: CardRecord[]) => [...cards].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  [halted, stuck] = [inOrder(halted), inOrder(stuck)];
  for (const channel of channels) {
    await deps.gameDays.record(channel, {
      kind: 'guard',
      trip: {
        key: guardKey(watched.guard.spec),
        guard: guardName(watched.guard.spec, reading),
        state: reading.state,
        at: reading.at,
        owner: watched.guard.owner.userId,
        halted: halted.filter((c) => c.channel === channel).map(attack),
        notHalted: stuck.filter((c) => c.channel === channel).map(attack),
      },
    });
  }
}

async function askPeopleToHalt(deps: Deps, guard: Guard, name: string, reading: GuardReading, cards: CardRecord[]): Promise<void> {
  const owner = guard.owner;
  const list = (cs: CardRecord[]) => cs.map((c) => `*${escapeMrkdwn(c.type)}* \`${c.guid}\` in *${escapeMrkdwn(c.teamName)}*`).join(', ');
  for (const channel of new Set(cards.map((c) => c.channel))) {
    const here = cards.filter((c) => c.channel === channel);
    const text = `:rotating_light: Guard *${escapeMrkdwn(name)}* fired (${escapeMrkdwn(reading.state)}), but <@${owner.userId}>'s session could not halt ${list(here)}. Halt ${here.length === 1 ? 'it' : 'them'} now.`;
    await deps.slack.post(channel, { text, blocks: [section(text), actions('guard_halt_all', [haltAllButton()])] }).catch((error: unknown) => deps.logger.warn({ err: error, channel }, 'could not ask a channel to halt after a guard fired'));
  }
  const dm = `:rotating_light: Your guard *${escapeMrkdwn(name)}* fired (${escapeMrkdwn(reading.state)}), but your session could not halt ${list(cards)}: log in again with \`${deps.config.slack.command} login\` and halt ${cards.length === 1 ? 'it' : 'them'}, or ask someone who can.`;
  await deps.slack.post(owner.userId, { text: dm }).catch((error: unknown) => deps.logger.warn({ err: error }, 'could not tell a guard owner that their guard could not halt'));
}

/**
 * Once per poll pass: each distinct guard over live attacks or of a running game day is read once (one replica reads it,
 * as with the poller's lease), its state shown on the cards it covers, and when it turns
 * unhealthy every attack it covers is halted. Never throws.
 */
export async function enforceGuards(deps: Deps): Promise<void> {
  let watched: Watched[];
  try {
    watched = await watchedGuards(deps);
  } catch (error) {
    deps.logger.warn({ err: error }, 'could not gather the guards of live attacks');
    return;
  }
  const intervalMs = deps.config.pollSeconds * 1000;
  await Promise.all(
    watched.map(async (w) => {
      try {
        if (!(await deps.store.claim(`guard-read:${guardKey(w.guard.spec)}`, intervalMs * 2, reader))) return;
        const reading = (await read(deps, w)) ?? { health: 'unknown' as const, state: 'nobody logged in can read it', at: new Date(deps.clock.now()).toISOString() };
        const before = await deps.guards.reading(w.guard.spec);
        await deps.guards.saveReading(w.guard.spec, reading);
        const fired = reading.health === 'unhealthy' ? await trip(deps, w, reading, before) : new Set<string>();
        await showOnCards(deps, w, reading, fired);
        for (const channel of w.gameDays) await deps.gameDays.showGuards(channel);
      } catch (error) {
        deps.logger.warn({ err: error, guard: guardKey(w.guard.spec) }, 'could not read or act on a guard');
      }
    }),
  );
}
