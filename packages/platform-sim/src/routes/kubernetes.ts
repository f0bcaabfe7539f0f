import { z } from 'zod';
import { validateCommand } from '../attackTypes.ts';
import { haltAll, haltNoteOf, kubernetesAttacksOfCompany } from '../halting.ts';
import { listNewestFirst } from '../paging.ts';
import { kubernetesAttackResponse } from '../records.ts';
import {
  badRequest,
  companyRoute,
  json,
  notFound,
  parseBody,
  queryValue,
  teamRoute,
  text,
  type Route,
  type SessionContext,
  type TeamContext,
} from '../route.ts';
import type { KubernetesAttack } from '../state.ts';
import { kubernetesTargetId, resolveKubernetesTargets } from '../targets.ts';

export const kubernetesRoutes: Route[] = [
  teamRoute('GET', '/kubernetes/attacks/:guid', 'EXPERIMENTS_READ', getKubernetesAttack),
  teamRoute('GET', '/kubernetes/attacks', 'EXPERIMENTS_READ', listKubernetesAttacks),
  teamRoute('POST', '/kubernetes/attacks/new', 'EXPERIMENTS_WRITE', createKubernetesAttack),
  teamRoute('POST', '/kubernetes/attacks/:uid/halt', 'HALT_WRITE', haltKubernetesAttack),
  companyRoute('POST', '/kubernetes/attacks/halt', 'HALT_ALL', haltCompanyKubernetesAttacks),
];

function findKubernetesAttack({ state, team }: TeamContext, guid: string | undefined): KubernetesAttack {
  const attack = state.kubernetesAttackOf(team.id, guid ?? '');
  if (!attack) throw notFound();
  return attack;
}

function getKubernetesAttack(context: TeamContext) {
  return json(
    200,
    kubernetesAttackResponse(findKubernetesAttack(context, context.params.guid), context.now, context.stageMs),
  );
}

function listKubernetesAttacks({ query, state, team, now, stageMs }: TeamContext) {
  const source = queryValue(query, 'source') || undefined;
  if (source !== undefined && source !== 'Adhoc' && source !== 'Scenario')
    throw badRequest('source must be Adhoc or Scenario');
  const attacks = listNewestFirst(
    state.kubernetesAttacksOf(team.id),
    (attack) => source === undefined || attack.source === source,
  );
  return json(
    200,
    attacks.map((attack) => kubernetesAttackResponse(attack, now, stageMs)),
  );
}

const kubernetesAttackSchema = z.looseObject({
  impactDefinition: z.looseObject({ cliArgs: z.array(z.string()).min(1) }),
  targetDefinition: z.looseObject({
    strategy: z
      .looseObject({
        k8sObjects: z
          .array(z.looseObject({ clusterId: z.string(), namespace: z.string(), kind: z.string(), name: z.string() }))
          .min(1),
        count: z.number().int().positive().optional(),
        percentage: z.number().gt(0).max(100).optional(),
      })
      .refine(
        (strategy) => strategy.count === undefined || strategy.percentage === undefined,
        'give count or percentage, not both',
      ),
  }),
});

function createKubernetesAttack({ body, state, team, caller, now }: TeamContext) {
  const createRequest = body.json();
  const input = parseBody(kubernetesAttackSchema, createRequest);
  const [type = '', ...args] = input.impactDefinition.cliArgs;
  const command = validateCommand(type, args);
  const { k8sObjects, count, percentage } = input.targetDefinition.strategy;
  const wanted = k8sObjects.map(({ clusterId, namespace, kind, name }) => ({
    teamId: team.id,
    clusterId,
    namespace,
    kind,
    name,
  }));
  const matched = resolveKubernetesTargets(state, team.id, {
    objects: wanted,
    ...(count !== undefined ? { count } : {}),
    ...(percentage !== undefined ? { percentage } : {}),
  });
  const attack = state.addKubernetesAttack({
    teamId: team.id,
    cliArgs: input.impactDefinition.cliArgs,
    objects: wanted,
    ...(count !== undefined ? { count } : {}),
    ...(percentage !== undefined ? { percentage } : {}),
    createRequest,
    targets: matched.map(kubernetesTargetId),
    createSource: 'Api',
    createUser: caller.user.email,
    source: 'Adhoc',
    timeline: {
      createdAt: now,
      runMs: command.lengthSeconds * 1000,
      ...(matched.length === 0 ? { failure: 'TargetNotFound' as const } : {}),
    },
  });
  return text(201, attack.guid);
}

function haltKubernetesAttack(context: TeamContext) {
  const attack = findKubernetesAttack(context, context.params.uid);
  haltAll([attack], haltNoteOf(context.body, context.caller.user.email), context.now, context.stageMs, context.state);
  return text(202, 'Halt accepted');
}

function haltCompanyKubernetesAttacks({ body, state, caller, now, stageMs }: SessionContext) {
  haltAll(
    kubernetesAttacksOfCompany(state, caller.company.id),
    haltNoteOf(body, caller.user.email),
    now,
    stageMs,
    state,
  );
  return text(202, 'Halt triggered');
}
