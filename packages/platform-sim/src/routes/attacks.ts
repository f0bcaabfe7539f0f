import { z } from 'zod';
import { validateCommand } from '../attackTypes.ts';
import { attacksOfCompany, haltAll, haltNoteOf, kubernetesAttacksOfCompany } from '../halting.ts';
import {
  defaultPageSize,
  listNewestFirst,
  pagedResponse,
  pageNewestFirst,
  pageSizeOf,
  pageTokenOf,
} from '../paging.ts';
import { executionResponses, taskResponse } from '../records.ts';
import {
  badRequest,
  companyRoute,
  json,
  notFound,
  parseBody,
  queryValue,
  teamRoute,
  text,
  type Query,
  type Route,
  type SessionContext,
  type TeamContext,
} from '../route.ts';
import { isFinished } from '../stages.ts';
import type { Attack, NewAttack } from '../state.ts';
import { activeClientsOf, infraTargetSchema, resolveTargets } from '../targets.ts';

type Which = 'active' | 'completed' | 'all';

export const attackRoutes: Route[] = [
  teamRoute('GET', '/attacks/active', 'EXPERIMENTS_READ', (context) => listAttacks(context, 'active')),
  teamRoute('GET', '/attacks/active/paged', 'EXPERIMENTS_READ', (context) => pageAttacks(context, 'active')),
  teamRoute('PUT', '/attacks/:guid/annotations', 'MINIMUM_TEAM_PRIVILEGES', annotateAttack),
  teamRoute('GET', '/attacks', 'EXPERIMENTS_READ', (context) => listAttacks(context, 'all')),
  teamRoute('POST', '/attacks', 'EXPERIMENTS_RUN', createServiceAttacks),
  companyRoute('DELETE', '/attacks', 'HALT_ALL', haltCompanyAttacks),
  companyRoute('POST', '/attacks/halt', 'HALT_ALL', haltCompanyAttacks),
  teamRoute('GET', '/attacks/range', 'EXPERIMENTS_READ', attacksInRange),
  teamRoute('GET', '/attacks/completed', 'EXPERIMENTS_READ', (context) => listAttacks(context, 'completed')),
  teamRoute('GET', '/attacks/completed/paged', 'EXPERIMENTS_READ', (context) => pageAttacks(context, 'completed')),
  teamRoute('POST', '/attacks/new', 'EXPERIMENTS_RUN', createAttack),
  teamRoute('GET', '/attacks/:guid', 'EXPERIMENTS_READ', getAttack),
  teamRoute('DELETE', '/attacks/:guid', 'HALT_WRITE', haltAttack),
  teamRoute('POST', '/attacks/:guid/halt', 'HALT_WRITE', haltAttack),
  teamRoute('GET', '/executions', 'EXPERIMENTS_READ', listExecutions),
  companyRoute('POST', '/halts', 'HALT_ALL', haltEverything),
];

function keepFor(which: Which, source: Attack['source'] | undefined, now: number, stageMs: number) {
  return (attack: Attack) =>
    (source === undefined || attack.source === source) &&
    (which === 'all' || isFinished(attack.timeline, now, stageMs) === (which === 'completed'));
}

function sourceOf(query: Query): Attack['source'] | undefined {
  const source = queryValue(query, 'source');
  if (source === undefined || source === '') return undefined;
  if (source !== 'Adhoc' && source !== 'Scenario') throw badRequest('source must be Adhoc or Scenario');
  return source;
}

function listAttacks({ query, state, team, now, stageMs }: TeamContext, which: Which) {
  const attacks = listNewestFirst(
    state.attacksOf(team.id),
    keepFor(which, sourceOf(query), now, stageMs),
    pageSizeOf(query, undefined),
  );
  return json(
    200,
    attacks.map((attack) => taskResponse(attack, now, stageMs)),
  );
}

/** The paged forms list ad-hoc attacks only (platform-api.md). */
function pageAttacks({ query, state, team, now, stageMs }: TeamContext, which: Which) {
  const pageSize = pageSizeOf(query, defaultPageSize) ?? defaultPageSize;
  const page = pageNewestFirst(
    state.attacksOf(team.id),
    keepFor(which, 'Adhoc', now, stageMs),
    pageSize,
    pageTokenOf(query),
  );
  return json(
    200,
    pagedResponse(page, pageSize, (attack) => taskResponse(attack, now, stageMs)),
  );
}

function attacksInRange({ query, state, team, now, stageMs }: TeamContext) {
  const start = timeOf(query, 'startTime') ?? Number.NEGATIVE_INFINITY;
  const end = timeOf(query, 'endTime') ?? now;
  const pageSize = pageSizeOf(query, defaultPageSize) ?? defaultPageSize;
  const inRange = (attack: Attack) => attack.timeline.createdAt >= start && attack.timeline.createdAt <= end;
  const page = pageNewestFirst(state.attacksOf(team.id), inRange, pageSize, pageTokenOf(query));
  return json(
    200,
    pagedResponse(page, pageSize, (attack) => taskResponse(attack, now, stageMs)),
  );
}

function timeOf(query: Query, name: string): number | undefined {
  const raw = queryValue(query, name);
  if (raw === undefined || raw === '') return undefined;
  const time = Date.parse(raw);
  if (Number.isNaN(time)) throw badRequest(`${name} must be an ISO 8601 date-time`);
  return time;
}

function findAttack({ state, team, params }: TeamContext): Attack {
  const attack = state.attackOf(team.id, params.guid ?? '');
  if (!attack) throw notFound();
  return attack;
}

function getAttack(context: TeamContext) {
  return json(200, taskResponse(findAttack(context), context.now, context.stageMs));
}

const stringMap = z.record(z.string(), z.string());

const createAttackInputSchema = z.looseObject({
  command: z.looseObject({ type: z.string().min(1), args: z.array(z.string()).optional() }),
  target: infraTargetSchema,
  labels: stringMap.optional(),
});

function createAttack({ body, state, team, caller, now }: TeamContext) {
  const input = parseBody(createAttackInputSchema, body.json());
  const command = validateCommand(input.command.type, input.command.args ?? []);
  const { targetType, targets } = resolveTargets(state, team.id, input.target, input.labels);
  const attack = state.addAttack({
    ...newAttackFields(team.id, command, caller.user.email, now, targets.length === 0),
    infraTarget: input.target,
    targetType,
    targets,
  });
  return text(201, attack.guid);
}

function newAttackFields(
  teamId: string,
  command: { type: string; args: string[]; lengthSeconds: number },
  createUser: string,
  now: number,
  noTarget: boolean,
) {
  return {
    teamId,
    type: command.type,
    args: command.args,
    createSource: 'Api',
    createUser,
    source: 'Adhoc',
    timeline: {
      createdAt: now,
      runMs: command.lengthSeconds * 1000,
      ...(noTarget ? { failure: 'TargetNotFound' } : {}),
    },
  } satisfies Omit<NewAttack, 'infraTarget' | 'targetType' | 'targets'>;
}

const infraCommandTypes = [
  'CPU',
  'Memory',
  'IO',
  'Disk',
  'Blackhole',
  'DNS',
  'Latency',
  'Packet_Loss',
  'Shutdown',
  'Time_Travel',
  'Process_Killer',
  'Process_Exhaustion',
  'Collect_Certs',
] as const;

const createAttackRequestSchema = z.looseObject({
  attackConfiguration: z.looseObject({
    command: z.looseObject({
      infraCommandType: z.enum(infraCommandTypes),
      infraCommandArgs: z.looseObject({ cliArgs: z.array(z.string()).min(1) }),
    }),
    targets: z
      .array(
        z.looseObject({
          serviceId: z.string().min(1),
          // Other targeting strategies exist on the platform; the simulator models only "All".
          targetingStrategy: z.looseObject({ type: z.literal('All') }),
        }),
      )
      .min(1),
    sampling: z.looseObject({ type: z.literal('Percent'), percent: z.number().gt(0).max(100) }).optional(),
  }),
  includeNewTargets: z.boolean().optional(),
});

/** POST /attacks: one attack per service target, on the service's hosts. */
function createServiceAttacks({ body, state, team, caller, now }: TeamContext) {
  const createRequest = body.json();
  const { attackConfiguration: configuration } = parseBody(createAttackRequestSchema, createRequest);
  const [type = '', ...args] = configuration.command.infraCommandArgs.cliArgs;
  if (type !== configuration.command.infraCommandType.toLowerCase()) {
    throw badRequest('infraCommandArgs.cliArgs[0] must be the attack type named by infraCommandType');
  }
  const command = validateCommand(type, args);
  const services = configuration.targets.map((target) => {
    const service = state.serviceOf(team.id, target.serviceId);
    if (!service) throw badRequest(`unknown service "${target.serviceId}"`);
    return { target, service };
  });
  const percent = configuration.sampling?.percent ?? 100;
  const created = services.map(({ target, service }) => {
    const hosts = activeClientsOf(state, team.id)
      .hosts.filter((host) => service.hostIds.includes(host.id))
      .map((host) => host.id);
    const targets = hosts.slice(0, Math.ceil((hosts.length * percent) / 100));
    const attack = state.addAttack({
      ...newAttackFields(team.id, command, caller.user.email, now, targets.length === 0),
      infraTarget: target,
      createRequest,
      targetType: 'Host',
      targets,
    });
    return { serviceId: service.id, type: attack.targetType, attackId: attack.guid };
  });
  return json(201, created);
}

const annotationsSchema = z.union([z.looseObject({ annotations: stringMap }), stringMap]);

/** AttackAnnotationsInputRequest: `{ annotations: {...} }`, or the map itself. */
function annotateAttack(context: TeamContext) {
  const attack = findAttack(context);
  const input = parseBody(annotationsSchema, context.body.json() ?? {});
  const annotations = typeof input.annotations === 'object' ? input.annotations : input;
  Object.assign(attack.annotations, annotations);
  attack.annotatedAt = context.now;
  return json(200, taskResponse(attack, context.now, context.stageMs));
}

function haltAttack(context: TeamContext) {
  const attack = findAttack(context);
  const { now, stageMs } = context;
  const halted = haltAll([attack], haltNoteOf(context.body, context.caller.user.email), now, stageMs, context.state);
  return json(
    202,
    halted.map((each) => taskResponse(each, now, stageMs)),
  );
}

/** Halt-all reaches every team of the caller's company: HALT_ALL is a company privilege. */
function haltCompanyAttacks({ body, state, caller, now, stageMs }: SessionContext) {
  const halted = haltAll(
    attacksOfCompany(state, caller.company.id),
    haltNoteOf(body, caller.user.email),
    now,
    stageMs,
    state,
  );
  return json(
    202,
    halted.map((attack) => taskResponse(attack, now, stageMs)),
  );
}

function haltEverything({ body, state, caller, now, stageMs }: SessionContext) {
  const note = haltNoteOf(body, caller.user.email);
  haltAll(attacksOfCompany(state, caller.company.id), note, now, stageMs, state);
  haltAll(kubernetesAttacksOfCompany(state, caller.company.id), note, now, stageMs, state);
  return text(202, 'Halt triggered');
}

function listExecutions(context: TeamContext) {
  const taskId = queryValue(context.query, 'taskId');
  if (!taskId) throw badRequest('taskId is required');
  // Kubernetes attacks have executions too, one per object they act on.
  const attack =
    context.state.attackOf(context.team.id, taskId) ?? context.state.kubernetesAttackOf(context.team.id, taskId);
  if (!attack) throw notFound();
  return json(200, executionResponses(attack, context.now, context.stageMs));
}
