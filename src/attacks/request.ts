import { guardFlag, type GuardSpec } from '../guardrails/guards.ts';
import type {
  CreateAttackInput,
  CreateAttackRequest,
  CreateKubernetesAttackInput,
  InfraCommandType,
} from '../client/index.ts';

/** Which clients an attack hits, as the person chose it (target flags or the builder modal). */
export type AttackTarget =
  | { kind: 'all' }
  | { kind: 'hosts'; ids: string[] }
  | { kind: 'containers'; ids: string[] }
  | { kind: 'tags'; tags: Record<string, string>; count?: number | undefined }
  | { kind: 'labels'; labels: Record<string, string>; count?: number | undefined }
  | {
      kind: 'service';
      serviceId: string;
      /** Attack a random share of the service's targets (sampling); all of them when absent. */
      percent?: number | undefined;
      /** Targets that join the service while the attack runs are attacked too. */
      includeNewTargets?: boolean | undefined;
    }
  | { kind: 'kubernetes'; objects: KubernetesObjectRef[]; count?: number | undefined; percent?: number | undefined };

/** One Kubernetes object an attack acts on, as `cluster/namespace/kind/name` names it. */
export interface KubernetesObjectRef {
  clusterId: string;
  namespace: string;
  kind: string;
  name: string;
}

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
const targetCountFlag = '--target-count';

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

/** A fully checked attack, ready for the preview and then for the platform. */
export interface AttackRequest {
  /** The attack type, as `command.type` (e.g. `cpu`). */
  type: string;
  /** The attack's own flags and values exactly as given, in order. */
  args: string[];
  target: AttackTarget;
  /** `--team` as typed; resolved against the person's own teams before use. */
  team: string | undefined;
  /** `--yes`: start without the preview. */
  yes: boolean;
  /** How long it runs: the given length or the type's default; undefined for types without one. */
  lengthSeconds: number | undefined;
  /** `--guard`: health signals that refuse the start when unhealthy and halt the attack when they fire. */
  guards?: GuardSpec[] | undefined;
}

/**
 * The words after `attack` that give the same request: type, its own flags in order, target
 * flags, `--team`, guards and `--yes`. Read again by the attack parser, they give this request.
 */
export function requestWords(request: AttackRequest): string[] {
  return [
    request.type,
    ...request.args,
    ...targetFlagWords(request.target),
    ...(request.team !== undefined ? ['--team', request.team] : []),
    ...(request.guards ?? []).flatMap((g) => ['--guard', guardFlag(g)]),
    ...(request.yes ? ['--yes'] : []),
  ];
}

/** The `target` of `POST /attacks/new` (platform-api.md, attack creation payload). */
export function targetPayload(
  target: Exclude<AttackTarget, { kind: 'service' | 'kubernetes' }>,
): CreateAttackInput['target'] {
  switch (target.kind) {
    case 'all':
      return { type: 'Random' };
    case 'hosts':
      return { type: 'Exact', hosts: { ids: target.ids } };
    case 'containers':
      return { type: 'Exact', containers: { ids: target.ids } };
    case 'tags':
      return { type: 'Random', tags: target.tags, ...(target.count !== undefined ? { exact: target.count } : {}) };
    case 'labels':
      return {
        type: 'Random',
        containers: { labels: target.labels },
        ...(target.count !== undefined ? { exact: target.count } : {}),
      };
  }
}

const infraCommandTypes: Record<string, InfraCommandType> = {
  cpu: 'CPU',
  memory: 'Memory',
  io: 'IO',
  disk: 'Disk',
  blackhole: 'Blackhole',
  dns: 'DNS',
  latency: 'Latency',
  packet_loss: 'Packet_Loss',
  shutdown: 'Shutdown',
  time_travel: 'Time_Travel',
  process_killer: 'Process_Killer',
  process_exhaustion: 'Process_Exhaustion',
  collect_certs: 'Collect_Certs',
};

/** The `POST /attacks` body for an attack on a service (platform-contract.md). */
export function serviceAttackPayload(request: AttackRequest & { target: { kind: 'service' } }): CreateAttackRequest {
  const infraCommandType = infraCommandTypes[request.type];
  if (!infraCommandType) throw new Error(`No service attack type for ${request.type}`);
  return {
    attackConfiguration: {
      command: { infraCommandType, infraCommandArgs: { cliArgs: [request.type, ...request.args] } },
      targets: [{ serviceId: request.target.serviceId, targetingStrategy: { type: 'All' } }],
      ...(request.target.percent !== undefined
        ? { sampling: { type: 'Percent', percent: request.target.percent } }
        : {}),
    },
    includeNewTargets: request.target.includeNewTargets ?? false,
  };
}

/** The `POST /kubernetes/attacks/new` body (platform-contract.md, Kubernetes attacks). */
export function kubernetesAttackPayload(
  request: AttackRequest & { target: { kind: 'kubernetes' } },
): CreateKubernetesAttackInput {
  const { objects, count, percent } = request.target;
  return {
    impactDefinition: { cliArgs: [request.type, ...request.args] },
    targetDefinition: {
      strategy: {
        k8sObjects: objects.map(({ clusterId, namespace, kind, name }) => ({ clusterId, namespace, kind, name })),
        ...(count !== undefined ? { count } : {}),
        ...(percent !== undefined ? { percentage: percent } : {}),
      },
    },
  };
}

/** Whether an attack type can be run against a service through `POST /attacks`. */
export function runsOnServices(type: string): boolean {
  return type in infraCommandTypes;
}
