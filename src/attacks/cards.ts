import type { KeyValueStore } from '../store/keyValue.ts';
import { isLive, type CardRecord, type MessageRef } from './lifecycle.ts';
import { keys } from '../store/keys.ts';
import type { Breathe } from '../jobs/scheduler.ts';

export type { AttackState, CardGuard, CardRecord, HaltWarning, MessageRef } from './lifecycle.ts';

/**
 * Cards by attack guid, plus the set of live ones (one key each, so replicas never overwrite
 * each other's list) that the poller walks after a restart.
 */
export class CardStore {
  readonly #store: KeyValueStore;

  constructor(store: KeyValueStore) {
    this.#store = store;
  }

  get(guid: string): Promise<CardRecord | undefined> {
    return this.#store.get<CardRecord>(keys.card.key(guid));
  }

  /**
   * Cards by guid, in the same order, read side by side a few hundred at a time: a pass over
   * thousands costs a few store round trips, not one per card. A job's `breathe` is awaited between
   * batches: on SQLite a read needs no I/O, and thousands of them would hold the event loop.
   */
  async getMany(guids: readonly string[], breathe?: Breathe): Promise<(CardRecord | undefined)[]> {
    const found: (CardRecord | undefined)[] = [];
    for (let start = 0; start < guids.length; start += 500) {
      if (start) await breathe?.();
      found.push(...(await Promise.all(guids.slice(start, start + 500).map((guid) => this.get(guid)))));
    }
    return found;
  }

  /** Cards whose attack id begins with `prefix`, as typed: a short id. */
  async withIdPrefix(prefix: string): Promise<CardRecord[]> {
    const found: CardRecord[] = [];
    for await (const [, card] of this.#store.entries<CardRecord>(keys.card.key(prefix))) found.push(card);
    return found;
  }

  /** The card posted as this message, for the message shortcut. */
  async byMessage(channel: string, ts: string): Promise<CardRecord | undefined> {
    const guid = await this.#store.get<string>(keys.cardMessage.key(channel, ts));
    return guid ? this.get(guid) : undefined;
  }

  /**
   * Saves a card a watch just posted, and remembers which message it is. A card already there (a
   * start's, or another watch's) is never overwritten: the message becomes a copy of it. Gives
   * back the card as saved, and whether the message became a copy.
   */
  async savePosted(card: CardRecord): Promise<{ card: CardRecord; copy: boolean }> {
    await this.#remember(card.guid, card);
    let copy = false;
    const saved = await this.#change(card.guid, (before) => {
      copy = before !== undefined;
      return before ? withCopy(before, card) : card;
    });
    return { card: saved!, copy };
  }

  /**
   * Marks a start from Slack under way in a team, from before its create until its card is
   * saved: meanwhile a watch of the team posts no card of its own for an attack it has no card
   * of (it may be this one), and waits for its next pass. `startId` names the start, so whoever
   * finishes it (its own process, or a restarted one) can unmark it with endStart.
   */
  async beginStart(teamId: string, startId: string): Promise<void> {
    await this.#store.set(keys.cardStarting.key(teamId, startId), true, keys.cardStarting.ttlMs);
  }

  async endStart(teamId: string, startId: string): Promise<void> {
    await this.#store.delete(keys.cardStarting.key(teamId, startId));
  }

  /** Whether a start from Slack is under way in the team (see beginStart). */
  async startsUnderway(teamId: string): Promise<boolean> {
    for await (const _ of this.#store.entries(keys.cardStarting.ofTeam(teamId))) return true;
    return false;
  }

  /**
   * Saves the card a start from Slack just posted. A card a watch posted for the attack first
   * stays a copy of it, updated with it, rather than being lost.
   */
  async saveStarted(card: CardRecord): Promise<CardRecord> {
    await this.#remember(card.guid, card);
    const saved = await this.#change(card.guid, (before) => {
      const others = before ? cardMessages(before).filter((m) => m.ts && !sameMessage(m, card)) : [];
      return others.length ? { ...card, mirrors: [...(card.mirrors ?? []), ...others] } : card;
    });
    return saved!;
  }

  /** Remembers a copy of the card posted in another (watched) channel, so it is updated with the card. */
  async addMirror(guid: string, message: MessageRef): Promise<CardRecord | undefined> {
    await this.#remember(guid, message);
    return (await this.update(guid, (card) => withCopy(card, message)))?.card;
  }

  /**
   * Changes a card in one atomic step, the only way its state changes: `change` gets the card as
   * stored and gives back the new one, or undefined to leave it. A writer passes its change, never
   * a card it read earlier, so no writer saves over what another wrote meanwhile (`change` may run
   * again on what another left: it only computes). Gives back the card before and after, or
   * undefined when there is none.
   */
  async update(guid: string, change: (card: CardRecord) => CardRecord | undefined): Promise<CardChange | undefined> {
    let before: CardRecord | undefined;
    let changed = false;
    const card = await this.#change(guid, (current) => {
      before = current;
      const next = current && change(current);
      changed = next !== undefined;
      return next;
    });
    return before && card ? { before, card, changed, ended: changed && isLive(before) && !isLive(card) } : undefined;
  }

  /** The one write of a card: the card and its live mark (gone once it has finished), in one step. */
  #change(guid: string, change: (card: CardRecord | undefined) => CardRecord | undefined) {
    return this.#store.update<CardRecord>(keys.card.key(guid), (current) => {
      const card = change(current);
      return card && { value: card, ttlMs: keys.card.ttlMs, beside: [liveMark(card)] };
    });
  }

  /** Which card a message shows, for the message shortcut and for redrawing it. */
  #remember(guid: string, { channel, ts }: MessageRef): Promise<void> {
    return this.#store.set(keys.cardMessage.key(channel, ts), guid, keys.cardMessage.ttlMs);
  }

  /** The guids of the live cards, grouped by team. */
  async liveByTeam(breathe?: Breathe): Promise<Map<string, string[]>> {
    const teams = new Map<string, string[]>();
    for await (const entry of this.#liveMarks(breathe)) grouped(teams, entry.teamId, entry.guid);
    return teams;
  }

  /**
   * Live cards grouped by team, as far as the jobs that walk them all need them: from their live
   * marks alone, so a poll pass reads no card the platform did not change. A mark saved without
   * the card's state (by an older version) costs a read of the card.
   */
  async liveCardsByTeam(breathe?: Breathe): Promise<Map<string, LiveCard[]>> {
    const teams = new Map<string, LiveCard[]>();
    const bare: string[] = [];
    for await (const entry of this.#liveMarks(breathe)) {
      if (entry.card) grouped(teams, entry.card.teamId, entry.card);
      else bare.push(entry.guid);
    }
    for (const card of await this.getMany(bare, breathe)) if (card && isLive(card)) grouped(teams, card.teamId, card);
    return teams;
  }

  /** Every live mark, with a job's breathe every 500: a page of SQLite's, read without I/O. */
  async *#liveMarks(breathe?: Breathe): AsyncIterable<LiveEntry> {
    let read = 0;
    for await (const [, entry] of this.#store.entries<LiveEntry>(keys.live.prefix)) {
      if (++read % 500 === 0) await breathe?.();
      yield entry;
    }
  }
}

/** Adds `item` to its group under `key`. */
function grouped<T>(groups: Map<string, T[]>, key: string, item: T): void {
  const group = groups.get(key);
  if (group) group.push(item);
  else groups.set(key, [item]);
}

/** The fields of a card its live mark carries. */
const liveFields = [
  'origin',
  'guid',
  'teamId',
  'kind',
  'startedBy',
  'stage',
  'lifecycle',
  'startTime',
  'endTime',
  'totalClients',
  'annotations',
] as const satisfies readonly (keyof CardRecord)[];

/**
 * What the jobs that walk every live card need of it: the poller, to tell whether the platform's
 * latest state changes it; the session warnings, who started it.
 */
export type LiveCard = Pick<CardRecord, (typeof liveFields)[number]>;

/** A live mark: the card's state as last saved rides along (absent in marks saved by older versions). */
interface LiveEntry {
  guid: string;
  teamId: string;
  card?: LiveCard;
}

/** The live mark of a card, as its one write keeps it: its state while it runs, deleted once it has finished. */
function liveMark(card: CardRecord): { key: string; value: LiveEntry | undefined; ttlMs: number } {
  const { guid, teamId } = card;
  const shown = Object.fromEntries(liveFields.map((field) => [field, card[field]])) as LiveCard;
  return {
    key: keys.live.key(teamId, guid),
    value: isLive(card) ? { guid, teamId, card: shown } : undefined,
    ttlMs: keys.live.ttlMs,
  };
}

/** A card's change: as it was, as it is, whether the change wrote anything, and whether that ended its attack. */
export interface CardChange {
  before: CardRecord;
  card: CardRecord;
  changed: boolean;
  ended: boolean;
}

const sameMessage = (a: MessageRef, b: MessageRef) => a.channel === b.channel && a.ts === b.ts;

/** The card, also shown as `message` (its copy in that channel replaced). */
function withCopy(card: CardRecord, message: MessageRef): CardRecord {
  if (sameMessage(card, message)) return card;
  return { ...card, mirrors: [...(card.mirrors ?? []).filter((m) => m.channel !== message.channel), message] };
}

/** Every message that shows the card: where it was posted, then its copies in watched channels. */
export function cardMessages(card: Pick<CardRecord, 'channel' | 'ts' | 'mirrors'>): { channel: string; ts: string }[] {
  return [{ channel: card.channel, ts: card.ts }, ...(card.mirrors ?? [])];
}

/** Whether the card already shows in this channel. */
export function shownIn(card: Pick<CardRecord, 'channel' | 'ts' | 'mirrors'>, channel: string): boolean {
  return cardMessages(card).some((m) => m.channel === channel);
}
