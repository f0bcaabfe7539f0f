import { randomUUID } from 'node:crypto';
import type { ScopedPlatform, TeamEntry } from '../client/index.ts';
import { platformFor, teamName } from '../attacks/access.ts';
import type { Deps } from '../deps.ts';
import type { Login } from '../store/sessions.ts';
import { escapeMrkdwn } from '../views/blocks.ts';
import { type Freeze, freezeScopeText } from './freezes.ts';

export interface SweptAttack {
  guid: string;
  kind: 'attack' | 'kubernetes';
  type: string | undefined;
}

export interface SweepResult {
  halted: SweptAttack[];
  /** Attacks found but not halted (no privilege, the platform refused): they still run. */
  failed: SweptAttack[];
}

/** This process, as the holder of per-team sweep leases. */
const sweeper = randomUUID();

const ended = (lifecycle: string | undefined) => lifecycle === 'Complete' || lifecycle === 'Error';

/**
 * Halts every active attack of one team (Kubernetes ones too) with this session. A halt is
 * idempotent on the platform; `once` lets a caller skip attacks it halted already.
 */
export async function haltTeamAttacks(api: ScopedPlatform, request: { reason: string; reference: string }, once: (guid: string) => Promise<boolean> = async () => true): Promise<SweepResult> {
  const found: SweptAttack[] = [];
  for await (const attack of api.attacks.iterateActive({ pageSize: 1000 })) {
    if (!ended(attack.stage_lifecycle)) found.push({ guid: attack.guid, kind: 'attack', type: attack.infra_command?.type });
  }
  for (const attack of await api.kubernetes.list()) {
    if (!ended(attack.stage_lifecycle) && !attack.end_time) found.push({ guid: attack.guid, kind: 'kubernetes', type: attack.impact_definition?.cli_args?.[0] });
  }
  const result: SweepResult = { halted: [], failed: [] };
  for (const attack of found) {
    if (!(await once(attack.guid))) continue;
    try {
      if (attack.kind === 'kubernetes') await api.kubernetes.halt(attack.guid, request);
      else await api.attacks.halt(attack.guid, request);
      result.halted.push(attack);
    } catch {
      result.failed.push(attack);
    }
  }
  return result;
}

/** The teams a freeze covers, as the declarer's session sees them. */
function frozenTeams(freeze: Freeze, login: Login): TeamEntry[] {
  return freeze.scope === 'all' ? login.session.teams : login.session.teams.filter((t) => t.identifier === freeze.teamId);
}

/**
 * Once per poll interval: halts attacks that appeared in a frozen team from elsewhere (the web
 * UI, the API, a schedule), with the session of the person who declared the freeze, and says so
 * where the freeze was declared. A per-team lease lets one replica do it; it never throws.
 */
export async function enforceFreezes(deps: Deps): Promise<void> {
  let freezes: Freeze[];
  try {
    freezes = await deps.freezes.all();
  } catch (error) {
    deps.logger.warn({ err: error }, 'could not read the freezes');
    return;
  }
  const intervalMs = deps.config.pollSeconds * 1000;
  for (const freeze of freezes) {
    try {
      const login = await deps.sessions.get(freeze.by);
      if (!login) {
        if (freeze.channel && (await deps.store.claim(`freeze-orphaned:${freeze.scope}:${freeze.teamId ?? ''}:${freeze.since}`, 24 * 3600_000))) {
          await deps.slack.post(freeze.channel, {
            text: `:warning: The freeze on ${freezeScopeText(freeze)} still refuses starts through Faultline, but it can no longer halt attacks started elsewhere: <@${freeze.by.userId}> is logged out. Someone logged in can declare it again with \`${deps.config.slack.command} freeze\`.`,
          });
        }
        continue;
      }
      for (const team of frozenTeams(freeze, login)) {
        if (!(await deps.store.claim(`freeze-sweep:${team.identifier}`, intervalMs * 2, sweeper))) continue;
        const api = platformFor(deps, login, team);
        const request = { reason: `frozen: ${freeze.reason}`, reference: `slack:${freeze.by.workspaceId}:${freeze.by.userId}` };
        const { halted, failed } = await haltTeamAttacks(api, request, (guid) => deps.store.claim(`freeze-halted:${guid}`, 10 * 60_000));
        if (!freeze.channel || (!halted.length && !failed.length)) continue;
        const names = (list: SweptAttack[]) => list.map((a) => `${a.kind === 'kubernetes' ? 'Kubernetes ' : ''}${a.type ? `*${escapeMrkdwn(a.type)}* ` : ''}\`${a.guid}\``).join(', ');
        const lines = [];
        if (halted.length) lines.push(`:snowflake: Halted ${names(halted)} in *${escapeMrkdwn(teamName(team))}*: it started while the team is frozen.`);
        if (failed.length) lines.push(`:warning: Could not halt ${names(failed)} in *${escapeMrkdwn(teamName(team))}*, which started while the team is frozen. Halt it from the card, the web UI or \`${deps.config.slack.command} halt <id>\`.`);
        await deps.slack.post(freeze.channel, { text: lines.join('\n') });
      }
    } catch (error) {
      deps.logger.warn({ err: error, scope: freeze.scope, teamId: freeze.teamId }, 'could not enforce a freeze');
    }
  }
}
