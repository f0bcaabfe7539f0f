/**
 * Response records of platform-contract.md, parsed leniently: unknown fields are kept, and an
 * optional field that is null, missing or of an unexpected type becomes undefined (a list becomes
 * empty) so that it degrades a display instead of failing a command. Only ids the client cannot
 * work without are required. Null is folded into undefined so that callers deal with one "absent".
 */
import { z } from 'zod';
import { isPathId } from './request.ts';

const optionalText = z.string().optional().catch(undefined);
const optionalNumber = z.number().optional().catch(undefined);
const textList = z.array(z.string()).catch([]);
const textRecord = z.record(z.string(), z.string()).optional().catch(undefined);

/**
 * Tags and labels, which select targets: a value sent as a number or boolean is kept as text and
 * only a value that cannot be text is dropped, so that one odd tag does not hide a host's others.
 */
const labelRecord = z
  .record(z.string(), z.unknown())
  .catch({})
  .transform((record) =>
    Object.fromEntries(
      Object.entries(record).flatMap(([key, value]) =>
        typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
          ? [[key, String(value)]]
          : [],
      ),
    ),
  );

/** Some endpoints answer JSON with a `text/plain` content type. */
function parseIfJsonText(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

// Sessions

export const teamEntrySchema = z.looseObject({
  identifier: z.string(),
  name: optionalText,
  company_id: optionalText,
  roles: textList,
  privileges: textList,
});

export const companySessionSchema = z.looseObject({
  header: z.string(),
  token: optionalText,
  renew_token: optionalText,
  expires_at: optionalText,
  identifier: optionalText,
  company_id: optionalText,
  company_name: optionalText,
  roles: textList,
  privileges: textList,
  teams: z.array(teamEntrySchema).catch([]),
  last_login: optionalText,
});

// Attacks

export const attackSchema = z.looseObject({
  guid: z.string(),
  org_id: optionalText,
  stage: optionalText,
  stage_lifecycle: optionalText,
  args: textList,
  infra_command: z.looseObject({ type: optionalText, args: textList }).optional().catch(undefined),
  infra_target: z.record(z.string(), z.unknown()).optional().catch(undefined),
  target_type: optionalText,
  targets: textList,
  total_clients: optionalNumber,
  create_source: optionalText,
  create_user: optionalText,
  source: optionalText,
  annotations: textRecord,
  created_at: optionalText,
  updated_at: optionalText,
  start_time: optionalText,
  end_time: optionalText,
});

/** Halts answer 202 with a possibly empty array, or with no body at all. */
export const attackListSchema = z.preprocess((value) => (value === '' ? [] : value), z.array(attackSchema));

/**
 * One attack's halt: the attacks it stopped (an empty array when the attack was no longer
 * running), or undefined when the platform answered without a body and so did not say.
 */
export const haltAnswerSchema = z.preprocess(
  (value) => (value === '' ? undefined : value),
  z.array(attackSchema).optional(),
);

/** The paged wrapper `{ items, pageSize, pageToken }`; `page_token` is accepted too. */
export function pagedSchema<Item extends z.ZodType>(item: Item) {
  return z.looseObject({
    items: z.array(item),
    pageSize: optionalNumber,
    pageToken: optionalText,
    page_token: optionalText,
  });
}

export const executionSchema = z.looseObject({
  guid: optionalText,
  task_id: optionalText,
  client_id: optionalText,
  target_type: optionalText,
  stage: optionalText,
  stage_lifecycle: optionalText,
  start_time: optionalText,
  end_time: optionalText,
  output: optionalText,
  error: optionalText,
});

export const attackForServiceSchema = z.looseObject({
  attackId: z.string(),
  serviceId: optionalText,
  type: optionalText,
});

/** POST /attacks answers "JSON or plain text". */
export const attackForServiceListSchema = z.preprocess(parseIfJsonText, z.array(attackForServiceSchema));

/**
 * The id a create answers with: the bare guid as text (sometimes quoted), or, leniently, an
 * object carrying it.
 */
export const createdIdSchema = z.preprocess(
  (value) => {
    const parsed = parseIfJsonText(typeof value === 'string' ? value.trim() : value);
    if (parsed !== null && typeof parsed === 'object') {
      const record = parsed as Record<string, unknown>;
      return record['guid'] ?? record['id'] ?? record['attackId'];
    }
    return parsed;
  },
  // An id, not any text: a proxy's error page answered with 201 must not become an attack id.
  z.string().trim().refine(isPathId, 'expected an attack id'),
);

// Clients

/** A host a team's agent reports (GET /clients), with its containers; `identifier` is the host name. */
export const teamClientSchema = z.looseObject({
  identifier: z.string(),
  /** False for an agent not seen lately, which an attack does not target; absent when the platform did not say. */
  active: z.boolean().optional().catch(undefined),
  tags: labelRecord,
  containers: z.array(z.looseObject({ id: optionalText, name: optionalText, labels: labelRecord })).catch([]),
  last_seen: optionalText,
});

// Kubernetes

export const k8sObjectSchema = z.looseObject({
  cluster_id: optionalText,
  namespace: optionalText,
  kind: optionalText,
  name: optionalText,
});

export const kubernetesAttackSchema = z
  .looseObject({
    guid: z.string(),
    stage: optionalText,
    stage_lifecycle: optionalText,
    created_at: optionalText,
    end_time: optionalText,
    targets: z.array(z.string()).optional().catch(undefined),
    total_clients: optionalNumber,
    impact_definition: z.looseObject({ cli_args: textList }).optional().catch(undefined),
    target_definition: z
      .looseObject({
        strategy: z
          .looseObject({ k8s_objects: z.array(k8sObjectSchema).catch([]) })
          .optional()
          .catch(undefined),
      })
      .optional()
      .catch(undefined),
  })
  // The record names its resolved targets but, unlike a TaskResponse, may not count them: cards show the count.
  .transform((attack) => ({ ...attack, total_clients: attack.total_clients ?? attack.targets?.length }));

// Tracker

export const trackerEntityTypes = ['SCENARIO_RUN', 'GAME_DAY', 'SERVICE', 'ATTACK', 'SCENARIO'] as const;

export const trackerIssueSchema = z.looseObject({
  key: z.string(),
  url: optionalText,
  summary: optionalText,
  status: optionalText,
  entity: z.looseObject({ id: optionalText, type: optionalText }).optional().catch(undefined),
  created_at: optionalText,
});

export const createdIssueSchema = z.looseObject({ key: z.string(), url: optionalText });

/** A JSON number, leniently also `{ count }` or the number as text. */
export const issueCountSchema = z.preprocess((value) => {
  const parsed = parseIfJsonText(value);
  return parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>)['count'] : parsed;
}, z.number().int().nonnegative());

export const issueFieldSchema = z.looseObject({
  key: z.string(),
  name: optionalText,
  required: z.boolean().catch(false),
  type: optionalText,
  allowedValues: z
    .array(
      z.looseObject({
        id: z.union([z.string(), z.number()]).transform(String),
        name: optionalText,
        value: optionalText,
      }),
    )
    .catch([]),
});

export const issueMetaSchema = z.looseObject({
  project: z.looseObject({ id: optionalText, key: optionalText, name: optionalText }).optional().catch(undefined),
  issuetype: z.looseObject({ id: optionalText, name: optionalText }).optional().catch(undefined),
  fields: z.array(issueFieldSchema).catch([]),
});

// Monitoring

/** An id the platform may send as a number or as text; kept as text. */
const idText = z.union([z.string(), z.number()]).transform(String);

export const monitorASchema = z.looseObject({
  id: idText,
  name: optionalText,
  type: optionalText,
  overall_state: optionalText,
  overall_state_modified: optionalText,
  query: optionalText,
  tags: textList,
  message: optionalText,
});

export const monitorSearchASchema = z.looseObject({
  monitors: z.array(monitorASchema).catch([]),
  metadata: z
    .looseObject({ page: optionalNumber, per_page: optionalNumber, total_count: optionalNumber })
    .optional()
    .catch(undefined),
});

export const alertBSchema = z.looseObject({
  name: z.string(),
  state: optionalText,
  labels: textRecord,
  annotations: textRecord,
  active_at: optionalText,
});

export type TeamEntry = z.infer<typeof teamEntrySchema>;
export type CompanySession = z.infer<typeof companySessionSchema>;
export type Attack = z.infer<typeof attackSchema>;
export type Execution = z.infer<typeof executionSchema>;
export type TeamClient = z.infer<typeof teamClientSchema>;
export type AttackForServiceResponse = z.infer<typeof attackForServiceSchema>;
export type KubernetesAttack = z.infer<typeof kubernetesAttackSchema>;
export type TrackerEntityType = (typeof trackerEntityTypes)[number];
export type TrackerIssue = z.infer<typeof trackerIssueSchema>;
export type CreatedIssue = z.infer<typeof createdIssueSchema>;
export type IssueField = z.infer<typeof issueFieldSchema>;
export type IssueMeta = z.infer<typeof issueMetaSchema>;
export type MonitorA = z.infer<typeof monitorASchema>;
export type MonitorSearchA = z.infer<typeof monitorSearchASchema>;
export type AlertB = z.infer<typeof alertBSchema>;
