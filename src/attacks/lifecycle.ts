import type { Person } from '../store/sessions.ts';
import type { HaltProgress } from './haltChecks.ts';

/* What an attack card shows, as stored (the card store, cards.ts, keeps it; the views draw it), and the attack's life it follows. */

/** A message in a channel, by its timestamp. */
export interface MessageRef {
  channel: string;
  ts: string;
}

/** An attack card posted in a channel, and what it last showed. */
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
  /** Slack users who asked for a halt, first one first; `reason` when their freeze halted it ("frozen: …"). */
  haltedBy: { userId: string; at: string; reason?: string | undefined }[];
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
  /**
   * Where a halt not verified was said with Halt again (its thread; `halter`: the direct message
   * to whoever halted it), until the halt is verified and they are changed to say so.
   */
  haltWarnings?: HaltWarning[] | undefined;
  /** Set when it was halted because nobody answered its presence check: who was asked. */
  unwatched?: { askedOf: string; at: string } | undefined;
}

/** A message that offered Halt again on a halt not verified. */
export type HaltWarning = MessageRef & { halter?: true | undefined };

/** A guard as its card shows it. */
export interface CardGuard {
  key: string;
  name: string;
  state?: string | undefined;
  health?: 'healthy' | 'unhealthy' | 'unknown' | undefined;
  firedAt?: string | undefined;
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

/** What of a card follows the platform's state of its attack. */
type CardState = Pick<CardRecord, 'stage' | 'lifecycle' | 'startTime' | 'endTime' | 'totalClients' | 'annotations'>;

/**
 * An attack's life, as the platform tells it: `Active` while it runs, `Halting` once a halt is
 * under way, then finished, well (`Complete`) or not (`Error`). This is the one place that says
 * whether an attack is live, ending or finished; cards, watches, guards, freezes, lists and
 * halts all ask it.
 *
 * The lifecycle decides, never the stage name. An attack whose lifecycle says it runs is live
 * even when it carries an end time (a halt is idempotent, so treating it as live costs nothing,
 * while treating it as finished would hide its Halt button and let its guards and watches drop
 * it); the end time decides only when the lifecycle is missing or unknown.
 */

/** An attack's state as the platform answers it, or as its card keeps it. */
export type LifecycleState =
  | { stage_lifecycle?: string | undefined; end_time?: string | null | undefined }
  | { lifecycle: string; endTime?: string | undefined };

export type Phase = 'live' | 'halting' | 'finished';

/** Where an attack is in its life: running, being halted, or over. */
export function phaseOf(state: LifecycleState): Phase {
  const [lifecycle, endTime] =
    'lifecycle' in state ? [state.lifecycle, state.endTime] : [state.stage_lifecycle, state.end_time];
  switch (lifecycle) {
    case 'Active':
      return 'live';
    case 'Halting':
      return 'halting';
    case 'Complete':
    case 'Error':
      return 'finished';
    default:
      return endTime ? 'finished' : 'live';
  }
}

const phaseOrder: Record<Phase, number> = { live: 0, halting: 1, finished: 2 };

/**
 * Whether `next` is earlier in an attack's life than `current`: a life only moves forward, so
 * such a state is an older read (a halt's answer that arrived after the poll saw the end).
 */
export const isOlder = (next: LifecycleState, current: LifecycleState): boolean =>
  phaseOrder[phaseOf(next)] < phaseOrder[phaseOf(current)];

/** Over: it will not run again, and nothing needs to follow it any more. */
export const isFinished = (state: LifecycleState): boolean => phaseOf(state) === 'finished';

/** Not over yet, halting included: its card is kept current and its guards keep watching. */
export const isLive = (state: LifecycleState): boolean => phaseOf(state) !== 'finished';

/** Running and not yet being halted: a Halt button has something to do. */
export const canHalt = (state: LifecycleState): boolean => phaseOf(state) === 'live';

/** How an attack whose halt was sent shows until the platform says more: halting. */
export const haltSentState = { stage: 'Halt', stage_lifecycle: 'Halting' } as const;

/** The card with the platform's latest state, and whether anything a person sees changed. */
export function withState<C extends CardState>(card: C, attack: AttackState): { card: C; changed: boolean } {
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

/** The change (for CardStore.update) that puts the platform's latest state on a card, when that shows something new. */
export const toState =
  (attack: AttackState) =>
  (card: CardRecord): CardRecord | undefined => {
    const { card: next, changed } = withState(card, attack);
    return changed ? next : undefined;
  };
