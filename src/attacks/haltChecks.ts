import { NotFoundError, UnauthorizedError } from '../client/errors.ts';
import type { Execution } from '../client/index.ts';
import type { KeyValueStore } from '../store/keyValue.ts';
import { keys } from '../store/keys.ts';
import type { HaltCause, Who } from './events.ts';
import { isFinished } from './lifecycle.ts';
import type { AttackParts } from './service.ts';

/** A halt being verified: its attack's executions are read until every target has stopped. */
export interface HaltCheck {
  guid: string;
  kind: 'attack' | 'kubernetes';
  teamId: string | undefined;
  /** When the halt was sent (the latest, for a halt sent again). */
  haltedAt: string;
  /** When the platform's answer to it arrived (it documents no time of its own). */
  acceptedAt?: string | undefined;
  /** Who halted it: their session reads the executions, and they are told when a target runs on. */
  by: Who;
  cause: HaltCause;
  /** Whether a target still running `HALT_SLO_SECONDS` after the halt has been told. */
  stuckTold?: boolean | undefined;
  /** Whether its halter has been told that no stored session can read its targets. */
  unreadableTold?: boolean | undefined;
}

/** What the executions of a halted attack showed at the last read; the card keeps it. */
export interface HaltProgress {
  haltedAt: string;
  acceptedAt?: string | undefined;
  /** The targets seen stopped, slowest first, each when its execution ended. */
  stops?: HaltStop[] | undefined;
  /** Targets that have reached a final stage, of `total`. */
  stopped: number;
  total: number;
  /** The targets (client ids) still running, a few of them. */
  running: string[];
  /** Every target has stopped. */
  verified: boolean;
  /** A target still ran `HALT_SLO_SECONDS` after the halt. */
  stuck: boolean;
  /** `HALT_SLO_SECONDS` as it was when the halt was late, for the words. */
  sloSeconds?: number | undefined;
}

/** Targets named on a card and in a message; the rest are counted. */
const runningNamed = 10;

/** The platform as the halter, or else the attack's starter, reaches the attack's team. */
async function readerFor(deps: AttackParts, check: HaltCheck, teamId: string) {
  const card = await deps.cards.get(check.guid);
  for (const person of [check.by, card?.startedBy]) {
    if (!person) continue;
    const login = await deps.sessions.get(person);
    const team = login?.session.teams.find((t) => t.identifier === teamId);
    if (login && team) return deps.platform.as({ header: login.session.header, teamId, background: true });
  }
  return undefined;
}

/**
 * One pass over the halts being verified: one executions read each. A halt whose targets have
 * all reached a final stage is verified, its receipt kept, and forgotten; one with a target
 * still running `HALT_SLO_SECONDS` after it is told once (its card and thread show Halt again,
 * its halter gets a direct message) and read on until it stops; one no stored session can read
 * is told to its halter once, as late. Returns how many halts were read. Never throws.
 */
export async function verifyHalts(deps: AttackParts): Promise<number> {
  const checks: HaltCheck[] = [];
  try {
    for await (const [, check] of deps.store.entries<HaltCheck>(keys.haltCheck.prefix)) checks.push(check);
  } catch (error) {
    deps.logger.warn({ err: error }, 'could not list the halts being verified');
    return 0;
  }
  let read = 0;
  for (const check of checks) {
    try {
      if (await verifyOne(deps, check)) read++;
    } catch (error) {
      deps.logger.warn({ err: error, attack: check.guid }, 'could not verify a halt; the next pass tries again');
    }
  }
  return read;
}

/** What every `halt checked` event says of the halt. */
const said = (check: HaltCheck, teamId: string | undefined) => ({
  kind: 'halt checked' as const,
  guid: check.guid,
  attackKind: check.kind,
  teamId,
  by: check.by,
  cause: check.cause,
});

async function verifyOne(deps: AttackParts, check: HaltCheck): Promise<boolean> {
  const key = keys.haltCheck.key(check.guid);
  const teamId = check.teamId ?? (await deps.cards.get(check.guid))?.teamId;
  const late = deps.clock.now() - Date.parse(check.haltedAt) >= deps.config.haltSloSeconds * 1000;
  const api = teamId ? await readerFor(deps, check, teamId) : undefined;
  let executions: Awaited<ReturnType<NonNullable<typeof api>['attacks']['executions']>> | undefined;
  try {
    executions = await api?.attacks.executions(check.guid);
  } catch (error) {
    // Gone from the platform: nothing is left running to verify.
    if (error instanceof NotFoundError) {
      await deps.store.delete(key);
      return true;
    }
    if (!(error instanceof UnauthorizedError)) throw error;
  }
  if (!executions) {
    deps.logger.debug({ attack: check.guid }, 'no session can read the executions of a halted attack');
    // Nobody can tell whether it stopped: its halter hears so once, as late, and it is read again once someone can.
    if (late && !check.unreadableTold) {
      await deps.events.record({ ...said(check, teamId), progress: undefined, news: 'unreadable' });
      await deps.store.set(key, { ...check, unreadableTold: true }, keys.haltCheck.ttlMs);
    }
    return api !== undefined;
  }
  const running = executions.filter((execution) => !isFinished(execution));
  const card = await deps.cards.get(check.guid);
  const progress: HaltProgress = {
    haltedAt: check.haltedAt,
    acceptedAt: check.acceptedAt,
    stops: stopsOf(executions, card?.haltCheck?.stops, new Date(deps.clock.now()).toISOString()),
    stopped: executions.length - running.length,
    total: executions.length,
    running: running.slice(0, runningNamed).map((e) => e.client_id ?? e.guid ?? 'unknown target'),
    verified: running.length === 0,
    stuck: running.length > 0 && late,
    ...(late ? { sloSeconds: deps.config.haltSloSeconds } : {}),
  };
  const news = progress.verified ? 'verified' : progress.stuck && !check.stuckTold ? 'stuck' : 'progress';
  await deps.events.record({ ...said(check, teamId), progress, news });
  if (progress.verified && teamId)
    await keepReceipt(deps.store, { guid: check.guid, teamId, type: card?.type }, progress);
  if (progress.verified) await deps.store.delete(key);
  else if (news === 'stuck') await deps.store.set(key, { ...check, stuckTold: true }, keys.haltCheck.ttlMs);
  return true;
}

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
