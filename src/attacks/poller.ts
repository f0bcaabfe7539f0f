import { randomUUID } from 'node:crypto';
import { NotFoundError, UnauthorizedError } from '../client/errors.ts';
import type { Attack, PlatformClient, ScopedPlatform } from '../client/index.ts';
import type { Breathe } from '../jobs/scheduler.ts';
import { type Person, type SessionStore, samePerson } from '../store/sessions.ts';
import { keys } from '../store/keys.ts';
import type { AttackState, LiveCard, MessageRef } from './cards.ts';
import { withState, isLive } from './lifecycle.ts';
import { recordState } from './events.ts';
import { type WatchCardParts, WatchCards } from './watchCards.ts';
import type { Watch } from './watches.ts';
import type { AttackParts } from './service.ts';

/** What the poller works with: the watched channels' parts, the platform that reads for the cards, and how often. */
export interface PollerOptions extends WatchCardParts {
  platform: PlatformClient;
  /** How often the card refresh job runs a pass: a team's lease lasts twice that. */
  intervalMs: number;
}

export interface PollReport {
  teams: number;
  cards: number;
  updated: number;
  /** Cards posted in watched channels for attacks found in the teams' lists. */
  posted: number;
}

/**
 * Keeps live attack cards current, and posts cards in watched channels. Per team and interval it
 * reads the active list once (all its pages), whatever cards and watches the team has, then
 * fetches one by one only the attacks that left it; a card is updated only when what it shows
 * changed, and an attack of a watched team that a watching channel does not show yet gets a card.
 * The live set and the watches are in the store, so a restart resumes where it stopped, and a
 * per-team lease lets exactly one replica poll a team; another takes over when it lapses.
 */
export class Poller {
  /** The cards, the sessions and the platform that read for them, the leases' store, the recorder. */
  readonly #parts: PollerOptions;
  /** Keeps watched channels' cards posted, and pauses the watches whose sessions ended. */
  readonly #watchCards: WatchCards;
  #running: Promise<PollReport> | undefined;
  /** This process, as the holder of per-team polling leases. */
  readonly #replica = randomUUID();
  /** Teams whose lease this process took: given back on stop, so another replica takes over at once. */
  readonly #leased = new Set<string>();
  /** What the pass under way awaits between its pieces: its job's breathe, or nothing when run by hand. */
  #breathe: Breathe = async () => {};

  constructor(options: PollerOptions) {
    this.#parts = options;
    this.#watchCards = new WatchCards(options);
  }

  /** Waits for a pass under way and gives back this process's leases (only those it still holds). */
  async stop(): Promise<void> {
    await this.#running?.catch(() => undefined);
    const teams = [...this.#leased];
    this.#leased.clear();
    await Promise.all(
      teams.map((teamId) =>
        this.#parts.store.release(keys.poll.key(teamId), this.#replica).catch((error: unknown) => {
          // The lease lapses by itself; another replica only waits a little longer.
          this.#parts.logger.warn({ err: error, teamId }, 'could not give back a polling lease');
        }),
      ),
    );
  }

  /** One pass over every team with live cards or a watch; a pass already running is joined, not repeated. */
  pollOnce(breathe: Breathe = async () => {}): Promise<PollReport> {
    this.#running ??= this.#pass(breathe).finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #pass(breathe: Breathe): Promise<PollReport> {
    this.#breathe = breathe;
    await this.#watchCards.saveUnsaved();
    const live = await this.#parts.cards.liveCardsByTeam(breathe);
    const watched = (await this.#parts.watches?.byTeam()) ?? new Map<string, Watch[]>();
    const teams = new Set([...live.keys(), ...watched.keys()]);
    const report: PollReport = { teams: 0, cards: 0, updated: 0, posted: 0 };
    await Promise.all(
      [...teams].map(async (teamId) => {
        // A lease a little longer than the interval: the replica that polls a team keeps it.
        if (
          !(await this.#parts.store.claim(
            keys.poll.key(teamId),
            keys.poll.ttlMs(this.#parts.intervalMs),
            this.#replica,
          ))
        )
          return;
        this.#leased.add(teamId);
        const liveCards = live.get(teamId) ?? [];
        try {
          const { updated, posted } = await this.#pollTeam(teamId, liveCards, watched.get(teamId) ?? []);
          report.teams++;
          report.cards += liveCards.length;
          report.updated += updated;
          report.posted += posted;
        } catch (error) {
          this.#parts.logger.warn({ err: error, teamId }, 'could not refresh the cards of a team');
        }
      }),
    );
    return report;
  }

  /**
   * One team: one read of its active list (all pages) serves both its live cards and its
   * watched channels. The list is read with the session of a watch's owner when the team is
   * watched, else with the cards' starters' (or anyone's who can read the team).
   */
  async #pollTeam(teamId: string, live: LiveCard[], watches: Watch[]): Promise<{ updated: number; posted: number }> {
    const cards = live.filter((c) => isLive(c));
    let watching = await this.#watchCards.readable(watches);
    if (!cards.length && !watching.length) return { updated: 0, posted: 0 };
    for await (const { person, api } of readersOf(this.#parts, teamId, cards, watching)) {
      try {
        const { states, attacks } = await readActive(api, cards, watching.length > 0, this.#breathe);
        const updated = await this.#refreshCards(api, cards, states);
        const posted = watching.length ? await this.#watchCards.post(watching, attacks) : 0;
        return { updated, posted };
      } catch (error) {
        if (!(error instanceof UnauthorizedError)) throw error;
        // That person's session is dead: forget it, pause the watches it read for, and let the next reader try.
        await this.#parts.sessions.drop(person);
        for (const watch of watching.filter((w) => samePerson(w.by, person))) await this.#watchCards.pause(watch);
        watching = watching.filter((w) => !samePerson(w.by, person));
      }
    }
    if (cards.length)
      this.#parts.logger.warn(
        { teamId, cards: cards.length },
        'nobody logged in can read the team; its cards stay as they are',
      );
    return { updated: 0, posted: 0 };
  }

  /** What the platform changed: a card is written only when what it shows changed, in one step with what others marked on it. */
  async #refreshCards(api: ScopedPlatform, cards: LiveCard[], active: Map<string, AttackState>): Promise<number> {
    let updated = 0;
    let unyielded = 0;
    for (const card of cards) {
      // A store that answers without I/O (SQLite, memory) would otherwise keep the event loop for
      // the whole pass, and Slack's requests would wait for all of it: it breathes after each
      // card updated, and every 100 unchanged ones (each costs a few microseconds).
      if (++unyielded > 100) {
        unyielded = 0;
        await this.#breathe();
      }
      const state = active.get(card.guid) ?? (await readLeft(api, card));
      if (!withState(card, state).changed) continue;
      // The card itself, only now, changed in one step: what a halt or a ticket marked on it is kept.
      if (!(await recordState(this.#parts.cards, this.#parts.events, card.guid, state))) continue;
      updated++;
      unyielded = 100;
    }
    return updated;
  }
}

/**
 * The platform as each person who can read the team, in turn: the watches' owners first (a
 * watch reads with its owner's session), then the cards' starters, then (only for cards, and
 * only if none of them can) anyone else logged in with that team, so cards keep moving after
 * their starter logs out.
 */
async function* readersOf(
  { sessions, platform }: { sessions: SessionStore; platform: PlatformClient },
  teamId: string,
  cards: LiveCard[],
  watches: Watch[],
): AsyncIterable<{ person: Person; api: ScopedPlatform }> {
  const seen = new Set<string>();
  const owners = watches.map((w) => w.by);
  const starters = cards.map((c) => c.startedBy);
  const others = () => (cards.length ? sessions.readersOf(teamId) : Promise.resolve([]));
  for (const people of [owners, starters, others] as const) {
    for (const person of typeof people === 'function' ? await people() : people) {
      const key = `${person.workspaceId}/${person.userId}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const login = await sessions.get(person);
      if (login?.session.teams.some((t) => t.identifier === teamId))
        yield { person, api: platform.as({ header: login.session.header, teamId, background: true }) };
    }
  }
}

/** The team's active attacks (and Kubernetes attacks, when a card needs them), by guid. */
async function readActive(
  api: ScopedPlatform,
  cards: LiveCard[],
  watched: boolean,
  breathe: Breathe,
): Promise<{ states: Map<string, AttackState>; attacks: Attack[] }> {
  const states = new Map<string, AttackState>();
  const attacks: Attack[] = [];
  if (watched || cards.some((c) => c.kind === 'attack')) {
    for await (const attack of api.attacks.iterateActive({ pageSize: 1000 })) {
      states.set(attack.guid, attack);
      // A page takes milliseconds to parse: the next is asked for after a breath.
      if (attacks.push(attack) % 1000 === 0) await breathe();
    }
  }
  if (cards.some((c) => c.kind === 'kubernetes')) {
    for (const attack of await api.kubernetes.list()) states.set(attack.guid, attack);
  }
  return { states, attacks };
}

/** An attack that left the active list, read by itself; one gone from the platform altogether shows as finished. */
async function readLeft(api: ScopedPlatform, card: LiveCard): Promise<AttackState> {
  try {
    return card.kind === 'kubernetes' ? await api.kubernetes.get(card.guid) : await api.attacks.get(card.guid);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    // Gone from the platform altogether: show it as finished rather than ask forever.
    return { stage: card.stage, stage_lifecycle: 'Complete' };
  }
}

/**
 * Notes the cards whose last update did not reach Slack before this replica stopped (Slack was
 * rate-limiting, or slow past the shutdown's time limit). The store already holds what they
 * should show; redrawUnsent, on whichever replica polls next, puts that on them.
 */
export async function rememberUnsent(
  deps: Pick<AttackParts, 'store' | 'logger'>,
  messages: MessageRef[],
): Promise<void> {
  for (const { channel, ts } of messages) {
    await deps.store
      .set(keys.unsentUpdate.key(channel, ts), { channel, ts }, keys.unsentUpdate.ttlMs)
      .catch((error: unknown) => {
        deps.logger.warn({ err: error, channel, ts }, 'could not keep a card update for the next replica');
      });
  }
}

/**
 * Draws again, from the store, every attack or game-day card noted by rememberUnsent, and
 * forgets the note once the update is queued. Never throws: it is a background job.
 */
export async function redrawUnsent(
  deps: Pick<AttackParts, 'store' | 'cards' | 'events' | 'gameDays' | 'logger'>,
): Promise<number> {
  let redrawn = 0;
  try {
    const noted: MessageRef[] = [];
    for await (const [, message] of deps.store.entries<MessageRef>(keys.unsentUpdate.prefix)) noted.push(message);
    for (const { channel, ts } of noted) {
      const card = await deps.cards.byMessage(channel, ts);
      if (card) {
        await deps.events.record({ kind: 'changed', card });
        redrawn++;
      } else {
        const gameDay = await deps.gameDays.byCard(channel, ts);
        if (gameDay) {
          deps.gameDays.redrawCard(gameDay);
          redrawn++;
        }
      }
      await deps.store.delete(keys.unsentUpdate.key(channel, ts));
    }
  } catch (error) {
    deps.logger.warn({ err: error }, 'could not redraw the cards a stopped replica left');
  }
  return redrawn;
}
