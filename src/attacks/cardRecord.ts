import type { Person } from '../store/sessions.ts';
import type { HaltProgress } from './haltChecks.ts';

/* What an attack card shows, as stored: the card store (cards.ts) keeps it, the views draw it. */

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
