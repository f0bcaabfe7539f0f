import { randomUUID } from 'node:crypto';
import { NotFoundError, UnauthorizedError } from '../client/errors.ts';
import type { PlatformClient, ScopedPlatform } from '../client/index.ts';
import type { Logger } from '../logger.ts';
import type { Messenger } from '../slack/messenger.ts';
import { StoreUnavailableError } from '../store/errors.ts';
import type { KeyValueStore } from '../store/keyValue.ts';
import type { Person, SessionStore } from '../store/sessions.ts';
import { attackCardMessage } from '../views/attackCard.ts';
import { isLive, withState, type AttackState, type CardRecord, type CardStore } from './cards.ts';

/** What the poller works with: the cards, the stored sessions that read for them, and Slack. */
export interface PollerOptions {
  cards: CardStore;
  /** Queues the cards' message updates (paced by the Messenger). */
  messenger: Pick<Messenger, 'update'>;
  /** Holds the per-team polling leases. */
  store: KeyValueStore;
  sessions: SessionStore;
  platform: PlatformClient;
  logger: Logger;
  intervalMs: number;
  /** The platform's web UI, for the cards' links. */
  appUrl: string | undefined;
  /** Runs at the start of every pass (the warnings before sessions end); it must not throw. */
  beforePass?: () => Promise<unknown>;
  /** Told once a card shows its attack finished, after the card is saved (the game day follows its attacks); it must not throw. */
  onFinished?: (card: CardRecord) => Promise<unknown>;
}

export interface PollReport {
  teams: number;
  cards: number;
  updated: number;
}

/**
 * Keeps live attack cards current. Per team and interval it reads the active list once (all its
 * pages), then fetches one by one only the attacks that left it; a card is updated only when
 * what it shows changed. The live set is in the store, so a restart resumes where it stopped,
 * and a per-team lease lets exactly one replica poll a team; another takes over when it lapses.
 */
export class Poller {
  readonly #cards: CardStore;
  readonly #messenger: Pick<Messenger, 'update'>;
  readonly #store: KeyValueStore;
  readonly #sessions: SessionStore;
  readonly #platform: PlatformClient;
  readonly #logger: Logger;
  readonly #intervalMs: number;
  readonly #appUrl: string | undefined;
  readonly #beforePass: (() => Promise<unknown>) | undefined;
  readonly #onFinished: ((card: CardRecord) => Promise<unknown>) | undefined;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<PollReport> | undefined;
  /** This process, as the holder of per-team polling leases. */
  readonly #replica = randomUUID();
  /** Teams whose lease this process took: given back on stop, so another replica takes over at once. */
  readonly #leased = new Set<string>();
  /** Whether the last timed pass failed because the store was away (said once, not every pass). */
  #storeAway = false;

  constructor(options: PollerOptions) {
    this.#cards = options.cards;
    this.#messenger = options.messenger;
    this.#store = options.store;
    this.#sessions = options.sessions;
    this.#platform = options.platform;
    this.#logger = options.logger;
    this.#intervalMs = options.intervalMs;
    this.#appUrl = options.appUrl;
    this.#beforePass = options.beforePass;
    this.#onFinished = options.onFinished;
  }

  start(): void {
    this.#timer ??= setInterval(() => {
      this.pollOnce().then(() => this.#passed(), (error: unknown) => this.#failed(error));
    }, this.#intervalMs);
    this.#timer.unref();
  }

  /** Stops polling and gives back this process's leases (only those it still holds). */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running?.catch(() => undefined);
    const teams = [...this.#leased];
    this.#leased.clear();
    await Promise.all(
      teams.map((teamId) =>
        this.#store.release(`poll:${teamId}`, this.#replica).catch((error: unknown) => {
          // The lease lapses by itself; another replica only waits a little longer.
          this.#logger.warn({ err: error, teamId }, 'could not give back a polling lease');
        }),
      ),
    );
  }

  #passed(): void {
    if (!this.#storeAway) return;
    this.#storeAway = false;
    this.#logger.info('polling resumed: the store answers again');
  }

  #failed(error: unknown): void {
    if (!(error instanceof StoreUnavailableError)) {
      this.#logger.error({ err: error }, 'poll failed');
      return;
    }
    // An outage is expected now and then, and /readyz already reports it: say it once, not every pass.
    if (this.#storeAway) {
      this.#logger.debug({ err: error }, 'poll failed: the store is still unreachable');
      return;
    }
    this.#storeAway = true;
    this.#logger.warn({ err: error }, 'poll failed: the store is unreachable; polling resumes when it answers');
  }

  /** One pass over every team with live cards; a pass already running is joined, not repeated. */
  pollOnce(): Promise<PollReport> {
    this.#running ??= this.#pass().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  /** Shows the platform's latest state of one attack on its card (after a halt, a note…). */
  async show(card: CardRecord, attack: AttackState): Promise<CardRecord> {
    const { card: next, changed } = withState(card, attack);
    if (changed) await this.publish(next);
    return next;
  }

  /** Saves a card and queues its message update. */
  async publish(card: CardRecord): Promise<void> {
    const before = this.#onFinished && !isLive(card) ? await this.#cards.get(card.guid) : undefined;
    await this.#cards.save(card);
    // A halt or an ending goes out before cards that only moved on a stage.
    this.#messenger.update(card.channel, card.ts, attackCardMessage(card, { appUrl: this.#appUrl }), isLive(card) && !card.haltedBy.length ? 'routine' : 'urgent');
    if (before && isLive(before)) await this.#onFinished?.(card);
  }

  async #pass(): Promise<PollReport> {
    await this.#beforePass?.();
    const live = await this.#cards.liveByTeam();
    const report: PollReport = { teams: 0, cards: 0, updated: 0 };
    await Promise.all(
      [...live].map(async ([teamId, guids]) => {
        // A lease a little longer than the interval: the replica that polls a team keeps it.
        if (!(await this.#store.claim(`poll:${teamId}`, this.#intervalMs * 2, this.#replica))) return;
        this.#leased.add(teamId);
        try {
          const updated = await this.#pollTeam(teamId, guids);
          report.teams++;
          report.cards += guids.length;
          report.updated += updated;
        } catch (error) {
          this.#logger.warn({ err: error, teamId }, 'could not refresh the cards of a team');
        }
      }),
    );
    return report;
  }

  async #pollTeam(teamId: string, guids: string[]): Promise<number> {
    const cards = (await Promise.all(guids.map((guid) => this.#cards.get(guid)))).filter((c): c is CardRecord => c !== undefined && isLive(c));
    if (!cards.length) return 0;
    for await (const { person, api } of this.#readers(teamId, cards)) {
      try {
        return await this.#refreshCards(api, cards);
      } catch (error) {
        if (!(error instanceof UnauthorizedError)) throw error;
        // That person's session is dead: forget it, and let the next reader try.
        await this.#sessions.drop(person);
      }
    }
    this.#logger.warn({ teamId, cards: cards.length }, 'nobody logged in can read the team; its cards stay as they are');
    return 0;
  }

  async #refreshCards(api: ScopedPlatform, cards: CardRecord[]): Promise<number> {
    const active = new Map<string, AttackState>();
    if (cards.some((c) => c.kind === 'attack')) {
      for await (const attack of api.attacks.iterateActive({ pageSize: 1000 })) active.set(attack.guid, attack);
    }
    if (cards.some((c) => c.kind === 'kubernetes')) {
      for (const attack of await api.kubernetes.list()) active.set(attack.guid, attack);
    }
    let updated = 0;
    for (const card of cards) {
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
      if (withState(card, state).changed) {
        // Read the card again: a halt or a ticket may have marked it since this pass began.
        await this.publish(withState((await this.#cards.get(card.guid)) ?? card, state).card);
        updated++;
      }
    }
    return updated;
  }

  /**
   * The platform as each person who can read the team, in turn: the cards' starters first, then
   * (only if none of them can) anyone else logged in with that team, so cards keep moving after
   * their starter logs out.
   */
  async *#readers(teamId: string, cards: CardRecord[]): AsyncIterable<{ person: Person; api: ScopedPlatform }> {
    const seen = new Set<string>();
    const starters = cards.map((c) => c.startedBy);
    for (const people of [starters, () => this.#sessions.readersOf(teamId)] as const) {
      for (const person of typeof people === 'function' ? await people() : people) {
        const key = `${person.workspaceId}/${person.userId}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const login = await this.#sessions.get(person);
        if (login?.session.teams.some((t) => t.identifier === teamId)) yield { person, api: this.#platform.as({ header: login.session.header, teamId }) };
      }
    }
  }
}
