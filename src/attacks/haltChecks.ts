import { NotFoundError, UnauthorizedError } from '../client/errors.ts';
import type { AttackParts } from './service.ts';
import { keys } from '../store/keys.ts';
import type { HaltCause, Who } from './events.ts';
import { isFinished } from './lifecycle.ts';

/** A target still running this long after a halt is shown with Halt again, and its halter is told. */
export const haltStuckMs = 60_000;

/** A halt being verified: its attack's executions are read until every target has stopped. */
export interface HaltCheck {
  guid: string;
  kind: 'attack' | 'kubernetes';
  teamId: string | undefined;
  /** When the halt was sent (the latest, for a halt sent again). */
  haltedAt: string;
  /** Who halted it: their session reads the executions, and they are told when a target runs on. */
  by: Who;
  cause: HaltCause;
  /** Whether a target still running a minute after the halt has been told. */
  stuckTold?: boolean | undefined;
  /** Whether its halter has been told that no stored session can read its targets. */
  unreadableTold?: boolean | undefined;
}

/** What the executions of a halted attack showed at the last read; the card keeps it. */
export interface HaltProgress {
  haltedAt: string;
  /** Targets that have reached a final stage, of `total`. */
  stopped: number;
  total: number;
  /** The targets (client ids) still running, a few of them. */
  running: string[];
  /** Every target has stopped. */
  verified: boolean;
  /** A target still ran a minute after the halt. */
  stuck: boolean;
}

/** Targets named on a card and in a message; the rest are counted. */
const runningNamed = 10;

/**
 * Starts verifying a halt that stopped an attack (or that nobody could confirm): the next passes
 * of `verifyHalts` read its executions. Kept in the store, so a restarted bot carries on. A halt
 * sent again starts the minute again.
 */
export async function beginHaltCheck(
  deps: Pick<AttackParts, 'store' | 'clock'>,
  check: Omit<HaltCheck, 'haltedAt' | 'stuckTold' | 'unreadableTold'>,
): Promise<void> {
  const value: HaltCheck = { ...check, haltedAt: new Date(deps.clock.now()).toISOString() };
  await deps.store.set(keys.haltCheck.key(check.guid), value, keys.haltCheck.ttlMs);
}

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
 * all reached a final stage is verified and forgotten; one with a target still running a minute
 * after it is told once (its card and thread show Halt again, its halter gets a direct message)
 * and read on until it stops; one no stored session can read is told to its halter once, a minute
 * on. Returns how many halts were read. Never throws.
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
  const late = deps.clock.now() - Date.parse(check.haltedAt) >= haltStuckMs;
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
    // Nobody can tell whether it stopped: its halter hears so once, a minute on, and it is read again once someone can.
    if (late && !check.unreadableTold) {
      await deps.events.record({ ...said(check, teamId), progress: undefined, news: 'unreadable' });
      await deps.store.set(key, { ...check, unreadableTold: true }, keys.haltCheck.ttlMs);
    }
    return api !== undefined;
  }
  const running = executions.filter((execution) => !isFinished(execution));
  const progress: HaltProgress = {
    haltedAt: check.haltedAt,
    stopped: executions.length - running.length,
    total: executions.length,
    running: running.slice(0, runningNamed).map((e) => e.client_id ?? e.guid ?? 'unknown target'),
    verified: running.length === 0,
    stuck: running.length > 0 && late,
  };
  const news = progress.verified ? 'verified' : progress.stuck && !check.stuckTold ? 'stuck' : 'progress';
  await deps.events.record({ ...said(check, teamId), progress, news });
  if (progress.verified) await deps.store.delete(key);
  else if (news === 'stuck') await deps.store.set(key, { ...check, stuckTold: true }, keys.haltCheck.ttlMs);
  return true;
}
