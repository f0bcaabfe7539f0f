import type { AttackTarget, KubernetesObjectRef } from './request.ts';

export type TargetKind = Exclude<AttackTarget['kind'], 'all'>;

/**
 * How each kind of target is typed: the flag and what its value looks like. The parser, the
 * preview's equivalent command and the usage text all read this one table.
 */
export const targetFlags = {
  hosts: { flag: '--target-hosts', value: 'a,b' },
  containers: { flag: '--target-containers', value: 'a,b' },
  tags: { flag: '--target-tags', value: 'k=v,…' },
  labels: { flag: '--target-labels', value: 'k=v,…' },
  service: { flag: '--target-service', value: 'ID' },
  kubernetes: { flag: '--k8s-target', value: 'cluster/namespace/kind/name' },
} as const satisfies Record<TargetKind, { flag: string; value: string }>;

/** Picks that many random clients among those matching tags or labels. */
export const targetCountFlag = '--target-count';

/**
 * Flags that narrow one kind of target: how many to pick, what share, whether newcomers count.
 * `value` is absent for a switch, which takes none.
 */
export const targetOptionFlags = {
  count: {
    flag: targetCountFlag,
    value: 'N',
    with: ['tags', 'labels'],
    does: 'picks that many random clients among those matching',
  },
  k8sCount: {
    flag: '--k8s-count',
    value: 'N',
    with: ['kubernetes'],
    does: 'picks that many random objects among those named by',
  },
  k8sPercent: {
    flag: '--k8s-percent',
    value: 'P',
    with: ['kubernetes'],
    does: 'picks that share of the objects named by',
  },
  samplePercent: {
    flag: '--sample-percent',
    value: 'P',
    with: ['service'],
    does: 'attacks that share of the targets of',
  },
  includeNewTargets: {
    flag: '--include-new-targets',
    with: ['service'],
    does: 'also attacks targets that join the service of',
  },
} as const satisfies Record<string, { flag: string; value?: string; with: readonly TargetKind[]; does: string }>;

export type TargetOption = keyof typeof targetOptionFlags;

/** Target flags a command may give more than once, each time with one more value. */
export const repeatableTargetFlags: readonly string[] = [targetFlags.kubernetes.flag];

const kinds = Object.keys(targetFlags) as TargetKind[];

/** The target flags in usage form, one line. */
export const targetFlagsUsage =
  `${kinds.map((kind) => `${targetFlags[kind].flag} ${targetFlags[kind].value}`).join(' | ')} (repeatable)` +
  `; with tags or labels ${targetCountFlag} N` +
  `; with ${targetFlags.kubernetes.flag} ${targetOptionFlags.k8sCount.flag} N or ${targetOptionFlags.k8sPercent.flag} P` +
  `; with ${targetFlags.service.flag} ${targetOptionFlags.samplePercent.flag} P and ${targetOptionFlags.includeNewTargets.flag}`;

/** The kinds whose flags were given, in the table's order. */
export function givenTargetKinds(given: (flag: string) => boolean): TargetKind[] {
  return kinds.filter((kind) => given(targetFlags[kind].flag));
}

/** `cluster/namespace/kind/name`: how a Kubernetes object is typed and shown. */
const kubernetesObjectPath = (object: KubernetesObjectRef) =>
  `${object.clusterId}/${object.namespace}/${object.kind}/${object.name}`;

const pairs = (map: Record<string, string>) =>
  Object.entries(map)
    .map(([key, value]) => `${key}=${value}`)
    .join(',');

/** The target flags and values that choose this target, as a person would type them. */
export function targetFlagWords(target: AttackTarget): string[] {
  const valued = (option: TargetOption, n: number | undefined) =>
    n === undefined ? [] : [targetOptionFlags[option].flag, String(n)];
  switch (target.kind) {
    case 'all':
      return [];
    case 'hosts':
    case 'containers':
      return [targetFlags[target.kind].flag, target.ids.join(',')];
    case 'tags':
      return [targetFlags.tags.flag, pairs(target.tags), ...valued('count', target.count)];
    case 'labels':
      return [targetFlags.labels.flag, pairs(target.labels), ...valued('count', target.count)];
    case 'service':
      return [
        targetFlags.service.flag,
        target.serviceId,
        ...valued('samplePercent', target.percent),
        ...(target.includeNewTargets ? [targetOptionFlags.includeNewTargets.flag] : []),
      ];
    case 'kubernetes':
      return [
        ...target.objects.flatMap((object) => [targetFlags.kubernetes.flag, kubernetesObjectPath(object)]),
        ...valued('k8sCount', target.count),
        ...valued('k8sPercent', target.percent),
      ];
  }
}
