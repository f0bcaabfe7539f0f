import type { Execution } from '../client/index.ts';
import type { KeyValueStore } from '../store/keyValue.ts';
import { keys } from '../store/keys.ts';
import type { HaltProgress } from './haltChecks.ts';
import { isFinished } from './lifecycle.ts';

/** One target of a halt, first seen stopped: when its execution ended. */
export interface HaltStop {
  target: string;
  at: string;
}

/** A verified halt, kept for `/chaos halts`: when it was sent and accepted, and each target's stop. */
export interface HaltReceipt {
  guid: string;
  teamId: string;
  /** The attack's type, as its card showed it. */
  type: string | undefined;
  sentAt: string;
  acceptedAt: string | undefined;
  total: number;
  /** Slowest first. */
  stops: HaltStop[];
}

/** Stops kept per halt on a card and in a receipt; the rest are counted. */
const stopsKept = 100;

/**
 * The targets an executions read shows stopped, slowest first: each at its execution's own end
 * time, or, where the platform gives none, at the read that first saw it stopped.
 */
export function stopsOf(executions: Execution[], earlier: HaltStop[] | undefined, now: string): HaltStop[] {
  const seen = new Map((earlier ?? []).map((stop) => [stop.target, stop.at]));
  return executions
    .filter((execution) => isFinished(execution))
    .map((execution) => {
      const target = execution.client_id ?? execution.guid ?? 'unknown target';
      return { target, at: execution.end_time ?? seen.get(target) ?? now };
    })
    .sort((a, b) => b.at.localeCompare(a.at))
    .slice(0, stopsKept);
}

/** How long after the halt was sent a stop came, in milliseconds (never below 0). */
export const stopMs = (sentAt: string, stop: HaltStop) => Math.max(0, Date.parse(stop.at) - Date.parse(sentAt));

/** A duration as a person reads it: "6.2 s", "1 min 5 s". */
export function seconds(ms: number): string {
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}

/** How long a halt may take, as a sentence reads it: "a minute", "2 minutes", "90 s". */
export function sloWords(sloSeconds: number | undefined): string {
  const s = sloSeconds ?? 60;
  if (s === 60) return 'a minute';
  return s % 60 === 0 ? `${s / 60} minutes` : `${s} s`;
}

/** The median and the slowest stop of a halt, after it was sent; undefined when nothing stopped. */
export function haltTimes(
  sentAt: string,
  stops: HaltStop[] | undefined,
): { medianMs: number; slowest: HaltStop; slowestMs: number } | undefined {
  const slowest = stops?.[0];
  if (!stops || !slowest) return undefined;
  const sorted = stops.map((stop) => stopMs(sentAt, stop)).sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const medianMs = sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  return { medianMs, slowest, slowestMs: stopMs(sentAt, slowest) };
}

/** Keeps a verified halt's receipt for its team's list of halts. */
export async function keepReceipt(
  store: Pick<KeyValueStore, 'set'>,
  attack: Pick<HaltReceipt, 'guid' | 'teamId' | 'type'>,
  progress: HaltProgress,
): Promise<void> {
  const receipt: HaltReceipt = {
    ...attack,
    sentAt: progress.haltedAt,
    acceptedAt: progress.acceptedAt,
    total: progress.total,
    stops: progress.stops ?? [],
  };
  await store.set(keys.haltReceipt.key(attack.teamId, attack.guid), receipt, keys.haltReceipt.ttlMs);
}

/** The last `count` verified halts of the teams, latest first. */
export async function lastReceipts(
  store: Pick<KeyValueStore, 'entries'>,
  teamIds: string[],
  count: number,
): Promise<HaltReceipt[]> {
  const receipts: HaltReceipt[] = [];
  for (const teamId of teamIds)
    for await (const [, receipt] of store.entries<HaltReceipt>(keys.haltReceipt.ofTeam(teamId))) receipts.push(receipt);
  return receipts.sort((a, b) => b.sentAt.localeCompare(a.sentAt)).slice(0, count);
}
