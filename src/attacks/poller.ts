import { randomUUID } from 'node:crypto';
import { UnauthorizedError } from '../client/errors.ts';
import type { PlatformClient, ScopedPlatform } from '../client/index.ts';
import type { Breathe } from '../jobs/scheduler.ts';
import { keys } from '../store/keys.ts';
import type { AttackState, LiveCard } from './cards.ts';
import { withState, isLive } from './lifecycle.ts';
import { recordState } from './events.ts';
import { readActive, readersOf, readLeft } from './pollReads.ts';
import { samePerson, type WatchCardParts, WatchCards } from './watchCards.ts';
import type { Watch } from './watches.ts';

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
