/** Request bodies of platform-contract.md: ours, so plain types (the platform validates them). */
import type { TrackerEntityType } from './schemas.ts';

/** Legacy `POST /attacks/new` payload (platform-api.md, Resources). */
export interface CreateAttackInput {
  command: { type: string; args?: string[] };
  target: {
    type: 'Random' | 'Exact';
    tags?: Record<string, string>;
    /** Host names with `Exact`, or how many containers to pick with `Random`. */
    exact?: string[] | number;
    hosts?: { ids: string[] };
    containers?: { ids?: string[]; labels?: Record<string, string> };
  };
  labels?: Record<string, string>;
}

export type InfraCommandType =
  | 'CPU'
  | 'Memory'
  | 'IO'
  | 'Disk'
  | 'Blackhole'
  | 'DNS'
  | 'Latency'
  | 'Packet_Loss'
  | 'Shutdown'
  | 'Time_Travel'
  | 'Process_Killer'
  | 'Process_Exhaustion'
  | 'Collect_Certs';

/** `POST /attacks` payload for attacks on a service. */
export interface CreateAttackRequest {
  attackConfiguration: {
    command: { infraCommandType: InfraCommandType; infraCommandArgs: { cliArgs: string[] } };
    targets: { serviceId: string; targetingStrategy: { type: string } }[];
    sampling?: { type: string; percent?: number; count?: number };
  };
  includeNewTargets?: boolean;
}

export interface HaltRequest {
  reason?: string;
  reference?: string;
}

export interface CreateKubernetesAttackInput {
  impactDefinition: { cliArgs: string[] };
  targetDefinition: {
    strategy: {
      k8sObjects: { clusterId: string; namespace: string; kind: string; name: string }[];
      count?: number;
      percentage?: number;
    };
  };
}

export interface CreateTrackerIssueRequest {
  entity: { id: string; type: TrackerEntityType };
  fields: {
    summary: string;
    description?: string;
    project: { id: string };
    issuetype: { id: string };
    priority?: { id: string };
    labels?: string[];
    /** Further fields required by `GET /tracker/issue-meta`. */
    [field: string]: unknown;
  };
}
