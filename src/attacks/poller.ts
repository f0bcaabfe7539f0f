import { randomUUID } from 'node:crypto';
import { NotFoundError, UnauthorizedError } from '../client/errors.ts';
import type { Attack, PlatformClient, ScopedPlatform } from '../client/index.ts';
import type { Logger } from '../logger.ts';
import type { KeyValueStore } from '../store/keyValue.ts';
import type { Person, SessionStore } from '../store/sessions.ts';
import { shownIn, type AttackState, type CardRecord, type CardStore, type LiveCard, type MessageRef } from './cards.ts';
import { withState } from './cardState.ts';
import { type Recorder, recordState } from './events.ts';
import { isLive } from './lifecycle.ts';
import { watchCovers, watchedAttackCard, type Watch, type Watches } from './watches.ts';
import { keys } from '../store/keys.ts';
import type { Breathe } from '../jobs/scheduler.ts';

/** Where watches show in their channels; the words and the Slack calls are src/slack/watchBoard.ts's. */
export interface WatchBoard {
  /**
   * Posts a card in a watching channel: a copy of the attack's card, or for an attack that has
   * none yet its first card, its target worded from the platform's record. Gives back the message
   * and the card as it shows there.
   */
  postCard(
    channel: string,
    card: CardRecord | Omit<CardRecord, 'targetWords'>,
    attack: Attack,
  ): Promise<{ message: MessageRef; card: CardRecord }>;
  /** Tells a channel that its watch paused, and how to renew it. */
  tellPaused(watch: Watch): Promise<void>;
}

/** What the poller works with: the cards, the stored sessions that read for them, and the watches' board. */
export interface PollerOptions {
  cards: CardStore;
  /** Posts the cards of watched channels, and says when a watch pauses. */
  board: WatchBoard;
  /** Channels bound to teams: their teams are polled too, and new attacks found there get cards. */
  watches?: Watches | undefined;
  /** The clock, for when a watch pauses; default Date.now. */
  now?: (() => number) | undefined;
  /** Holds the per-team polling leases. */
  store: KeyValueStore;
  sessions: SessionStore;
  platform: PlatformClient;
  logger: Logger;
  /** How often the card refresh job runs a pass: a team's lease lasts twice that. */
  intervalMs: number;
  /** Where the cards' changes are said: an attack that moved on, or ended. */
  events: Recorder;
}

export interface PollReport {
  teams: number;
  cards: number;
  updated: number;
  /** Cards posted in watched channels for attacks found in the teams' lists. */
  posted: number;
}

/** At most this many new cards per watched channel and pass; the rest follow at the next passes. */
export const watchCardsPerPass = 20;

/**
 * Marks an attack started from Slack as carded in its channel, before its card is posted, so a
 * watch of the channel polling in between does not post a second card for it.
 */
export function claimWatchCard(store: KeyValueStore, channel: string, guid: string, owner?: string): Promise<boolean> {
  return store.claim(keys.watchCard.key(channel, guid), keys.watchCard.ttlMs, owner);
}

/** Gives back a watched card's claim when its card could not be posted, so the next pass tries again. */
function releaseWatchCard(store: KeyValueStore, channel: string, guid: string, owner: string): Promise<boolean> {
  return store.release(keys.watchCard.key(channel, guid), owner);
}

/** Slack's answers that will not change by trying again: the channel is kept claimed, not tried every pass. */
const lastingPostErrors = new Set(['not_in_channel', 'channel_not_found', 'is_archived']);
const lastingPostError = (error: unknown) =>
  lastingPostErrors.has((error as { data?: { error?: unknown } }).data?.error as string);

/** A card posted in a watched channel whose record could not be saved yet. */
type UnsavedCard = { kind: 'new'; card: CardRecord } | { kind: 'mirror'; guid: string; message: MessageRef };

const samePerson = (a: Person, b: Person) => a.workspaceId === b.workspaceId && a.userId === b.userId;

/**
 * Keeps live attack cards current, and posts cards in watched channels. Per team and interval it
 * reads the active list once (all its pages), whatever cards and watches the team has, then
 * fetches one by one only the attacks that left it; a card is updated only when what it shows
 * changed, and an attack of a watched team that a watching channel does not show yet gets a card.
 * The live set and the watches are in the store, so a restart resumes where it stopped, and a
 * per-team lease lets exactly one replica poll a team; another takes over when it lapses.
 */
export class Poller {
  readonly #cards: CardStore;
  readonly #board: WatchBoard;
  readonly #watches: Watches | undefined;
  readonly #now: () => number;
  readonly #store: KeyValueStore;
  readonly #sessions: SessionStore;
  readonly #platform: PlatformClient;
  readonly #logger: Logger;
  readonly #intervalMs: number;
  readonly #events: Recorder;
  #running: Promise<PollReport> | undefined;
  /** This process, as the holder of per-team polling leases. */
  readonly #replica = randomUUID();
  /** Teams whose lease this process took: given back on stop, so another replica takes over at once. */
  readonly #leased = new Set<string>();
  /** Cards posted in watched channels whose save failed: saved again at the next passes, so they are kept current. */
  #unsaved: UnsavedCard[] = [];
  /** What the pass under way awaits between its pieces: its job's breathe, or nothing when run by hand. */
  #breathe: Breathe = async () => {};

  constructor(options: PollerOptions) {
    this.#cards = options.cards;
    this.#board = options.board;
    this.#watches = options.watches;
    this.#now = options.now ?? Date.now;
    this.#store = options.store;
    this.#sessions = options.sessions;
    this.#platform = options.platform;
    this.#logger = options.logger;
    this.#intervalMs = options.intervalMs;
    this.#events = options.events;
  }

  /** Waits for a pass under way and gives back this process's leases (only those it still holds). */
  async stop(): Promise<void> {
    await this.#running?.catch(() => undefined);
    const teams = [...this.#leased];
    this.#leased.clear();
    await Promise.all(
      teams.map((teamId) =>
        this.#store.release(keys.poll.key(teamId), this.#replica).catch((error: unknown) => {
          // The lease lapses by itself; another replica only waits a little longer.
          this.#logger.warn({ err: error, teamId }, 'could not give back a polling lease');
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
    await this.#saveUnsaved();
    const live = await this.#cards.liveCardsByTeam(breathe);
    const watched = (await this.#watches?.byTeam()) ?? new Map<string, Watch[]>();
    const teams = new Set([...live.keys(), ...watched.keys()]);
    const report: PollReport = { teams: 0, cards: 0, updated: 0, posted: 0 };
    await Promise.all(
      [...teams].map(async (teamId) => {
        // A lease a little longer than the interval: the replica that polls a team keeps it.
        if (!(await this.#store.claim(keys.poll.key(teamId), keys.poll.ttlMs(this.#intervalMs), this.#replica))) return;
        this.#leased.add(teamId);
        const liveCards = live.get(teamId) ?? [];
        try {
          const { updated, posted } = await this.#pollTeam(teamId, liveCards, watched.get(teamId) ?? []);
          report.teams++;
          report.cards += liveCards.length;
          report.updated += updated;
          report.posted += posted;
        } catch (error) {
          this.#logger.warn({ err: error, teamId }, 'could not refresh the cards of a team');
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
    let watching = await this.#readableWatches(watches);
    if (!cards.length && !watching.length) return { updated: 0, posted: 0 };
    for await (const { person, api } of this.#readers(teamId, cards, watching)) {
      try {
        const { states, attacks } = await this.#readActive(api, cards, watching.length > 0);
        const updated = await this.#refreshCards(api, cards, states);
        const posted = watching.length ? await this.#cardNewAttacks(watching, attacks) : 0;
        return { updated, posted };
      } catch (error) {
        if (!(error instanceof UnauthorizedError)) throw error;
        // That person's session is dead: forget it, pause the watches it read for, and let the next reader try.
        await this.#sessions.drop(person);
        for (const watch of watching.filter((w) => samePerson(w.by, person))) await this.#pause(watch);
        watching = watching.filter((w) => !samePerson(w.by, person));
      }
    }
    if (cards.length)
      this.#logger.warn(
        { teamId, cards: cards.length },
        'nobody logged in can read the team; its cards stay as they are',
      );
    return { updated: 0, posted: 0 };
  }

  /** The watches that can read now; one whose owner's session has ended (or lost the team) is paused. */
  async #readableWatches(watches: Watch[]): Promise<Watch[]> {
    const readable: Watch[] = [];
    for (const watch of watches) {
      if (watch.pausedAt) continue;
      const login = await this.#sessions.get(watch.by);
      if (login?.session.teams.some((t) => t.identifier === watch.teamId)) readable.push(watch);
      else await this.#pause(watch);
    }
    return readable;
  }

  /** Pauses a watch and tells its channel, once, how to renew it. */
  async #pause(watch: Watch): Promise<void> {
    if (!this.#watches) return;
    const current = await this.#watches.get(watch.teamId, watch.channel);
    // Removed, renewed by someone else or already paused since this pass began: nothing to do.
    if (!current || current.pausedAt || current.renewedAt !== watch.renewedAt || !samePerson(current.by, watch.by))
      return;
    const paused: Watch = { ...current, pausedAt: new Date(this.#now()).toISOString() };
    await this.#watches.set(paused);
    this.#logger.info(
      { teamId: watch.teamId, channel: watch.channel, slackUser: watch.by.userId },
      'watch paused: the session that read for it ended',
    );
    if (
      !(await this.#store.claim(
        keys.watchPaused.key(watch.teamId, watch.channel, watch.renewedAt),
        keys.watchPaused.ttlMs,
      ))
    )
      return;
    await this.#board.tellPaused(paused).catch((error: unknown) => {
      this.#logger.warn(
        { err: error, teamId: watch.teamId, channel: watch.channel },
        'could not tell a channel that its watch is paused',
      );
    });
  }

  /** The team's active attacks (and Kubernetes attacks, when a card needs them), by guid. */
  async #readActive(
    api: ScopedPlatform,
    cards: LiveCard[],
    watched: boolean,
  ): Promise<{ states: Map<string, AttackState>; attacks: Attack[] }> {
    const states = new Map<string, AttackState>();
    const attacks: Attack[] = [];
    if (watched || cards.some((c) => c.kind === 'attack')) {
      for await (const attack of api.attacks.iterateActive({ pageSize: 1000 })) {
        states.set(attack.guid, attack);
        // A page takes milliseconds to parse: the next is asked for after a breath.
        if (attacks.push(attack) % 1000 === 0) await this.#breathe();
      }
    }
    if (cards.some((c) => c.kind === 'kubernetes')) {
      for (const attack of await api.kubernetes.list()) states.set(attack.guid, attack);
    }
    return { states, attacks };
  }

  /**
   * Posts a card in each watching channel for every attack of the list that it does not show
   * yet: a new card when the attack has none anywhere, else a copy of its card, updated with it.
   * A claim per channel and attack makes it one card per channel, whatever replica polls next.
   */
  async #cardNewAttacks(watches: Watch[], attacks: Attack[]): Promise<number> {
    const oldestFirst = [...attacks].sort((a, b) => (a.created_at ?? '').localeCompare(b.created_at ?? ''));
    // Read once, after the list: a start from Slack under way in the team posts its own card.
    let startsUnderway: boolean | undefined;
    let posted = 0;
    for (const watch of watches) {
      let postedHere = 0;
      for (const attack of oldestFirst) {
        if (postedHere >= watchCardsPerPass) break;
        if (!watchCovers(watch, attack)) continue;
        startsUnderway ??= await this.#cards.startsUnderway(watch.teamId);
        const existing = await this.#cards.get(attack.guid);
        if (existing && shownIn(existing, watch.channel)) continue;
        // Maybe the attack being started: its card comes from the start; copies follow next pass.
        if (!existing && startsUnderway) continue;
        const claimant = randomUUID();
        if (!(await claimWatchCard(this.#store, watch.channel, attack.guid, claimant))) continue;
        let posted: { message: MessageRef; card: CardRecord };
        const card = existing ? withState(existing, attack).card : watchedAttackCard(attack, watch);
        try {
          posted = await this.#board.postCard(watch.channel, card, attack);
        } catch (error) {
          if (lastingPostError(error)) {
            // Kept claimed: a channel the bot cannot post in must not be tried every pass.
            this.#logger.warn(
              { err: error, attack: attack.guid, channel: watch.channel },
              'could not post the card of a watched attack; not trying again in this channel',
            );
          } else {
            this.#logger.warn(
              { err: error, attack: attack.guid, channel: watch.channel },
              'could not post the card of a watched attack; trying again next pass',
            );
            await releaseWatchCard(this.#store, watch.channel, attack.guid, claimant).catch((failed: unknown) => {
              this.#logger.warn(
                { err: failed, attack: attack.guid, channel: watch.channel },
                'could not give back the claim of a watched card; it is tried again when the claim lapses',
              );
            });
          }
          continue;
        }
        postedHere++;
        const unsaved: UnsavedCard = existing
          ? { kind: 'mirror', guid: attack.guid, message: posted.message }
          : { kind: 'new', card: { ...posted.card, channel: posted.message.channel, ts: posted.message.ts } };
        try {
          await this.#keepPosted(unsaved);
        } catch (error) {
          this.#logger.warn(
            { err: error, attack: attack.guid, channel: watch.channel },
            'posted the card of a watched attack but could not save it; saving it again next pass',
          );
          this.#unsaved.push(unsaved);
        }
      }
      posted += postedHere;
    }
    return posted;
  }

  /**
   * Saves a card a watch posted. A card record that is already there (a start's, or another
   * watch's) is never overwritten: the new message becomes a copy of that card.
   */
  async #keepPosted(posted: UnsavedCard): Promise<void> {
    if (posted.kind === 'mirror') {
      await this.#cards.addMirror(posted.guid, posted.message);
      return;
    }
    const saved = await this.#cards.savePosted(posted.card);
    // Posted as the watch saw the attack: it shows the card's own record from now on.
    if (saved.copy) await this.#events.record({ kind: 'changed', card: saved.card });
  }

  /** The cards posted by earlier passes whose save failed, saved now (those that fail again wait for the next pass). */
  async #saveUnsaved(): Promise<void> {
    const waiting = this.#unsaved;
    this.#unsaved = [];
    for (const posted of waiting) {
      try {
        await this.#keepPosted(posted);
      } catch (error) {
        this.#unsaved.push(posted);
        this.#logger.debug({ err: error }, 'could not save a posted card yet');
      }
    }
  }

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
      let state = active.get(card.guid);
      if (!state) {
        try {
          state = card.kind === 'kubernetes' ? await api.kubernetes.get(card.guid) : await api.attacks.get(card.guid);
        } catch (error) {
          if (!(error instanceof NotFoundError)) throw error;
          // Gone from the platform altogether: show it as finished rather than ask forever.
          state = { stage: card.stage, stage_lifecycle: 'Complete' };
        }
      }
      if (!withState(card, state).changed) continue;
      // The card itself, only now, changed in one step: what a halt or a ticket marked on it is kept.
      if (!(await recordState(this.#cards, this.#events, card.guid, state))) continue;
      updated++;
      unyielded = 100;
    }
    return updated;
  }

  /**
   * The platform as each person who can read the team, in turn: the watches' owners first (a
   * watch reads with its owner's session), then the cards' starters, then (only for cards, and
   * only if none of them can) anyone else logged in with that team, so cards keep moving after
   * their starter logs out.
   */
  async *#readers(
    teamId: string,
    cards: LiveCard[],
    watches: Watch[],
  ): AsyncIterable<{ person: Person; api: ScopedPlatform }> {
    const seen = new Set<string>();
    const owners = watches.map((w) => w.by);
    const starters = cards.map((c) => c.startedBy);
    const others = () => (cards.length ? this.#sessions.readersOf(teamId) : Promise.resolve([]));
    for (const people of [owners, starters, others] as const) {
      for (const person of typeof people === 'function' ? await people() : people) {
        const key = `${person.workspaceId}/${person.userId}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const login = await this.#sessions.get(person);
        if (login?.session.teams.some((t) => t.identifier === teamId))
          yield { person, api: this.#platform.as({ header: login.session.header, teamId, background: true }) };
      }
    }
  }
}
