import { guardFlag, type GuardSpec } from '../guardrails/guards.ts';
import { targetFlagWords } from './targetFlags.ts';
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
