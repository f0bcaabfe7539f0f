import type { CardRecord } from '../attacks/cards.ts';
import type { HaltProgress } from '../attacks/haltChecks.ts';
import type { GameDayPlan, HypothesisAnswer, StepRef } from './plan.ts';

export interface GameDayAttack {
  guid: string;
  type: string;
  args: string[];
  targetWords: string;
  /** Slack user id. */
  startedBy: string;
  teamId: string;
  teamName: string;
  /** The plan step it runs, when a step started it. */
  step?: StepRef | undefined;
}

export interface GameDayHalt {
  /** The attack halted; absent for a mass halt. */
  guid?: string | undefined;
  /** Slack user id. */
  by: string;
  at: string;
  scope: 'attack' | 'all' | 'everything';
}

export interface GameDayNote {
  guid: string;
  by: string;
  text: string;
  at: string;
}

export interface GameDayTicket {
  /** The attack it is about; absent for a ticket about the whole game day. */
  guid?: string | undefined;
  key: string;
  url?: string | undefined;
  by: string;
  at: string;
}

/** An attack someone tried to start during the game day that the platform did not take. */
export interface GameDayRefusal {
  type: string;
  args: string[];
  targetWords: string;
  /** Slack user id. */
  startedBy: string;
  teamName: string;
  /** Why, as a clause: "the platform role lacks the `EXPERIMENTS_RUN` privilege on team *Platform*". */
  reason: string;
  /** The platform did not confirm in time: the attack may be running after all. */
  unconfirmed?: boolean | undefined;
  at: string;
}

/** A guard of the game day as its card shows it: its last reading, if it was read. */
export interface GameDayGuard {
  key: string;
  name: string;
  state?: string | undefined;
  health?: 'healthy' | 'unhealthy' | 'unknown' | undefined;
}

/** An attack a guard trip was about. */
export interface GameDayTripAttack {
  guid: string;
  type: string;
}

/** A guard that fired while the game day ran, and what became of the attacks it covered. */
export interface GameDayGuardTrip {
  key: string;
  /** The guard in words, as `guardName` gives it. */
  guard: string;
  /** Its state when it fired, in the product's words (`Alert`, `firing`). */
  state: string;
  at: string;
  /** Slack user id of the guard's owner, whose session halts. */
  owner: string;
  halted: GameDayTripAttack[];
  /** Attacks the owner's session could not halt: people were asked to. */
  notHalted: GameDayTripAttack[];
}

/** A game day in a channel: its card, and what happened while it ran. Times are ISO 8601. */
export interface GameDayRecord {
  /** Its id (the report and the card's metadata name it); absent only in records built by hand. */
  id?: string | undefined;
  channel: string;
  /** The ts of the game-day card, whose thread holds the timeline. */
  ts: string;
  title: string;
  /** Slack user id. */
  facilitator: string;
  /** The team the facilitator started it in (their selected team); absent in game days kept before it was. */
  teamId?: string | undefined;
  teamName?: string | undefined;
  startedAt: string;
  endedAt?: string | undefined;
  /**
   * A rehearsal (`gameday start --rehearsal`): its steps are checked at zero and never created.
   * Set when it starts and never changed, so a rehearsal never becomes a real game day.
   */
  rehearsal?: true | undefined;
  attacks: GameDayAttack[];
  halts: GameDayHalt[];
  notes: GameDayNote[];
  tickets: GameDayTicket[];
  /** Starts the platform refused (or did not confirm); absent in game days kept before they were recorded. */
  refused?: GameDayRefusal[] | undefined;
  /** Its guards with their last readings; absent when it has none. */
  guards?: GameDayGuard[] | undefined;
  /** Every time one of the guards fired; absent in game days kept before trips were recorded. */
  trips?: GameDayGuardTrip[] | undefined;
  /** The ts of the summary message, once posted, so it can show outcomes learnt later. */
  summaryTs?: string | undefined;
  /** Its plan, when it has steps. */
  plan?: GameDayPlan | undefined;
  /** The teams the channel watched when the game day ended: their attacks belong in its report, whenever it is made. */
  watchedTeams?: string[] | undefined;
}

/** The game day a button belongs to: its channel and the ts of its card. */
export interface GameDayRef {
  channel: string;
  ts: string;
}

export function gameDayRefValue(ref: GameDayRef): string {
  return JSON.stringify({ c: ref.channel, s: ref.ts });
}

const channelIdPattern = /^[CGD][A-Z0-9]{1,30}$/;
const messageTsPattern = /^\d{1,12}\.\d{1,9}$/;

/** The game day a button value names, or undefined unless it holds a channel id and a message ts. */
export function parseGameDayRef(value: string | undefined): GameDayRef | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value ?? '');
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { c, s } = parsed as { c?: unknown; s?: unknown };
  return typeof c === 'string' && channelIdPattern.test(c) && typeof s === 'string' && messageTsPattern.test(s)
    ? { channel: c, ts: s }
    : undefined;
}

/** Something that happened during a game day, kept in its record and told in its timeline. */
export type GameDayEvent =
  | { kind: 'attack'; attack: GameDayAttack }
  | { kind: 'halt'; halt: GameDayHalt }
  | { kind: 'note'; note: GameDayNote }
  | { kind: 'ticket'; ticket: GameDayTicket }
  | { kind: 'refused'; refused: GameDayRefusal }
  | { kind: 'guard'; trip: GameDayGuardTrip }
  | { kind: 'step'; step: GameDayStepEvent };

/** Something that happened to the plan or one of its steps, for the timeline. */
export interface GameDayStepEvent {
  what:
    | 'added'
    | 'counting down'
    | 'delayed'
    | 'vetoed'
    | 'skipped'
    | 'not started'
    | 'awaiting approval'
    | 'answered'
    | 'cancelled'
    | 'automatic on'
    | 'automatic off'
    | 'paused';
  /** The step, for all but the automatic mode's own events. */
  stepId?: string | undefined;
  /** Its position when it happened, from 1. */
  position?: number | undefined;
  /** What it runs, in a few words: the saved attack's name or the attack's type. */
  title?: string | undefined;
  hypothesis?: string | undefined;
  /** Slack user id of who did it. */
  by?: string | undefined;
  /** Why: a veto's reason, a refused start's, a pause's. */
  reason?: string | undefined;
  answer?: HypothesisAnswer | undefined;
  observation?: string | undefined;
  startsAt?: string | undefined;
  at: string;
}

export type GameDayOutcomes = Record<
  string,
  {
    stage: string;
    lifecycle: string;
    haltedBy: string[] /** Its last halt's receipt. */;
    halt?: HaltProgress | undefined;
  }
>;

/**
 * How many halts a game day saw: each of its people's (a mass halt once) and each attack one of
 * its guards halted. The card, the status, the summary and the report all count this way.
 */
export function haltCount(record: Pick<GameDayRecord, 'halts' | 'trips'>): number {
  return record.halts.length + (record.trips ?? []).reduce((sum, trip) => sum + trip.halted.length, 0);
}

/** How an attack of a game day ended, as its card last showed it. */
export function cardOutcome(card: CardRecord | undefined): GameDayOutcomes[string] {
  return {
    stage: card?.stage ?? 'Unknown',
    lifecycle: card?.lifecycle ?? '',
    haltedBy: card?.haltedBy.map((h) => h.userId) ?? [],
    ...(card?.haltCheck ? { halt: card.haltCheck } : {}),
  };
}

/** Everyone a game day's ticket names, by Slack user id: the people to look up before writing it. */
export function gameDayPeople(record: GameDayRecord, outcomes: GameDayOutcomes): Set<string> {
  return new Set([
    record.facilitator,
    ...record.attacks.map((a) => a.startedBy),
    ...Object.values(outcomes).flatMap((outcome) => outcome.haltedBy),
    ...record.notes.map((n) => n.by),
    ...(record.plan?.steps ?? []).flatMap((step) =>
      [step.answer?.by, step.vetoed?.by, step.skipped?.by].filter((by): by is string => Boolean(by)),
    ),
  ]);
}
