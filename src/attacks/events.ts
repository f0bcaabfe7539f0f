import type { ApprovalRule } from '../guardrails/approvalRequests.ts';
import type { Person } from '../store/sessions.ts';
import type { AttackRequest } from './request.ts';
import type { AttackState, CardRecord, CardStore, HaltWarning, MessageRef } from './cards.ts';
import { toState } from './lifecycle.ts';
import type { HaltProgress } from './haltChecks.ts';
import type { StepRef } from '../gamedays/plan.ts';
import type { GameDayStepEvent } from '../gamedays/gamedayRecord.ts';
import type { TargetSet } from './blastRadius.ts';

/** Who did something: a Slack person (a guard or a freeze acts with its owner's session). */
export type Who = Person & { userName: string };

/**
 * What set a halt going: a person (a click, a command, Halt all), a guard that fired, a freeze, or
 * a presence check nobody answered.
 */
export type HaltCause = 'person' | 'guard' | 'freeze' | 'presence';

/** An attack a guard fired over, as the game day and the people asked to halt it see it. */
export type TripAttack = Pick<CardRecord, 'guid' | 'kind' | 'type' | 'teamId' | 'teamName' | 'channel' | 'createdAt'>;

/**
 * What happened to an attack, said once by the code that did it. What it changes (the card, the
 * game day's timeline, the steps waiting on it) is the recorder's business (recorder.ts), where it
 * shows the projection's.
 */
export type AttackEvent =
  /** Created on the platform; `card` is the card to post in `channel` (the recorder words its target). */
  | {
      kind: 'started';
      card: Omit<CardRecord, 'targetWords'>;
      by: Who;
      platformUser: string | undefined;
      request: AttackRequest;
      /** The game-day plan step it runs. */
      step?: StepRef | undefined;
      /** The clients its target matched when the start checked it. */
      targets?: TargetSet | undefined;
    }
  /** A start the platform refused, or did not confirm. */
  | {
      kind: 'refused';
      channel: string;
      by: Who;
      request: AttackRequest;
      teamName: string;
      /** What the platform answered, or that it did not. */
      error: unknown;
    }
  /**
   * A halt the platform answered: it stopped the attack (`halted`), the attack had already ended
   * (`ended`), or another halt was already stopping it (`halting`). `scope` is `attack` for one
   * attack, else the mass halt it was part of.
   */
  | {
      kind: 'halted';
      guid: string;
      attackKind: 'attack' | 'kubernetes';
      teamId: string | undefined;
      result: 'halted' | 'ended' | 'halting' | 'unconfirmed';
      state: AttackState | undefined;
      by: Who;
      platformUser: string | undefined;
      cause: HaltCause;
      reason: string | undefined;
      scope: 'attack' | 'all' | 'everything';
      /** The guard that fired, for a guard's halt. */
      guard?: { key: string; name: string; state: string; at: string } | undefined;
    }
  /**
   * What the executions of a halted attack showed: `verified` once every target has stopped,
   * `stuck` the first time a target still runs `HALT_SLO_SECONDS` after the halt, else `progress`; or
   * `unreadable` (no progress), as late, when no stored session could read them.
   */
  | {
      kind: 'halt checked';
      guid: string;
      attackKind: 'attack' | 'kubernetes';
      teamId: string | undefined;
      /** Who halted it. */
      by: Who;
      cause: HaltCause;
      progress: HaltProgress | undefined;
      news: 'verified' | 'stuck' | 'progress' | 'unreadable';
    }
  /** A mass halt (Halt all, Halt everything) a person confirmed, with the attacks it stopped. */
  | {
      kind: 'mass halted';
      scope: 'all' | 'everything';
      by: Who;
      platformUser: string | undefined;
      cause: HaltCause;
      /** Where it was clicked: a game day there records it. */
      channel: string | undefined;
      halted: string[];
    }
  /**
   * A card changed (saved already, through CardStore.update): the platform's state of its attack
   * moved on, or it has something new to show (guard readings, a copy in a watched channel); or
   * it is only to be drawn again.
   */
  | { kind: 'changed'; card: CardRecord }
  /** The change just saved on the card ended its attack: it shows how, and what waited for the end follows. */
  | { kind: 'ended'; card: CardRecord }
  | {
      kind: 'note';
      guid: string;
      teamId: string;
      by: Who;
      platformUser: string | undefined;
      text: string;
      /** The attack as the note left it on the platform. */
      state: AttackState;
    }
  | {
      kind: 'ticket';
      by: Who;
      platformUser: string | undefined;
      teamId: string;
      ticket: { key: string; url?: string | undefined };
      /** The attack it is about, or else the game day's id. */
      attack: string | undefined;
      gameDay: string | undefined;
      /** The attack whose card it was filed from: the card counts it and its thread says so. */
      card: string | undefined;
      /** The channel of the game day it belongs to, if any. */
      gameDayChannel: string | undefined;
    }
  /** A guard turned unhealthy: what it halted, and what no owner's session could (people are asked to). */
  | {
      kind: 'guard fired';
      guard: { key: string; name: string; state: string; at: string; owner: Who };
      halted: TripAttack[];
      notHalted: TripAttack[];
      /** Channels whose running game day has the guard: a first trip there is recorded even when nothing ran. */
      gameDays: string[];
      /** Whether it was already unhealthy at the last reading. */
      already: boolean;
    }
  /** A person froze attacks in a team, or everywhere (what it halted is recorded halt by halt). */
  | {
      kind: 'frozen';
      by: Who;
      platformUser: string | undefined;
      scope: 'team' | 'all';
      teamId: string | undefined;
      reason: string;
    }
  /** A freeze's sweep halted attacks that started in a frozen team since; `channel` is where it was declared. */
  | {
      kind: 'freeze swept';
      channel: string | undefined;
      teamName: string;
      halted: { guid: string; kind: 'attack' | 'kubernetes'; type: string | undefined }[];
    }
  /** Something happened to a game day's plan or one of its steps (a countdown, a veto, an answer). */
  | { kind: 'plan step'; channel: string; step: GameDayStepEvent }
  /** A second person's answer to a start that needed one, or the request itself. */
  | {
      kind: 'approval';
      decision: 'requested' | 'approved' | 'rejected';
      by: Who;
      platformUser?: string | undefined;
      teamId: string;
      requestedBy?: string | undefined;
      attack?: string | undefined;
      /** The rule that asked for a second person, for a request. */
      rule?: ApprovalRule | undefined;
      details?: Record<string, unknown> | undefined;
    };

/** An attack's card as recording an event left it, handed to the projection. */
export interface Recorded {
  /** As saved by the event's change, or as read when it changed nothing; none when the attack has no card. */
  card: CardRecord | undefined;
  /** As it was just before the event's change (the card itself when nothing changed). */
  before: CardRecord | undefined;
  /** Whether the event changed the card, so that every message showing it is redrawn. */
  changed: boolean;
}

/**
 * Where attacks show (src/slack implements it with the views' words). It is handed each event
 * once its changes are saved, with the card as saved, and changes nothing itself; it also words
 * what the card, the timeline and the audit keep.
 */
export interface AttackProjection {
  /** An attack's target in words, kept on its card. */
  targetWords(target: AttackRequest['target'], teamName: string): string;
  /** A refused start's reason in brief, for the game day's timeline; `unconfirmed` when the platform never answered. */
  refusal(error: unknown, teamName: string): { reason: string; unconfirmed: boolean };
  /** An approval rule in words, for the audit line. */
  ruleText(rule: ApprovalRule): string;
  /** Posts a started attack's card before it is saved; throws when Slack did not take it. */
  postCard(card: CardRecord): Promise<MessageRef>;
  /**
   * Says that a target still runs `HALT_SLO_SECONDS` after a halt, with Halt again: in the card's thread
   * (if it has one) and to whoever halted it. Gives back the messages Slack took; never throws.
   */
  haltStuck(
    event: Extract<AttackEvent, { kind: 'halt checked' }>,
    card: CardRecord | undefined,
  ): Promise<HaltWarning[]>;
  /** Shows an event: the card redrawn when it changed, the line in its thread, the notices (the recorder logs a failure). */
  show(event: AttackEvent, recorded: Recorded): Promise<void>;
}

/**
 * Where the domain says what happened. `record` never fails the action that caused the event,
 * except a start whose card could not be posted, which the start reports. It gives back the
 * attack's card as it now shows, when it has one.
 */
export interface Recorder {
  record(event: AttackEvent): Promise<CardRecord | undefined>;
}

/**
 * Puts the platform's latest state of an attack on its card, in one step, and says so when the
 * card shows something new: it moved on, or this change ended it. Gives back the card as it now
 * shows, or undefined when the attack has no card.
 */
export async function recordState(
  cards: Pick<CardStore, 'update'>,
  events: Recorder,
  guid: string,
  state: AttackState,
): Promise<CardRecord | undefined> {
  const change = await cards.update(guid, toState(state));
  if (change?.changed) await events.record({ kind: change.ended ? 'ended' : 'changed', card: change.card });
  return change?.card;
}
