import type { CardRecord, CardStore } from '../attacks/cards.ts';
import { guardKey, guardName, type GuardStore } from '../guardrails/guards.ts';
import type { KeyValueStore } from '../store/keyValue.ts';
import { keys } from '../store/keys.ts';
import { cardOutcome, type GameDayEvent, type GameDayOutcomes, type GameDayRecord } from './gamedayRecord.ts';
import type { GameDayPlan, Plans, StepRef } from './plan.ts';

/** What is kept of a game day besides its events: the card and who runs it. */
export type GameDayBase = Omit<
  GameDayRecord,
  'attacks' | 'halts' | 'notes' | 'tickets' | 'refused' | 'guards' | 'trips' | 'plan'
> & {
  id: string;
};

/** A game day as it is read: its record and its id. */
export type GameDay = GameDayRecord & { id: string };

export const emptyEvents = () => ({ attacks: [], halts: [], notes: [], tickets: [], refused: [], trips: [] });

/** What a game day is read from. */
export interface GameDayParts {
  store: KeyValueStore;
  /** The attack cards, whose last state is each attack's outcome in the summary. */
  cards: Pick<CardStore, 'get' | 'getMany' | 'liveByTeam'>;
  /** The game days' guards and their last readings, which the card shows. */
  guards?: Pick<GuardStore, 'forGameDay' | 'reading' | 'addForAttack'> | undefined;
  /** Each game day's plan, or the one drafted in a channel before it starts. */
  plans: Plans;
}

/**
 * Whether an attack is one of a game day's: its card is in the game day's channel and it started
 * once the game day had. The game day's guards cover it until it ends. A rehearsal has none: an
 * attack started in its channel is real, and not part of it.
 */
export function startedUnder(
  day: { channel: string; startedAt: string; rehearsal?: true | undefined },
  card: CardRecord,
): boolean {
  return !day.rehearsal && card.channel === day.channel && Date.parse(day.startedAt) <= Date.parse(card.createdAt);
}

/**
 * Game days read back: one running per channel, the ended ones kept 30 days. Each event is kept
 * under a key of its own; the record is put together from them, the plan and the guards when it
 * is read.
 */
export class GameDayReads {
  protected readonly store: KeyValueStore;
  protected readonly cards: GameDayParts['cards'];
  protected readonly guards: GameDayParts['guards'];
  readonly plans: Plans;

  constructor(parts: GameDayParts) {
    this.store = parts.store;
    this.cards = parts.cards;
    this.guards = parts.guards;
    this.plans = parts.plans;
  }

  /** The game day running in a channel. */
  async running(channel: string): Promise<GameDay | undefined> {
    const base = await this.store.get<GameDayBase>(keys.gameDay.key(channel));
    return base ? this.assemble(base) : undefined;
  }

  /** The game day running in the channel, if any, as stored: its id and whether it is a rehearsal, unassembled. */
  runningBase(channel: string): Promise<GameDayBase | undefined> {
    return this.store.get<GameDayBase>(keys.gameDay.key(channel));
  }

  /** Whether the game day running in the channel, if any, is a rehearsal. */
  async rehearsing(channel: string): Promise<boolean> {
    return (await this.runningBase(channel))?.rehearsal === true;
  }

  /** A game day by its card, running or ended. */
  async byCard(channel: string, ts: string): Promise<GameDay | undefined> {
    const running = await this.store.get<GameDayBase>(keys.gameDay.key(channel));
    if (running?.ts === ts) return this.assemble(running);
    const ended = await this.store.get<GameDayBase>(keys.gameDayEnded.key(channel, ts));
    return ended ? this.assemble(ended) : undefined;
  }

  /**
   * An ended game day of the channel (kept 30 days): the one whose id starts with `id` (at least
   * 6 characters, and only one may match), or without an id the one that ended last.
   */
  async ended(channel: string, id?: string): Promise<{ record?: GameDay; ambiguous?: boolean }> {
    const wanted = id?.trim().toLowerCase();
    const found: GameDayBase[] = [];
    for await (const [, base] of this.store.entries<GameDayBase>(keys.gameDayEnded.ofChannel(channel))) {
      if (!base.endedAt) continue;
      if (wanted === undefined || (wanted.length >= 6 && base.id.toLowerCase().startsWith(wanted))) found.push(base);
    }
    if (wanted !== undefined && found.length > 1 && !found.some((base) => base.id.toLowerCase() === wanted))
      return { ambiguous: true };
    const exact = wanted === undefined ? undefined : found.find((base) => base.id.toLowerCase() === wanted);
    const chosen = exact ?? found.sort((a, b) => Date.parse(b.endedAt!) - Date.parse(a.endedAt!))[0];
    return chosen ? { record: await this.assemble(chosen) } : {};
  }

  /** Every running game day, for App Home. */
  async allRunning(): Promise<GameDayBase[]> {
    const found: GameDayBase[] = [];
    for await (const [, base] of this.store.entries<GameDayBase>(keys.gameDay.prefix)) found.push(base);
    return found;
  }

  /** The game day a step belongs to, running or ended. */
  protected async recordOf(ref: StepRef): Promise<GameDay | undefined> {
    const running = await this.running(ref.channel);
    if (running?.id === ref.gameDayId) return running;
    for await (const [, base] of this.store.entries<GameDayBase>(keys.gameDayEnded.ofChannel(ref.channel)))
      if (base.id === ref.gameDayId) return this.assemble(base);
    return undefined;
  }

  async outcomes(record: GameDayRecord): Promise<GameDayOutcomes> {
    const outcomes: GameDayOutcomes = {};
    for (const attack of record.attacks) outcomes[attack.guid] = cardOutcome(await this.cards.get(attack.guid));
    return outcomes;
  }

  protected async assemble(base: GameDayBase): Promise<GameDay> {
    const events: [string, GameDayEvent][] = [];
    for await (const entry of this.store.entries<GameDayEvent>(keys.gameDayEvent.ofGameDay(base.id)))
      events.push(entry);
    events.sort(([a], [b]) => a.localeCompare(b));
    const record: GameDayRecord & {
      id: string;
      refused: NonNullable<GameDayRecord['refused']>;
      trips: NonNullable<GameDayRecord['trips']>;
    } = { ...base, ...emptyEvents() };
    for (const [, event] of events) {
      if (event.kind === 'attack') record.attacks.push(event.attack);
      else if (event.kind === 'halt') record.halts.push(event.halt);
      else if (event.kind === 'note') record.notes.push(event.note);
      else if (event.kind === 'refused') record.refused.push(event.refused);
      else if (event.kind === 'guard') record.trips.push(event.trip);
      else if (event.kind === 'ticket') record.tickets.push(event.ticket);
    }
    const plan = shownPlan(await this.plans.get({ gameDayId: base.id }));
    if (plan) record.plan = plan;
    const guards = (await this.guards?.forGameDay(base.id)) ?? [];
    if (guards.length) {
      record.guards = await Promise.all(
        guards.map(async ({ spec }) => {
          const reading = await this.guards!.reading(spec);
          return {
            key: guardKey(spec),
            name: guardName(spec, reading),
            state: reading?.state,
            health: reading?.health,
          };
        }),
      );
    }
    return record;
  }
}

/** The plan as a record shows it: none when nothing was ever planned. */
export function shownPlan(plan: GameDayPlan): GameDayPlan | undefined {
  return plan.steps.length || plan.auto || plan.paused ? plan : undefined;
}
