import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import { authorize, httpsRequiredText, requiresHttps } from './access.ts';
import type { SimClock } from './clock.ts';
import { controlPrefix } from './control.ts';
import { idpPrefix } from './identityProvider.ts';
import type { Fault, FaultInjector } from './faults.ts';
import { RequestBody, SimHttpError, text, type Query, type Reply, type RequestContext } from './route.ts';
import type { Router } from './routing.ts';
import type { SimState } from './state.ts';

export interface RecordedRequest {
  method: string;
  /** The path after `/v1` (the full path for requests outside it). */
  path: string;
  query: Record<string, string | string[]>;
  teamId?: string;
  /** 0 while unanswered, and for requests that a fault never answers. */
  status: number;
  at: number;
}

export interface ServerDeps {
  router: Router;
  state: SimState;
  clock: SimClock;
  faults: FaultInjector;
  requests: RecordedRequest[];
  stageMs: number;
  /** Answers the control surface under `/_control` (control.ts); its requests are neither recorded nor faulted. */
  control?: (context: RequestContext) => Reply | Promise<Reply>;
  /** Answers the demo identity provider under `/_idp` (identityProvider.ts), outside the platform API alike. */
  identityProvider?: (context: RequestContext) => Reply;
}

const apiPrefix = '/v1';
const maxBodyBytes = 1024 * 1024;

/** The request handler shared by the HTTPS and plain-HTTP servers. */
export function createRequestListener(
  deps: ServerDeps,
  secure: boolean,
): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    handle(deps, secure, request, response).catch((error: unknown) => {
      console.error('The simulator failed to answer a request', error);
      if (!response.headersSent) response.destroy();
    });
  };
}

async function handle(
  deps: ServerDeps,
  secure: boolean,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://simulator.invalid');
  const method = (request.method ?? 'GET').toUpperCase();
  const apiPath = apiPathOf(url.pathname);
  const query = queryOf(url.searchParams);
  const controlPath = controlPathOf(url.pathname);
  if (controlPath !== undefined && deps.control)
    return answerControl(deps, deps.control, request, response, { method, path: controlPath, query });
  const idpPath = pathUnder(url.pathname, idpPrefix);
  if (idpPath !== undefined && deps.identityProvider)
    return answerControl(deps, deps.identityProvider, request, response, { method, path: idpPath, query });
  const teamId = typeof query.teamId === 'string' ? query.teamId : undefined;
  const record: RecordedRequest = {
    method,
    path: apiPath ?? url.pathname,
    query,
    ...(teamId ? { teamId } : {}),
    status: 0,
    at: deps.clock.now(),
  };
  deps.requests.push(record);

  const fault = deps.faults.take(method, record.path);
  if (fault && (await applyFault(fault, deps, request, response, record))) return;

  let reply: Reply;
  try {
    const body = new RequestBody(await readBody(request), request.headers['content-type']);
    reply =
      apiPath === undefined
        ? text(404, 'Not found')
        : await dispatch(deps, secure, { method, apiPath, query, request, body, record });
  } catch (error) {
    if (response.destroyed) return; // the client went away mid-request
    reply = errorReply(error);
  }
  if (fault?.kind === 'lostAnswer') deps.faults.hang(response);
  else send(response, record, reply);
}

/** A control request: outside the platform API, so it leaves no trace in `requests` and no fault touches it. */
async function answerControl(
  deps: ServerDeps,
  control: NonNullable<ServerDeps['control']>,
  request: IncomingMessage,
  response: ServerResponse,
  { method, path, query }: { method: string; path: string; query: Query },
): Promise<void> {
  let reply: Reply;
  try {
    const body = new RequestBody(await readBody(request), request.headers['content-type']);
    reply = await control({
      method,
      path,
      params: {},
      query,
      headers: request.headers,
      body,
      now: deps.clock.now(),
      stageMs: deps.stageMs,
      state: deps.state,
    });
  } catch (error) {
    if (response.destroyed) return;
    reply = errorReply(error);
  }
  if (response.destroyed) return;
  response.writeHead(reply.status, { ...reply.headers, 'content-length': Buffer.byteLength(reply.body) });
  response.end(reply.body);
}

function errorReply(error: unknown): Reply {
  if (error instanceof SimHttpError) {
    const reply = text(error.status, error.message);
    Object.assign(reply.headers, error.headers);
    return reply;
  }
  console.error('The simulator failed to handle a request', error);
  return text(500, 'Internal error');
}

interface Incoming {
  method: string;
  apiPath: string;
  query: Query;
  request: IncomingMessage;
  body: RequestBody;
  record: RecordedRequest;
}

async function dispatch(
  deps: ServerDeps,
  secure: boolean,
  { method, apiPath, query, request, body, record }: Incoming,
): Promise<Reply> {
  if (!secure && requiresHttps(apiPath)) return text(403, httpsRequiredText);
  const match = deps.router.match(method, apiPath);
  if (match.kind === 'none') return text(404, 'Not found');
  if (match.kind === 'wrongMethod') {
    const reply = text(405, 'Method not allowed');
    return { ...reply, headers: { ...reply.headers, allow: match.allowed.join(', ') } };
  }

  const now = deps.clock.now();
  const grant = authorize(match.route.access, { headers: request.headers, query, state: deps.state, now });
  if (grant.team) record.teamId = grant.team.id;
  return match.route.handle(
    {
      method,
      path: apiPath,
      params: match.params,
      query,
      headers: request.headers,
      body,
      now,
      stageMs: deps.stageMs,
      state: deps.state,
    },
    grant,
  );
}

/** Applies a fault; returns true when the request must not be answered normally. */
async function applyFault(
  fault: Fault,
  deps: ServerDeps,
  request: IncomingMessage,
  response: ServerResponse,
  record: RecordedRequest,
): Promise<boolean> {
  switch (fault.kind) {
    case 'latency':
      await deps.faults.delay(fault.ms);
      return response.destroyed;
    case 'hang':
      deps.faults.hang(response);
      return true;
    case 'lostAnswer':
      return false;
    case 'reset':
      request.socket.destroy();
      return true;
    case 'status': {
      request.resume();
      const reply = text(fault.status, fault.body ?? STATUS_CODES[fault.status] ?? 'Error');
      if (fault.retryAfter !== undefined) reply.headers['retry-after'] = String(fault.retryAfter);
      send(response, record, reply);
      return true;
    }
  }
}

function send(response: ServerResponse, record: RecordedRequest, reply: Reply): void {
  if (response.destroyed) return;
  record.status = reply.status;
  response.writeHead(reply.status, { ...reply.headers, 'content-length': Buffer.byteLength(reply.body) });
  response.end(reply.body);
}

function controlPathOf(pathname: string): string | undefined {
  return pathUnder(pathname, controlPrefix);
}

/** The path after `prefix`, or undefined when the request is not under it. */
function pathUnder(pathname: string, prefix: string): string | undefined {
  if (pathname === prefix) return '/';
  return pathname.startsWith(`${prefix}/`) ? pathname.slice(prefix.length) : undefined;
}

function apiPathOf(pathname: string): string | undefined {
  if (pathname === apiPrefix) return '/';
  return pathname.startsWith(`${apiPrefix}/`) ? pathname.slice(apiPrefix.length) : undefined;
}

function queryOf(params: URLSearchParams): Query {
  const query: Query = {};
  for (const key of new Set(params.keys())) {
    const values = params.getAll(key);
    query[key] = values.length === 1 ? (values[0] ?? '') : values;
  }
  return query;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    // The rest of the body stays unread, so the connection cannot be reused.
    if (size > maxBodyBytes) throw new SimHttpError(413, 'Request body too large', { connection: 'close' });
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
