import { randomUUID } from 'node:crypto';
import type { Attack } from '../client/index.ts';
import type { Logger } from '../logger.ts';
import type { KeyValueStore } from '../store/keyValue.ts';
import { keys } from '../store/keys.ts';
import { type SessionStore, samePerson } from '../store/sessions.ts';
import { type CardRecord, type CardStore, type MessageRef, shownIn } from './cards.ts';
import { withState } from './lifecycle.ts';
import { claimWatchCard } from './start.ts';
import type { Recorder } from './events.ts';
import { type Watch, type Watches, watchCovers, watchedAttackCard } from './watches.ts';

/** Where watches show in their channels; the words and the Slack calls are in src/slack/notices.ts. */
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

/** What the poller and its watched channels' cards work with: the cards, the stored sessions that read for them, the watches' board. */
export interface WatchCardParts {
  cards: CardStore;
  /** Posts the cards of watched channels, and says when a watch pauses. */
  board: WatchBoard;
  /** Channels bound to teams: their teams are polled too, and new attacks found there get cards. */
  watches?: Watches | undefined;
  /** The clock, for when a watch pauses; default Date.now. */
  now?: (() => number) | undefined;
  /** Holds the per-team polling leases and the watched cards' claims. */
  store: KeyValueStore;
  sessions: SessionStore;
  logger: Logger;
  /** Where the cards' changes are said: an attack that moved on, or ended. */
  events: Recorder;
}

/** At most this many new cards per watched channel and pass; the rest follow at the next passes. */
export const watchCardsPerPass = 20;

/** Slack's answers that will not change by trying again: the channel is kept claimed, not tried every pass. */
const lastingPostErrors = new Set(['not_in_channel', 'channel_not_found', 'is_archived']);
const lastingPostError = (error: unknown) =>
  lastingPostErrors.has((error as { data?: { error?: unknown } }).data?.error as string);

/** A card posted in a watched channel whose record could not be saved yet. */
type UnsavedCard = { kind: 'new'; card: CardRecord } | { kind: 'mirror'; guid: string; message: MessageRef };

/**
 * Keeps watched channels' cards posted: a card in each watching channel for every attack of its
 * team's list it does not show yet, and a word to a channel whose watch paused.
 */
export class WatchCards {
  readonly #parts: WatchCardParts;
  readonly #now: () => number;
  /** Cards posted in watched channels whose save failed: saved again at the next passes, so they are kept current. */
  #unsaved: UnsavedCard[] = [];

  constructor(parts: WatchCardParts) {
    this.#parts = parts;
    this.#now = parts.now ?? Date.now;
  }

  /** The watches that can read now; one whose owner's session has ended (or lost the team) is paused. */
  async readable(watches: Watch[]): Promise<Watch[]> {
    const readable: Watch[] = [];
    for (const watch of watches) {
      if (watch.pausedAt) continue;
      const login = await this.#parts.sessions.get(watch.by);
      if (login?.session.teams.some((t) => t.identifier === watch.teamId)) readable.push(watch);
      else await this.pause(watch);
    }
    return readable;
  }

  /** Pauses a watch and tells its channel, once, how to renew it. */
  async pause(watch: Watch): Promise<void> {
    const { watches, logger, store, board } = this.#parts;
    if (!watches) return;
    const current = await watches.get(watch.teamId, watch.channel);
    // Removed, renewed by someone else or already paused since this pass began: nothing to do.
    if (!current || current.pausedAt || current.renewedAt !== watch.renewedAt || !samePerson(current.by, watch.by))
      return;
    const paused: Watch = { ...current, pausedAt: new Date(this.#now()).toISOString() };
    await watches.set(paused);
    const where = { teamId: watch.teamId, channel: watch.channel };
    logger.info({ ...where, slackUser: watch.by.userId }, 'watch paused: the session that read for it ended');
    if (
      !(await store.claim(keys.watchPaused.key(watch.teamId, watch.channel, watch.renewedAt), keys.watchPaused.ttlMs))
    )
      return;
    await board.tellPaused(paused).catch((error: unknown) => {
      logger.warn({ err: error, ...where }, 'could not tell a channel that its watch is paused');
    });
  }

  /**
   * Posts a card in each watching channel for every attack of the list that it does not show
   * yet: a new card when the attack has none anywhere, else a copy of its card, updated with it.
   * A claim per channel and attack makes it one card per channel, whatever replica polls next.
   */
  async post(watches: Watch[], attacks: Attack[]): Promise<number> {
    const { cards } = this.#parts;
    const oldestFirst = [...attacks].sort((a, b) => (a.created_at ?? '').localeCompare(b.created_at ?? ''));
    // Read once, after the list: a start from Slack under way in the team posts its own card.
    let startsUnderway: boolean | undefined;
    let posted = 0;
    for (const watch of watches) {
      let postedHere = 0;
      for (const attack of oldestFirst) {
        if (postedHere >= watchCardsPerPass) break;
        if (!watchCovers(watch, attack)) continue;
        startsUnderway ??= await cards.startsUnderway(watch.teamId);
        const existing = await cards.get(attack.guid);
        if (existing && shownIn(existing, watch.channel)) continue;
        // Maybe the attack being started: its card comes from the start; copies follow next pass.
        if (!existing && startsUnderway) continue;
        if (await this.#postOne(watch, attack, existing)) postedHere++;
      }
      posted += postedHere;
    }
    return posted;
  }

  /** Claims and posts one attack's card in a watching channel, then saves it; whether it was posted. */
  async #postOne(watch: Watch, attack: Attack, existing: CardRecord | undefined): Promise<boolean> {
    const { store, board, logger } = this.#parts;
    const claimant = randomUUID();
    if (!(await claimWatchCard(store, watch.channel, attack.guid, claimant))) return false;
    const where = { attack: attack.guid, channel: watch.channel };
    let posted: { message: MessageRef; card: CardRecord };
    const card = existing ? withState(existing, attack).card : watchedAttackCard(attack, watch);
    try {
      posted = await board.postCard(watch.channel, card, attack);
    } catch (error) {
      if (lastingPostError(error)) {
        // Kept claimed: a channel the bot cannot post in must not be tried every pass.
        logger.warn(
          { err: error, ...where },
          'could not post the card of a watched attack; not trying again in this channel',
        );
        return false;
      }
      logger.warn({ err: error, ...where }, 'could not post the card of a watched attack; trying again next pass');
      // Given back, so the next pass tries again.
      await store.release(keys.watchCard.key(watch.channel, attack.guid), claimant).catch((failed: unknown) => {
        logger.warn(
          { err: failed, ...where },
          'could not give back the claim of a watched card; it is tried again when the claim lapses',
        );
      });
      return false;
    }
    const unsaved: UnsavedCard = existing
      ? { kind: 'mirror', guid: attack.guid, message: posted.message }
      : { kind: 'new', card: { ...posted.card, channel: posted.message.channel, ts: posted.message.ts } };
    try {
      await this.#keepPosted(unsaved);
    } catch (error) {
      logger.warn(
        { err: error, ...where },
        'posted the card of a watched attack but could not save it; saving it again next pass',
      );
      this.#unsaved.push(unsaved);
    }
    return true;
  }

  /**
   * Saves a card a watch posted. A card record that is already there (a start's, or another
   * watch's) is never overwritten: the new message becomes a copy of that card.
   */
  async #keepPosted(posted: UnsavedCard): Promise<void> {
    if (posted.kind === 'mirror') {
      await this.#parts.cards.addMirror(posted.guid, posted.message);
      return;
    }
    const saved = await this.#parts.cards.savePosted(posted.card);
    // Posted as the watch saw the attack: it shows the card's own record from now on.
    if (saved.copy) await this.#parts.events.record({ kind: 'changed', card: saved.card });
  }

  /** The cards posted by earlier passes whose save failed, saved now (those that fail again wait for the next pass). */
  async saveUnsaved(): Promise<void> {
    const waiting = this.#unsaved;
    this.#unsaved = [];
    for (const posted of waiting) {
      try {
        await this.#keepPosted(posted);
      } catch (error) {
        this.#unsaved.push(posted);
        this.#parts.logger.debug({ err: error }, 'could not save a posted card yet');
      }
    }
  }
}
