/** The simulator's records in the platform's wire format (platform-contract.md). */
import { isoTime } from './clock.ts';
import { executionStageAt, stageAt, type StageAt } from './stages.ts';
import type { Alert, Attack, KubernetesAttack, Monitor, TrackerIssue } from './state.ts';

/** The fields every kind of attack record opens with: which attack, whose, and its stage. */
function attackHead(attack: Attack | KubernetesAttack, stage: StageAt) {
  return { guid: attack.guid, org_id: attack.teamId, stage: stage.stage, stage_lifecycle: stage.lifecycle };
}

/** Who halted the attack and why, once it has been halted. */
function haltFields(attack: Attack | KubernetesAttack) {
  return attack.halt
    ? {
        halt_reason: attack.halt.reason ?? null,
        halt_reference: attack.halt.reference ?? null,
        halted_by: attack.halt.by,
      }
    : {};
}

const endTime = (stage: StageAt) => (stage.endTime === null ? null : isoTime(stage.endTime));

export function taskResponse(attack: Attack, now: number, stageMs: number) {
  const stage = stageAt(attack.timeline, now, stageMs);
  return {
    ...attackHead(attack, stage),
    args: attack.args,
    infra_command: { type: attack.type, args: attack.args },
    infra_target: attack.infraTarget,
    target_type: attack.targetType,
    targets: attack.targets,
    total_clients: attack.targets.length,
    create_source: attack.createSource,
    create_user: attack.createUser,
    source: attack.source,
    annotations: attack.annotations,
    created_at: isoTime(attack.timeline.createdAt),
    updated_at: isoTime(Math.max(stage.since, attack.annotatedAt ?? 0)),
    start_time: isoTime(attack.timeline.createdAt),
    end_time: endTime(stage),
    ...haltFields(attack),
  };
}

/** One execution per target; each follows its attack's stages, except a target a halt did not reach. */
export function executionResponses(attack: Attack | KubernetesAttack, now: number, stageMs: number) {
  const targetType = 'targetType' in attack ? attack.targetType : 'Kubernetes';
  return attack.targets.map((clientId, index) => {
    const stage = executionStageAt(attack.timeline, index, now, stageMs);
    return {
      guid: attack.executionIds[index],
      task_id: attack.guid,
      client_id: clientId,
      target_type: targetType,
      stage: stage.stage,
      stage_lifecycle: stage.lifecycle,
      start_time: isoTime(attack.timeline.createdAt),
      end_time: endTime(stage),
      output: executionOutput(stage.stage),
      error: null,
    };
  });
}

function executionOutput(stage: string): string {
  if (stage === 'Successful') return 'Attack finished';
  if (stage === 'UserHalted') return 'Attack halted by user';
  return '';
}

export function kubernetesAttackResponse(attack: KubernetesAttack, now: number, stageMs: number) {
  const stage = stageAt(attack.timeline, now, stageMs);
  return {
    ...attackHead(attack, stage),
    target_type: 'Kubernetes',
    targets: attack.targets,
    create_source: attack.createSource,
    create_user: attack.createUser,
    source: attack.source,
    created_at: isoTime(attack.timeline.createdAt),
    updated_at: isoTime(stage.since),
    start_time: isoTime(attack.timeline.createdAt),
    end_time: endTime(stage),
    ...haltFields(attack),
    impact_definition: { cli_args: attack.cliArgs },
    target_definition: {
      strategy: {
        k8s_objects: attack.objects.map(({ clusterId, namespace, kind, name }) => ({
          cluster_id: clusterId,
          namespace,
          kind,
          name,
        })),
        ...(attack.count !== undefined ? { count: attack.count } : {}),
        ...(attack.percentage !== undefined ? { percentage: attack.percentage } : {}),
      },
    },
  };
}

export function trackerIssueResponse(issue: TrackerIssue) {
  return {
    key: issue.key,
    url: issue.url,
    summary: issue.summary,
    status: issue.status,
    entity: issue.entity,
    created_at: isoTime(issue.createdAt),
  };
}

export function monitorResponse(monitor: Monitor) {
  return {
    id: monitor.id,
    name: monitor.name,
    type: monitor.type,
    overall_state: monitor.state,
    overall_state_modified: isoTime(monitor.stateChangedAt),
    query: monitor.query,
    tags: monitor.tags,
    message: monitor.message,
  };
}

export function alertResponse(alert: Alert) {
  return {
    name: alert.name,
    state: alert.state,
    labels: alert.labels,
    annotations: alert.annotations,
    active_at: alert.activeAt === undefined ? null : isoTime(alert.activeAt),
  };
}
