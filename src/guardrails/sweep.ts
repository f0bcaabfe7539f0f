import { randomUUID } from 'node:crypto';
import { UnauthorizedError } from '../client/errors.ts';
import type { ScopedPlatform, TeamEntry } from '../client/index.ts';
import { platformFor, teamName } from '../attacks/access.ts';
import { halt, type Halter } from '../attacks/halt.ts';
import { isLive } from '../attacks/lifecycle.ts';
import type { GuardrailParts } from './service.ts';
import type { Login } from '../store/sessions.ts';
import type { Freeze } from './freezes.ts';
import { keys } from '../store/keys.ts';

export interface SweptAttack {
  guid: string;
  kind: 'attack' | 'kubernetes';
  type: string | undefined;
  /** Its team, when the platform said (so its halt can be verified). */
  teamId?: string | undefined;
}

/** Where a sweep looks for attacks: the attacks of the team, and its Kubernetes attacks. */
type SweepSource = 'attacks' | 'kubernetes';

export interface SweepResult {
  halted: SweptAttack[];
  /** Attacks found but not halted (no privilege, the platform refused): they still run. */
  failed: (SweptAttack & { error: unknown })[];
  /** Sources that could not be read: attacks there may run unseen. What the others held was halted. */
  unread: { source: SweepSource; error: unknown }[];
}

/**
 * Which attacks a sweep has halted already. `claim` is true for the one caller that may halt the
 * attack now; `release` gives the claim back when the halt failed, so the next pass tries again.
 */
interface HaltLedger {
  claim(guid: string): Promise<boolean>;
  release(guid: string): Promise<void>;
}

const everyTime: HaltLedger = { claim: async () => true, release: async () => {} };

/** This process, as the holder of per-team sweep leases. */
const sweeper = randomUUID();

/**
 * Halts every active attack of one team (Kubernetes ones too) with this session. Each source is
 * read on its own, so one that fails (no Kubernetes access, a 5xx) never keeps the other's attacks
 * running. A halt is idempotent on the platform; `ledger` lets a caller skip attacks it halted
 * already. An attack that had ended by the time of its halt is not counted as halted.
 */
export async function haltTeamAttacks(
  deps: Pick<GuardrailParts, 'events' | 'logger' | 'store' | 'clock'>,
  api: ScopedPlatform,
  halter: Halter,
  ledger: HaltLedger = everyTime,
): Promise<SweepResult> {
  const found: SweptAttack[] = [];
  const result: SweepResult = { halted: [], failed: [], unread: [] };
  try {
    for await (const attack of api.attacks.iterateActive({ pageSize: 1000 })) {
      if (isLive(attack))
        found.push({ guid: attack.guid, kind: 'attack', type: attack.infra_command?.type, teamId: attack.org_id });
    }
  } catch (error) {
    result.unread.push({ source: 'attacks', error });
  }
  try {
    for (const attack of await api.kubernetes.list()) {
      if (isLive(attack))
        found.push({ guid: attack.guid, kind: 'kubernetes', type: attack.impact_definition?.cli_args?.[0] });
    }
  } catch (error) {
    result.unread.push({ source: 'kubernetes', error });
  }
  for (const attack of found) {
    if (!(await ledger.claim(attack.guid))) continue;
    try {
      const { result: done } = await halt(
        deps,
        api,
        { guid: attack.guid, kind: attack.kind, teamId: attack.teamId },
        halter,
      );
      if (done === 'halted') result.halted.push(attack);
    } catch (error) {
      result.failed.push({ ...attack, error });
      // It still runs: the next pass must try again rather than take it for halted.
      await ledger.release(attack.guid).catch(() => {});
    }
  }
  return result;
}

/** How a freeze's halts are recorded: by whoever froze, with their platform login, and why. */
export function freezeHalter(by: Halter['by'], login: Login, reason: string): Halter {
  return { by, platformUser: login.session.identifier, cause: 'freeze', reason: `frozen: ${reason}` };
}

/** What keeps a freeze from halting the attacks that start elsewhere, said in its channel. */
export type FreezeNotice =
  /** The person who declared it logged out: no session halts any more. */
  | { kind: 'logged out' }
  /** They are no longer in the frozen team. */
  | { kind: 'not member' }
  /** The platform no longer accepts their session. */
  | { kind: 'session refused' }
  | { kind: 'halt failed'; attack: SweptAttack; error: unknown; teamName: string }
  | { kind: 'unread'; source: SweepSource; error: unknown; teamName: string };

/** Where a freeze's notices are said; the words and the Slack call are in src/slack/notices.ts. */
export interface FreezeNotices {
  tell(freeze: Freeze & { channel: string }, notice: FreezeNotice): Promise<void>;
}

/** The teams a freeze covers, as the declarer's session sees them. */
function frozenTeams(freeze: Freeze, login: Login): TeamEntry[] {
  return freeze.scope === 'all'
    ? login.session.teams
    : login.session.teams.filter((t) => t.identifier === freeze.teamId);
}

/**
 * Posts a notice in the freeze's channel once per cause for as long as the freeze stands (a freeze
 * declared again keeps its `since`, so its notices are not repeated either).
 */
async function noticeOnce(deps: GuardrailParts, freeze: Freeze, cause: string, notice: FreezeNotice): Promise<void> {
  if (!freeze.channel) return;
  const key = keys.freezeNotice.key(freeze.scope, freeze.teamId, freeze.since, cause);
  const owner = randomUUID();
  if (!(await deps.store.claim(key, keys.freezeNotice.ttlMs, owner))) return;
  try {
    await deps.freezeNotices.tell({ ...freeze, channel: freeze.channel }, notice);
  } catch (error) {
    // Said nowhere: the next pass tries again.
    await deps.store.release(key, owner).catch(() => {});
    throw error;
  }
}

/**
 * Once per poll interval: halts attacks that appeared in a frozen team from elsewhere (the web
 * UI, the API, a schedule), with the session of the person who declared the freeze, and says so
 * where the freeze was declared. A per-team lease lets one replica do it. One team or one freeze
 * that fails never stops the others; what keeps a sweep from halting is said once in the freeze's
 * channel. It never throws.
 */
export async function enforceFreezes(deps: GuardrailParts): Promise<void> {
  let freezes: Freeze[];
  try {
    freezes = await deps.freezes.all();
  } catch (error) {
    deps.logger.warn({ err: error }, 'could not read the freezes');
    return;
  }
  for (const freeze of freezes) {
    try {
      await enforceFreeze(deps, freeze);
    } catch (error) {
      deps.logger.warn({ err: error, scope: freeze.scope, teamId: freeze.teamId }, 'could not enforce a freeze');
    }
  }
}

async function enforceFreeze(deps: GuardrailParts, freeze: Freeze): Promise<void> {
  const login = await deps.sessions.get(freeze.by);
  if (!login) {
    if (
      freeze.channel &&
      (await deps.store.claim(
        keys.freezeOrphaned.key(freeze.scope, freeze.teamId, freeze.since),
        keys.freezeOrphaned.ttlMs,
      ))
    ) {
      await deps.freezeNotices.tell({ ...freeze, channel: freeze.channel }, { kind: 'logged out' });
    }
    return;
  }
  const teams = frozenTeams(freeze, login);
  if (freeze.scope === 'team' && !teams.length) {
    await noticeOnce(deps, freeze, 'not-member', { kind: 'not member' });
    return;
  }
  const sessionRefused = () => noticeOnce(deps, freeze, 'session', { kind: 'session refused' });
  const intervalMs = deps.config.pollSeconds * 1000;
  const halter = freezeHalter(freeze.by, login, freeze.reason);
  for (const team of teams) {
    try {
      if (!(await deps.store.claim(keys.freezeSweep.key(team.identifier), keys.freezeSweep.ttlMs(intervalMs), sweeper)))
        continue;
      const owners = new Map<string, string>();
      const ledger: HaltLedger = {
        claim: (guid) => {
          const owner = randomUUID();
          owners.set(guid, owner);
          return deps.store.claim(keys.freezeHalted.key(guid), keys.freezeHalted.ttlMs, owner);
        },
        release: async (guid) => {
          await deps.store.release(keys.freezeHalted.key(guid), owners.get(guid)!);
        },
      };
      const { halted, failed, unread } = await haltTeamAttacks(deps, platformFor(deps, login, team), halter, ledger);
      if ([...unread, ...failed].some((u) => u.error instanceof UnauthorizedError)) {
        await sessionRefused();
        // Every other team would be refused the same way.
        return;
      }
      const name = teamName(team);
      if (halted.length)
        await deps.events.record({ kind: 'freeze swept', channel: freeze.channel, teamName: name, halted });
      for (const { error, ...attack } of failed)
        await noticeOnce(deps, freeze, `halt:${attack.guid}`, { kind: 'halt failed', attack, error, teamName: name });
      for (const { source, error } of unread) {
        const notice = { kind: 'unread', source, error, teamName: name } as const;
        await noticeOnce(deps, freeze, `read:${team.identifier}:${source}`, notice);
      }
    } catch (error) {
      deps.logger.warn(
        { err: error, scope: freeze.scope, teamId: team.identifier },
        'could not enforce a freeze in a team',
      );
      if (error instanceof UnauthorizedError) {
        await sessionRefused();
        return;
      }
    }
  }
}
