import { z } from 'zod';
import { isActiveHost } from './clients.ts';
import { badRequest } from './route.ts';
import type { Container, Host, KubernetesObject, SimState } from './state.ts';

const stringMap = z.record(z.string(), z.string());

/** The `target` of CreateAttackInput (platform-api.md, Resources). */
export const infraTargetSchema = z.looseObject({
  type: z.enum(['Random', 'Exact']),
  tags: stringMap.optional(),
  exact: z.union([z.array(z.string()), z.number().int().positive()]).optional(),
  hosts: z.looseObject({ ids: z.array(z.string()).optional() }).optional(),
  containers: z.looseObject({ ids: z.array(z.string()).optional(), labels: stringMap.optional() }).optional(),
});

export type InfraTarget = z.infer<typeof infraTargetSchema>;

export interface ResolvedTargets {
  targetType: 'Host' | 'Container';
  /** Client identifiers; empty when nothing matched (the attack then ends TargetNotFound). */
  targets: string[];
}

/** The team's hosts whose agents report, and the containers on them: the only ones an attack targets. */
export function activeClientsOf(state: SimState, teamId: string): { hosts: Host[]; containers: Container[] } {
  const hosts = state.hostsOf(teamId).filter(isActiveHost);
  const hostIds = new Set(hosts.map((host) => host.id));
  return { hosts, containers: state.containersOf(teamId).filter((container) => hostIds.has(container.hostId)) };
}

/**
 * Picks the team's active clients an attack runs on (platform-contract.md, Clients): `Exact` names
 * hosts, `Random` takes those carrying every tag, and container ids or labels narrow to the
 * containers on them. Random picks are the first matches in a stable order, so that tests can
 * predict them.
 */
export function resolveTargets(
  state: SimState,
  teamId: string,
  target: InfraTarget,
  labels?: Record<string, string>,
): ResolvedTargets {
  if (target.type === 'Exact' && typeof target.exact === 'number')
    throw badRequest('a count in target.exact needs a Random target');
  if (target.type === 'Random' && Array.isArray(target.exact))
    throw badRequest('a list of names in target.exact needs an Exact target');
  const active = activeClientsOf(state, teamId);
  const containerIds = target.containers?.ids;
  const containerLabels = target.containers?.labels ?? labels;
  let hosts = active.hosts.filter((host) => hasAll(host.tags, target.tags));
  if (target.type === 'Exact') {
    const named = target.hosts?.ids ?? (Array.isArray(target.exact) ? target.exact : undefined);
    if (!named && !containerIds)
      throw badRequest('an Exact target needs target.hosts.ids, target.containers.ids or target.exact');
    // Containers named without hosts are looked for on every host.
    hosts = named ? active.hosts.filter((host) => named.includes(host.id)) : active.hosts;
  }
  const choose = (ids: string[]) =>
    target.type === 'Exact' ? ids : pick(ids, typeof target.exact === 'number' ? target.exact : undefined);
  if (containerIds || containerLabels) {
    const hostIds = new Set(hosts.map((host) => host.id));
    const containers = active.containers.filter(
      (container) =>
        hostIds.has(container.hostId) &&
        (!containerIds || containerIds.includes(container.id)) &&
        hasAll(container.labels, containerLabels),
    );
    return { targetType: 'Container', targets: choose(containers.map((container) => container.id)) };
  }
  return { targetType: 'Host', targets: choose(hosts.map((host) => host.id)) };
}

export interface KubernetesSelection {
  objects: KubernetesObject[];
  count?: number;
  percentage?: number;
}

/** The team's Kubernetes objects named by an attack, as `cluster/namespace/kind/name`. */
export function resolveKubernetesTargets(
  state: SimState,
  teamId: string,
  selection: KubernetesSelection,
): KubernetesObject[] {
  const known = state.kubernetesObjectsOf(teamId);
  const matched = known.filter((object) =>
    selection.objects.some(
      (wanted) =>
        wanted.clusterId === object.clusterId &&
        wanted.namespace === object.namespace &&
        wanted.kind === object.kind &&
        wanted.name === object.name,
    ),
  );
  const count =
    selection.percentage !== undefined ? Math.ceil((matched.length * selection.percentage) / 100) : selection.count;
  return count === undefined ? matched : matched.slice(0, count);
}

export function kubernetesTargetId(object: KubernetesObject): string {
  return `${object.clusterId}/${object.namespace}/${object.kind}/${object.name}`;
}

function hasAll(actual: Record<string, string>, wanted: Record<string, string> | undefined): boolean {
  return Object.entries(wanted ?? {}).every(([key, value]) => actual[key] === value);
}

function pick(ids: string[], count: number | undefined): string[] {
  const sorted = ids.toSorted();
  return count === undefined ? sorted : sorted.slice(0, count);
}
