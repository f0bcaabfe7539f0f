import { randomUUID } from 'node:crypto';
import type { Logger } from '../logger.ts';
import type { Messenger } from '../slack/messenger.ts';
import type { KeyValueStore } from '../store/keyValue.ts';
import { gameDayCard, gameDayTimelineLine, type GameDayEvent, type GameDayRecord } from '../views/gameday.ts';

/** What is kept of a game day besides its events: the card and who runs it. */
type GameDayBase = Omit<GameDayRecord, 'attacks' | 'halts' | 'notes' | 'tickets'> & { id: string };

export interface GameDaysOptions {
  store: KeyValueStore;
  messenger: Messenger;
  logger: Logger;
  now: () => number;
}

/** An ended game day is kept this long, for its summary's File ticket button. */
const endedTtlMs = 30 * 24 * 3600_000;

/**
 * One game day per channel. Its events are kept one key each, so that replicas adding events at
 * the same moment never overwrite each other; the record is put together when it is read.
 */
export class GameDays {
  readonly #store: KeyValueStore;
  readonly #slack: Messenger;
  readonly #logger: Logger;
  readonly #now: () => number;

  constructor(options: GameDaysOptions) {
    this.#store = options.store;
    this.#slack = options.messenger;
    this.#logger = options.logger;
    this.#now = options.now;
  }

  /** The game day running in a channel. */
  async running(channel: string): Promise<(GameDayRecord & { id: string }) | undefined> {
    const base = await this.#store.get<GameDayBase>(`gameday:${channel}`);
    return base ? this.#assemble(base) : undefined;
  }

  /** A game day by its card, running or ended. */
  async byCard(channel: string, ts: string): Promise<(GameDayRecord & { id: string }) | undefined> {
    const running = await this.#store.get<GameDayBase>(`gameday:${channel}`);
    if (running?.ts === ts) return this.#assemble(running);
    const ended = await this.#store.get<GameDayBase>(`gameday-ended:${channel}:${ts}`);
    return ended ? this.#assemble(ended) : undefined;
  }

  /** Every running game day, for App Home. */
  async allRunning(): Promise<GameDayBase[]> {
    const found: GameDayBase[] = [];
    for await (const [, base] of this.#store.entries<GameDayBase>('gameday:')) found.push(base);
    return found;
  }

  /**
   * Starts one. `running` when one runs in the channel already, `starting` when another start
   * for the channel is under way at this very moment.
   */
  async start(channel: string, title: string, facilitator: string): Promise<{ outcome: 'started' | 'running' | 'starting'; record?: GameDayRecord & { id: string } }> {
    const current = await this.running(channel);
    if (current) return { outcome: 'running', record: current };
    const claim = `gameday-start:${channel}`;
    const holder = randomUUID();
    if (!(await this.#store.claim(claim, 60_000, holder))) return { outcome: 'starting' };
    try {
      const again = await this.running(channel);
      if (again) return { outcome: 'running', record: again };
      const base: GameDayBase = { id: randomUUID(), channel, ts: '', title, facilitator, startedAt: new Date(this.#now()).toISOString() };
      const posted = await this.#slack.post(channel, gameDayCard({ ...base, attacks: [], halts: [], notes: [], tickets: [] }));
      const saved = { ...base, channel: posted.channel, ts: posted.ts };
      await this.#store.set(`gameday:${channel}`, saved);
      return { outcome: 'started', record: { ...saved, attacks: [], halts: [], notes: [], tickets: [] } };
    } finally {
      await this.#store.release(claim, holder);
    }
  }

  /**
   * Adds an event to the channel's running game day, if any: kept for the summary, told in the
   * card's thread, counted on the card. Never fails the action that caused it.
   */
  async record(channel: string, event: GameDayEvent): Promise<void> {
    try {
      const base = await this.#store.get<GameDayBase>(`gameday:${channel}`);
      if (!base) return;
      await this.#store.set(`gameday-event:${base.id}:${new Date(this.#now()).toISOString()}:${randomUUID()}`, event, endedTtlMs);
      const record = await this.#assemble(base);
      await this.#slack.post(base.channel, { text: gameDayTimelineLine(event, record.attacks) }, { threadTs: base.ts });
      this.#slack.update(base.channel, base.ts, gameDayCard(record));
    } catch (error) {
      this.#logger.warn({ err: error, channel }, 'could not add to the game day');
    }
  }

  /** Ends the channel's game day: the card shows it ended; the record is kept for its summary. */
  async end(channel: string): Promise<(GameDayRecord & { id: string }) | undefined> {
    const base = await this.#store.get<GameDayBase>(`gameday:${channel}`);
    if (!base || !(await this.#store.claim(`gameday-end:${base.id}`, endedTtlMs))) return undefined;
    const ended = { ...base, endedAt: new Date(this.#now()).toISOString() };
    await this.#store.set(`gameday-ended:${channel}:${base.ts}`, ended, endedTtlMs);
    await this.#store.delete(`gameday:${channel}`);
    const record = await this.#assemble(ended);
    this.#slack.update(base.channel, base.ts, gameDayCard(record));
    return record;
  }

  async #assemble(base: GameDayBase): Promise<GameDayRecord & { id: string }> {
    const events: [string, GameDayEvent][] = [];
    for await (const entry of this.#store.entries<GameDayEvent>(`gameday-event:${base.id}:`)) events.push(entry);
    events.sort(([a], [b]) => a.localeCompare(b));
    const record: GameDayRecord & { id: string } = { ...base, attacks: [], halts: [], notes: [], tickets: [] };
    for (const [, event] of events) {
      if (event.kind === 'attack') record.attacks.push(event.attack);
      else if (event.kind === 'halt') record.halts.push(event.halt);
      else if (event.kind === 'note') record.notes.push(event.note);
      else record.tickets.push(event.ticket);
    }
    return record;
  }
}
