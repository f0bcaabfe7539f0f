import { z } from 'zod';
import type { CallContext, Request } from './request.ts';
import {
  type CreatedIssue,
  createdIssueSchema,
  issueCountSchema,
  type IssueMeta,
  issueMetaSchema,
  type TrackerEntityType,
  type TrackerIssue,
  trackerIssueSchema,
} from './schemas.ts';

/** `POST /tracker/issues` payload. */
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

export interface TrackerApi {
  /** Issues filed for these platform entities (attack guids, ...). */
  issues(entityIds: string[]): Promise<TrackerIssue[]>;
  /** Files an issue. Never retried: a retry could file it twice. */
  createIssue(request: CreateTrackerIssueRequest): Promise<CreatedIssue>;
  count(entityIds: string[]): Promise<number>;
  /** The fields a project and issue type need to create an issue. */
  issueMeta(projectId: string, issueTypeId: string): Promise<IssueMeta>;
  issuesForEntity(entityId: string, type: TrackerEntityType): Promise<TrackerIssue[]>;
  labels(): Promise<string[]>;
}

export function trackerApi(request: Request, session: CallContext): TrackerApi {
  const team = { session, teamScoped: true } as const;
  return {
    issues: (entityIds) =>
      request({
        ...team,
        method: 'GET',
        path: '/tracker/issues',
        query: { platformEntityIds: entityIds },
        schema: z.array(trackerIssueSchema),
      }),
    createIssue: (body) =>
      request({ ...team, method: 'POST', path: '/tracker/issues', json: body, schema: createdIssueSchema }),
    count: (entityIds) =>
      request({
        ...team,
        method: 'GET',
        path: '/tracker/issues/count',
        query: { platformEntityIds: entityIds },
        schema: issueCountSchema,
      }),
    issueMeta: (projectId, issueTypeId) =>
      request({
        ...team,
        method: 'GET',
        path: '/tracker/issue-meta',
        query: { projectId, issueTypeId },
        schema: issueMetaSchema,
      }),
    issuesForEntity: (entityId, type) =>
      request({
        ...team,
        method: 'GET',
        path: '/tracker/issues/services',
        query: { platformEntityId: entityId, type },
        schema: z.array(trackerIssueSchema),
      }),
    labels: () => request({ ...team, method: 'GET', path: '/tracker/labels', schema: z.array(z.string()) }),
  };
}
