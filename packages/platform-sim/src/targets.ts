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
 * Picks the team's active clients an attack runs on. Random picks are the first matches in a
 * stable order, so that tests can predict them.
 */
export function resolveTargets(
  state: SimState,
  teamId: string,
  target: InfraTarget,
  labels?: Record<string, string>,
): ResolvedTargets {
  const active = activeClientsOf(state, teamId);
  if (target.type === 'Exact') {
    if (typeof target.exact === 'number') throw badRequest('a count in target.exact needs a Random target');
    if (target.containers?.ids) {
      const ids = new Set(target.containers.ids);
      return {
        targetType: 'Container',
        targets: state
          .containersOf(teamId)
          .filter((container) => ids.has(container.id))
          .map((container) => container.id),
      };
    }
    const hostIds = target.hosts?.ids ?? target.exact;
    if (!hostIds) throw badRequest('an Exact target needs target.hosts.ids, target.containers.ids or target.exact');
    const ids = new Set(hostIds);
    return {
      targetType: 'Host',
      targets: active.hosts.filter((host) => ids.has(host.id)).map((host) => host.id),
    };
  }

  if (Array.isArray(target.exact)) throw badRequest('a list of names in target.exact needs an Exact target');
  const hosts = active.hosts.filter((host) => hasAll(host.tags, target.tags));
  const containerLabels = target.containers?.labels ?? labels;
  if (containerLabels) {
    const hostIds = new Set(hosts.map((host) => host.id));
    const containers = active.containers.filter(
      (container) => hostIds.has(container.hostId) && hasAll(container.labels, containerLabels),
    );
    return {
      targetType: 'Container',
      targets: pick(
        containers.map((container) => container.id),
        target.exact,
      ),
    };
  }
  return {
    targetType: 'Host',
    targets: pick(
      hosts.map((host) => host.id),
      target.exact,
    ),
  };
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
