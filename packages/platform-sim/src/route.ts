import type { IncomingHttpHeaders } from 'node:http';
import type { z } from 'zod';
import type { CompanyPrivilege, TeamPrivilege } from './roles.ts';
import type { Company, Session, SimState, Team, User } from './state.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

/** Who may call a route: the privilege column of platform-api.md. */
export type Access =
  | { scope: 'public' }
  | { scope: 'session' }
  | { scope: 'company'; privilege: CompanyPrivilege }
  | { scope: 'team'; privilege: TeamPrivilege };

export type Query = Record<string, string | string[]>;

export interface Caller {
  user: User;
  session: Session;
  company: Company;
}

/** What every handler receives. */
export interface RequestContext {
  method: string;
  /** The path after `/v1`. */
  path: string;
  params: Record<string, string>;
  query: Query;
  headers: IncomingHttpHeaders;
  body: RequestBody;
  now: number;
  stageMs: number;
  state: SimState;
}

/** What the access check established before the handler runs. */
export interface Grant {
  caller?: Caller;
  team?: Team;
}

export type SessionContext = RequestContext & { caller: Caller };
export type TeamContext = SessionContext & { team: Team };

export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface Route {
  method: HttpMethod;
  /** Path after `/v1`; `:name` segments are parameters. */
  path: string;
  access: Access;
  handle(context: RequestContext, grant: Grant): Reply | Promise<Reply>;
}

type Handler<C> = (context: C) => Reply | Promise<Reply>;

export function publicRoute(method: HttpMethod, path: string, handle: Handler<RequestContext>): Route {
  return { method, path, access: { scope: 'public' }, handle: (context) => handle(context) };
}

export function sessionRoute(method: HttpMethod, path: string, handle: Handler<SessionContext>): Route {
  return {
    method,
    path,
    access: { scope: 'session' },
    handle: (context, grant) => handle({ ...context, caller: granted(grant.caller) }),
  };
}

export function companyRoute(
  method: HttpMethod,
  path: string,
  privilege: CompanyPrivilege,
  handle: Handler<SessionContext>,
): Route {
  return {
    method,
    path,
    access: { scope: 'company', privilege },
    handle: (context, grant) => handle({ ...context, caller: granted(grant.caller) }),
  };
}

export function teamRoute(
  method: HttpMethod,
  path: string,
  privilege: TeamPrivilege,
  handle: Handler<TeamContext>,
): Route {
  return {
    method,
    path,
    access: { scope: 'team', privilege },
    handle: (context, grant) => handle({ ...context, caller: granted(grant.caller), team: granted(grant.team) }),
  };
}

function granted<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('The access check did not establish what this route needs');
  return value;
}

export function json(status: number, value: unknown): Reply {
  return { status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(value) };
}

export function text(status: number, body: string): Reply {
  return { status, headers: { 'content-type': 'text/plain; charset=utf-8' }, body };
}

/** An error answer; the server turns it into a plain-text reply. */
export class SimHttpError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(status: number, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.headers = headers;
  }
}

export function badRequest(detail: string): SimHttpError {
  return new SimHttpError(400, `Bad request: ${detail}`);
}

export function notFound(): SimHttpError {
  return new SimHttpError(404, 'Not found');
}

/** The request body, parsed on demand in the format the route expects. */
export class RequestBody {
  readonly raw: string;
  readonly contentType: string;

  constructor(raw: string, contentType: string | undefined) {
    this.raw = raw;
    this.contentType = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  }

  get isEmpty(): boolean {
    return this.raw.trim() === '';
  }

  /** Fields of an `application/x-www-form-urlencoded` body. */
  form(): URLSearchParams {
    if (this.isEmpty) return new URLSearchParams();
    if (this.contentType !== 'application/x-www-form-urlencoded') {
      throw new SimHttpError(415, 'Unsupported media type: send application/x-www-form-urlencoded');
    }
    return new URLSearchParams(this.raw);
  }

  /** A JSON body; `undefined` when the body is empty. */
  json(): unknown {
    if (this.isEmpty) return undefined;
    if (!this.contentType.endsWith('json'))
      throw new SimHttpError(415, 'Unsupported media type: send application/json');
    try {
      return JSON.parse(this.raw) as unknown;
    } catch {
      throw badRequest('the body is not valid JSON');
    }
  }
}

export function queryValue(query: Query, name: string): string | undefined {
  const value = query[name];
  return Array.isArray(value) ? value[0] : value;
}

/** A list parameter, given repeated (`a=1&a=2`) or comma-separated (`a=1,2`). */
export function queryList(query: Query, name: string): string[] {
  const value = query[name];
  const values = value === undefined ? [] : Array.isArray(value) ? value : [value];
  return values
    .flatMap((item) => item.split(','))
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** Validates a request body against a schema; the first problem becomes the 400 text. */
export function parseBody<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = issue?.path.length ? issue.path.join('.') : 'body';
  throw badRequest(`${where}: ${issue?.message ?? 'invalid'}`);
}
