import { z } from 'zod';
import { trackerIssueResponse } from '../records.ts';
import {
  badRequest,
  json,
  notFound,
  parseBody,
  queryList,
  queryValue,
  SimHttpError,
  teamRoute,
  type Route,
  type TeamContext,
} from '../route.ts';
import type { Team, TrackerIssue } from '../state.ts';
import {
  trackerFields,
  trackerIssueTypes,
  trackerLabels,
  trackerProjects,
  type TrackerField,
} from '../trackerCatalogue.ts';

export const noIntegrationText = 'No integration exists';

const entityTypes = ['SCENARIO_RUN', 'GAME_DAY', 'SERVICE', 'ATTACK', 'SCENARIO'] as const;

export const trackerRoutes: Route[] = [
  teamRoute('GET', '/tracker/issues', 'INTEGRATIONS_READ', listIssues),
  teamRoute('POST', '/tracker/issues', 'INTEGRATIONS_WRITE', createIssue),
  teamRoute('GET', '/tracker/issues/count', 'MINIMUM_TEAM_PRIVILEGES', countIssues),
  teamRoute('GET', '/tracker/issue-meta', 'MINIMUM_TEAM_PRIVILEGES', issueMeta),
  teamRoute('GET', '/tracker/issues/services', 'INTEGRATIONS_READ', issuesOfEntity),
  teamRoute('GET', '/tracker/labels', 'MINIMUM_TEAM_PRIVILEGES', listLabels),
];

function integrationOf(team: Team): { baseUrl: string } {
  if (!team.tracker) throw new SimHttpError(404, noIntegrationText);
  return team.tracker;
}

function issuesOfTeam({ state, team }: TeamContext): TrackerIssue[] {
  integrationOf(team);
  return state.trackerIssues.filter((issue) => issue.teamId === team.id);
}

function issuesForEntityIds(context: TeamContext): TrackerIssue[] {
  const issues = issuesOfTeam(context);
  const ids = new Set(queryList(context.query, 'platformEntityIds'));
  if (ids.size === 0) throw badRequest('platformEntityIds is required');
  return issues.filter((issue) => ids.has(issue.entity.id));
}

function listIssues(context: TeamContext) {
  return json(200, issuesForEntityIds(context).map(trackerIssueResponse));
}

function countIssues(context: TeamContext) {
  return json(200, issuesForEntityIds(context).length);
}

function issuesOfEntity(context: TeamContext) {
  const issues = issuesOfTeam(context);
  const id = queryValue(context.query, 'platformEntityId');
  const type = queryValue(context.query, 'type');
  if (!id) throw badRequest('platformEntityId is required');
  if (!type || !(entityTypes as readonly string[]).includes(type))
    throw badRequest(`type must be one of ${entityTypes.join(', ')}`);
  return json(
    200,
    issues.filter((issue) => issue.entity.id === id && issue.entity.type === type).map(trackerIssueResponse),
  );
}

function listLabels({ team }: TeamContext) {
  integrationOf(team);
  return json(200, trackerLabels);
}

function issueMeta({ query, team }: TeamContext) {
  integrationOf(team);
  const projectId = queryValue(query, 'projectId');
  const issueTypeId = queryValue(query, 'issueTypeId');
  if (!projectId || !issueTypeId) throw badRequest('projectId and issueTypeId are required');
  const project = trackerProjects.find((candidate) => candidate.id === projectId);
  const issueType = trackerIssueTypes.find((candidate) => candidate.id === issueTypeId);
  if (!project || !issueType) throw notFound();
  return json(200, { project, issuetype: issueType, fields: trackerFields(project, issueType) });
}

const createIssueSchema = z.looseObject({
  entity: z.looseObject({ id: z.string().min(1), type: z.enum(entityTypes) }),
  fields: z.looseObject({
    summary: z.string().trim().min(1),
    description: z.string().optional(),
    project: z.looseObject({ id: z.string() }),
    issuetype: z.looseObject({ id: z.string() }),
    labels: z.array(z.string()).optional(),
  }),
});

const optionValueSchema = z.looseObject({ id: z.string() });

/** Required fields must be present, and option fields must hold one of their allowed values. */
function checkFields(definitions: readonly TrackerField[], fields: Record<string, unknown>): void {
  for (const field of definitions) {
    const value = fields[field.key];
    if (value === undefined || value === null) {
      if (field.required) throw badRequest(`field "${field.key}" is required`);
      continue;
    }
    const chosen = field.type === 'option' ? optionValueSchema.safeParse(value) : undefined;
    if (chosen && (!chosen.success || !field.allowedValues?.some((option) => option.id === chosen.data.id))) {
      throw badRequest(`field "${field.key}" must be one of its allowed values`);
    }
  }
}

function createIssue({ body, state, team, now }: TeamContext) {
  const tracker = integrationOf(team);
  const { entity, fields } = parseBody(createIssueSchema, body.json());
  const project = trackerProjects.find((candidate) => candidate.id === fields.project.id);
  const issueType = trackerIssueTypes.find((candidate) => candidate.id === fields.issuetype.id);
  if (!project) throw badRequest(`unknown project "${fields.project.id}"`);
  if (!issueType) throw badRequest(`unknown issue type "${fields.issuetype.id}"`);
  if (
    entity.type === 'ATTACK' &&
    !state.attackOf(team.id, entity.id) &&
    !state.kubernetesAttackOf(team.id, entity.id)
  ) {
    throw badRequest(`no attack "${entity.id}" in this team`);
  }
  checkFields(trackerFields(project, issueType), fields);

  const key = nextIssueKey(state.trackerIssues, team, project.key);
  const issue: TrackerIssue = {
    key,
    url: `${tracker.baseUrl}/browse/${key}`,
    teamId: team.id,
    summary: fields.summary,
    description: fields.description ?? '',
    status: 'To Do',
    entity: { id: entity.id, type: entity.type },
    fields,
    createdAt: now,
  };
  state.trackerIssues.push(issue);
  return json(200, { key: issue.key, url: issue.url });
}

function nextIssueKey(issues: readonly TrackerIssue[], team: Team, projectKey: string): string {
  const taken = issues.filter((issue) => issue.teamId === team.id && issue.key.startsWith(`${projectKey}-`)).length;
  return `${projectKey}-${taken + 1}`;
}
