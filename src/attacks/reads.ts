import { NotFoundError } from '../client/errors.ts';
import {
  type Attack,
  attackSchema,
  type KubernetesAttack,
  type PlatformClient,
  type ScopedPlatform,
  type TeamEntry,
} from '../client/index.ts';
import { explained } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { Login } from '../store/sessions.ts';
import { platformFor, teamForAction, teamName } from './access.ts';
import { isFinished } from './lifecycle.ts';

/* A team's attacks as the person's own session reads them: a page of a list, one attack, App Home's. */

/** Which attacks a list reads, and from where on. */
export interface AttackListQuery {
  which: 'active' | 'completed';
  source: 'Adhoc' | 'Scenario' | undefined;
  k8s: boolean;
  pageSize: number;
  /** The platform's page token (paged endpoints) or an offset (lists the platform does not page). */
  pageToken?: string | undefined;
  offset?: number | undefined;
}

/** One page of a list: attacks, or Kubernetes attacks (`--k8s`), and where the next page starts. */
export type AttackListPage = ({ attacks: Attack[] } | { kubernetes: KubernetesAttack[] }) & {
  next: { pageToken: string } | { offset: number } | undefined;
};

/**
 * A page of the list of the team a list's Next button names, only ever one of the person's own
 * teams (else their selected team), read with their session; with the team it is of.
 */
export async function listAttacks(
  deps: { platform: PlatformClient },
  login: Login,
  teamId: string | undefined,
  query: AttackListQuery,
): Promise<AttackListPage & { team: TeamEntry }> {
  const team = teamForAction(login, teamId);
  const page = await explained({ team: teamName(team), doing: 'list attacks' }, () =>
    attackListPage(platformFor(deps, login, team), query),
  );
  return { ...page, team };
}

/**
 * One page. Plain ad-hoc lists come from the paged endpoints, so the first page is answered
 * without reading the rest; `--source` and `--k8s` lists are not paged by the platform and are
 * cut into pages here.
 */
export async function attackListPage(api: ScopedPlatform, query: AttackListQuery): Promise<AttackListPage> {
  const active = query.which === 'active';
  if (!query.source && !query.k8s) {
    const paging = { pageSize: query.pageSize, ...(query.pageToken ? { pageToken: query.pageToken } : {}) };
    const page = active ? await api.attacks.activePage(paging) : await api.attacks.completedPage(paging);
    return { attacks: page.items, next: page.nextPageToken ? { pageToken: page.nextPageToken } : undefined };
  }
  const source = query.source ? { source: query.source } : {};
  const offset = query.offset ?? 0;
  const end = offset + query.pageSize;
  const cut = <T>(all: T[]) => ({
    page: all.slice(offset, end),
    next: end < all.length ? { offset: end } : undefined,
  });
  if (query.k8s) {
    const { page, next } = cut((await api.kubernetes.list(source)).filter((a) => !isFinished(a) === active));
    return { kubernetes: page, next };
  }
  const { page, next } = cut(active ? await api.attacks.listActive(source) : await api.attacks.listCompleted(source));
  return { attacks: page, next };
}

/** One attack; a Kubernetes attack has no TaskResponse, so what its own record says is given in that shape. */
export async function readAttack(api: ScopedPlatform, guid: string): Promise<Attack> {
  try {
    return await api.attacks.get(guid);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    const k8s = await api.kubernetes.get(guid);
    const cli = k8s.impact_definition?.cli_args ?? [];
    return attackSchema.parse({
      guid: k8s.guid,
      stage: k8s.stage,
      stage_lifecycle: k8s.stage_lifecycle,
      args: cli.slice(1),
      infra_command: { type: cli[0] ?? 'kubernetes', args: cli.slice(1) },
      target_type: 'Kubernetes',
      targets: (k8s.target_definition?.strategy?.k8s_objects ?? []).map((o) =>
        [o.cluster_id, o.namespace, o.kind, o.name].filter(Boolean).join('/'),
      ),
      created_at: k8s.created_at,
      end_time: k8s.end_time,
    });
  }
}

/** What App Home lists: the newest active and completed attacks, and the Kubernetes ones. */
export async function homeAttacks(deps: { logger: Logger }, api: ScopedPlatform) {
  const [active, recent, kubernetes] = await Promise.all([
    api.attacks.activePage({ pageSize: 15 }),
    api.attacks.completedPage({ pageSize: 10 }),
    // Kubernetes attacks are listed apart; without them the rest is still worth showing.
    api.kubernetes.list().catch((error: unknown) => {
      deps.logger.warn({ err: error }, 'could not read Kubernetes attacks for App Home');
      return [];
    }),
  ]);
  return { active: active.items, recent: recent.items, kubernetes };
}
