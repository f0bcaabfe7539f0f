import type { KeyValueStore } from '../store/keyValue.ts';
import type { Person } from '../store/sessions.ts';
import { isLive, isOlder } from './lifecycle.ts';
import { keys } from '../store/keys.ts';
import type { HaltProgress } from './haltChecks.ts';
import type { Breathe } from '../jobs/scheduler.ts';

/** An attack card posted in a channel, and what it last showed. */
/** A message in a channel, by its timestamp. */
export interface MessageRef {
  channel: string;
  ts: string;
}

export interface CardRecord {
  guid: string;
  kind: 'attack' | 'kubernetes';
  teamId: string;
  teamName: string;
  channel: string;
  ts: string;
  type: string;
  args: string[];
  targetWords: string;
  startedBy: Person & { userName: string };
  startedByPlatform: string | undefined;
  stage: string;
  lifecycle: string;
  totalClients: number | undefined;
  createdAt: string;
  startTime: string | undefined;
  endTime: string | undefined;
  lengthSeconds: number | undefined;
  annotations: Record<string, string>;
  /** Slack users who asked for a halt, first one first. */
  haltedBy: { userId: string; at: string }[];
  ticketCount?: number;
  /** The guards that cover the attack, with what each last read; `firedAt` once one halted it. */
  guards?: CardGuard[];
  /** The second person who approved the start, when a rule asked for one. */
  approvedBy?: { userId: string; userName: string } | undefined;
  /**
   * Set when a watched channel posted the card for an attack started outside Slack: where it came
   * from (the platform's `create_source`, `create_user`). `startedBy` is then the watch's reader.
   */
  origin?: { source: string | undefined; user: string | undefined } | undefined;
  /** The same card in other watched channels, updated with it. */
  mirrors?: { channel: string; ts: string }[] | undefined;
  /** How many targets the last halt has stopped, from the attack's executions. */
  haltCheck?: HaltProgress | undefined;
  /** Set when it was halted because nobody answered its presence check: who was asked. */
  unwatched?: { askedOf: string; at: string } | undefined;
}

/** A guard as its card shows it. */
export interface CardGuard {
  key: string;
  name: string;
  state?: string | undefined;
  health?: 'healthy' | 'unhealthy' | 'unknown' | undefined;
  firedAt?: string | undefined;
}

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

  /** Saves a card just posted, and remembers which message it is. */
  async savePosted(card: CardRecord): Promise<void> {
    await this.#store.set(keys.cardMessage.key(card.channel, card.ts), card.guid, keys.cardMessage.ttlMs);
    await this.save(card);
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
    const before = await this.get(card.guid);
    const others = before
      ? cardMessages(before).filter((m) => m.ts && !(m.channel === card.channel && m.ts === card.ts))
      : [];
    const saved = others.length ? { ...card, mirrors: [...(card.mirrors ?? []), ...others] } : card;
    await this.savePosted(saved);
    return saved;
  }

  /** Remembers a copy of the card posted in another (watched) channel, so it is updated with the card. */
  async addMirror(guid: string, message: { channel: string; ts: string }): Promise<CardRecord | undefined> {
    const card = await this.get(guid);
    if (!card) return undefined;
    await this.#store.set(keys.cardMessage.key(message.channel, message.ts), guid, keys.cardMessage.ttlMs);
    const next = { ...card, mirrors: [...(card.mirrors ?? []).filter((m) => m.channel !== message.channel), message] };
    await this.save(next);
    return next;
  }

  async save(card: CardRecord): Promise<void> {
    await this.#store.set(keys.card.key(card.guid), card, keys.card.ttlMs);
    if (isLive(card)) {
      const { guid, teamId, kind, startedBy, origin, stage, lifecycle, startTime, endTime, totalClients, annotations } =
        card;
      const shown: LiveCard = {
        guid,
        teamId,
        kind,
        startedBy,
        origin,
        stage,
        lifecycle,
        startTime,
        endTime,
        totalClients,
        annotations,
      };
      await this.#store.set(
        keys.live.key(teamId, guid),
        { guid, teamId, card: shown } satisfies LiveEntry,
        keys.live.ttlMs,
      );
    } else await this.#store.delete(keys.live.key(card.teamId, card.guid));
  }

  /** Live cards grouped by team. */
  async liveByTeam(breathe?: Breathe): Promise<Map<string, string[]>> {
    const teams = new Map<string, string[]>();
    let read = 0;
    for await (const [, entry] of this.#store.entries<LiveEntry>(keys.live.prefix)) {
      if (++read % 500 === 0) await breathe?.();
      const guids = teams.get(entry.teamId) ?? [];
      guids.push(entry.guid);
      teams.set(entry.teamId, guids);
    }
    return teams;
  }

  /**
   * Live cards grouped by team, as far as the jobs that walk them all need them: from their live
   * marks alone, so a poll pass reads no card the platform did not change. A mark saved without the card's state (by
   * an older version) costs a read of the card.
   */
  async liveCardsByTeam(breathe?: Breathe): Promise<Map<string, LiveCard[]>> {
    const teams = new Map<string, LiveCard[]>();
    const add = (card: LiveCard) => {
      const team = teams.get(card.teamId);
      if (team) team.push(card);
      else teams.set(card.teamId, [card]);
    };
    const bare: string[] = [];
    let read = 0;
    for await (const [, entry] of this.#store.entries<LiveEntry>(keys.live.prefix)) {
      // A job's breathe every 500: a page of SQLite's, read without I/O.
      if (++read % 500 === 0) await breathe?.();
      if (entry.card) add(entry.card);
      else bare.push(entry.guid);
    }
    for (const card of await this.getMany(bare, breathe)) if (card && isLive(card)) add(card);
    return teams;
  }
}

/**
 * What the jobs that walk every live card need of it: the poller, to tell whether the platform's
 * latest state changes it; the session warnings, who started it.
 */
export type LiveCard = Pick<
  CardRecord,
  | 'origin'
  | 'guid'
  | 'teamId'
  | 'kind'
  | 'startedBy'
  | 'stage'
  | 'lifecycle'
  | 'startTime'
  | 'endTime'
  | 'totalClients'
  | 'annotations'
>;

/** A live mark: the card's state as last saved rides along (absent in marks saved by older versions). */
interface LiveEntry {
  guid: string;
  teamId: string;
  card?: LiveCard;
}

/** Every message that shows the card: where it was posted, then its copies in watched channels. */
export function cardMessages(card: Pick<CardRecord, 'channel' | 'ts' | 'mirrors'>): { channel: string; ts: string }[] {
  return [{ channel: card.channel, ts: card.ts }, ...(card.mirrors ?? [])];
}

/** Whether the card already shows in this channel. */
export function shownIn(card: Pick<CardRecord, 'channel' | 'ts' | 'mirrors'>, channel: string): boolean {
  return cardMessages(card).some((m) => m.channel === channel);
}

/** The platform's view of an attack, whichever kind it is, as far as a card shows it. */
export interface AttackState {
  stage?: string | undefined;
  stage_lifecycle?: string | undefined;
  start_time?: string | undefined;
  end_time?: string | undefined;
  total_clients?: number | undefined;
  annotations?: Record<string, string> | undefined;
}

/**
 * The card, but with the stored card's state where that is further on in the attack's life: a
 * card read before the attack's end was saved (then held up by a Slack call) never brings it back.
 */
export function notBehind(card: CardRecord, stored: CardRecord | undefined): CardRecord {
  if (!stored || !isOlder(card, stored)) return card;
  const { stage, lifecycle, startTime, endTime, totalClients } = stored;
  return { ...card, stage, lifecycle, startTime, endTime, totalClients };
}

/** The card with the platform's latest state, and whether anything a person sees changed. */
export function withState<C extends Omit<LiveCard, 'guid' | 'teamId' | 'kind' | 'startedBy'>>(
  card: C,
  attack: AttackState,
): { card: C; changed: boolean } {
  if (isOlder(attack, card)) return { card, changed: false };
  const next: C = {
    ...card,
    stage: attack.stage ?? card.stage,
    lifecycle: attack.stage_lifecycle ?? (attack.end_time ? 'Complete' : card.lifecycle),
    startTime: attack.start_time ?? card.startTime,
    endTime: attack.end_time ?? card.endTime,
    totalClients: attack.total_clients ?? card.totalClients,
    annotations: attack.annotations && Object.keys(attack.annotations).length ? attack.annotations : card.annotations,
  };
  // Field by field: the poller asks this of every live card at every pass.
  const changed =
    next.stage !== card.stage ||
    next.lifecycle !== card.lifecycle ||
    next.startTime !== card.startTime ||
    next.endTime !== card.endTime ||
    next.totalClients !== card.totalClients ||
    (next.annotations !== card.annotations && JSON.stringify(next.annotations) !== JSON.stringify(card.annotations));
  return { card: next, changed };
}
