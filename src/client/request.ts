/**
 * The one place that talks HTTP to the platform: base URL, Authorization header, teamId,
 * timeouts, retries, logging and error mapping. Resource modules only describe calls.
 */
import type { Dispatcher } from 'undici';
import type { z } from 'zod';
import {
  BusyError,
  type CallInfo,
  errorFromResponse,
  InvalidIdError,
  InvalidResponseError,
  PlatformError,
} from './errors.ts';
import { errorCode, parseRetryAfter, type RetryPolicy, retryDelay, transportError } from './retry.ts';

/** The subset of pino the client uses; a pino logger fits as is. */
export interface Logger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** Who a call is made as: `header` is the session's `header` ("Bearer …"). */
export interface CallContext {
  header: string;
  /** Added as `?teamId=` to team-scoped calls (needed with a company session). */
  teamId?: string | undefined;
  /**
   * A background pass's calls (the cards' refresh, the guards' readings): never refused because
   * people's calls are waiting, and not counted with them. A pass reads a bounded set per
   * interval, and a guard that cannot read cannot halt.
   */
  background?: boolean | undefined;
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';
type QueryValue = string | number | boolean | readonly string[] | null | undefined;

export interface RequestSpec<S extends z.ZodType> {
  method: HttpMethod;
  /** Relative to the base URL, e.g. `/attacks/{guid}/halt`: each `{name}` is taken from `params`. */
  path: string;
  /** Ids placed in the path; each must be a valid id (else InvalidIdError, before any request), and is encoded. */
  params?: Record<string, string | number>;
  query?: Record<string, QueryValue>;
  /** Sends the session's Authorization header. */
  session?: CallContext | undefined;
  /** Adds the session's teamId; false for company-level endpoints (halt all, roles, logout). */
  teamScoped?: boolean;
  json?: unknown;
  form?: Record<string, string | undefined>;
  /** Whether repeating the call is harmless; defaults to what the method says (POST: no). */
  idempotent?: boolean;
  /**
   * A halt: never refused because other calls are waiting, and sent over connections of its own,
   * so it never queues behind reads on a platform that has slowed down.
   */
  urgent?: boolean;
  /** Validates the body: parsed JSON when the content type is JSON, otherwise the text. */
  schema: S;
}

export type Request = <S extends z.ZodType>(spec: RequestSpec<S>) => Promise<z.output<S>>;

export interface TransportOptions {
  baseUrl: URL;
  dispatcher: Dispatcher;
  /** Carries the urgent calls (halts); default `dispatcher`. */
  urgentDispatcher?: Dispatcher | undefined;
  /**
   * Calls made for people (not urgent, not background) that may be under way at once, waiting
   * for a connection or an answer; one more is refused at once with BusyError, unsent.
   */
  maxWaiting: number;
  timeoutMs: number;
  retry: RetryPolicy;
  logger: Logger;
  sleep: (ms: number) => Promise<void>;
  userAgent: string;
  random?: () => number;
  now?: () => number;
}

/** Methods that are safe to repeat by HTTP semantics; POSTs must opt in one by one. */
export function isIdempotentMethod(method: string): boolean {
  return method === 'GET' || method === 'HEAD' || method === 'PUT' || method === 'DELETE' || method === 'OPTIONS';
}

/**
 * An id that may stand as one path segment, checked where values arrive (button values,
 * private_metadata) and again here before any request: letters, digits, `-` and `_`, starting
 * with a letter or digit. Platform ids (attack guids, Kubernetes uids, team, role and monitor ids)
 * all fit; `.`, `..`, `/`, `%`, `?` and `#` never do, so no id can change which endpoint a path names.
 */
const pathIdPattern = /^[0-9A-Za-z][0-9A-Za-z_-]{0,127}$/;

export function isPathId(value: unknown): value is string {
  return typeof value === 'string' && pathIdPattern.test(value);
}

/** The path with its `{name}` parameters filled in, or InvalidIdError naming the first bad one. */
function expandPath(spec: RequestSpec<z.ZodType>): string {
  return spec.path.replace(/\{(\w+)\}/g, (_whole, name: string) => {
    const value: unknown = spec.params?.[name];
    const text = typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? String(value) : value;
    if (!isPathId(text)) throw new InvalidIdError(name, { method: spec.method, path: spec.path });
    return encodeURIComponent(text);
  });
}

function queryString(spec: RequestSpec<z.ZodType>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(spec.query ?? {})) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const item of value) params.append(name, item);
    else params.append(name, String(value));
  }
  if (spec.teamScoped && spec.session?.teamId) params.append('teamId', spec.session.teamId);
  const text = params.toString();
  return text ? `?${text}` : '';
}

function encodeBody(spec: RequestSpec<z.ZodType>): { body?: string; contentType?: string } {
  if (spec.form) {
    const fields = Object.entries(spec.form).filter((entry): entry is [string, string] => entry[1] !== undefined);
    return { body: new URLSearchParams(fields).toString(), contentType: 'application/x-www-form-urlencoded' };
  }
  if (spec.json !== undefined) return { body: JSON.stringify(spec.json), contentType: 'application/json' };
  return {};
}

function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function isJson(contentType: string | undefined): boolean {
  return contentType !== undefined && /[/+]json\b/i.test(contentType);
}

export function createRequest(options: TransportOptions): Request {
  const { dispatcher, timeoutMs, logger } = options;
  const origin = options.baseUrl.origin;
  const basePath = options.baseUrl.pathname.replace(/\/+$/, '');
  const now = options.now ?? Date.now;

  async function attemptOnce<S extends z.ZodType>(
    spec: RequestSpec<S>,
    idempotent: boolean,
    attempt: number,
  ): Promise<z.output<S>> {
    const call: CallInfo = { method: spec.method, path: spec.path };
    const { body, contentType } = encodeBody(spec);
    const headers: Record<string, string> = {
      accept: 'application/json, text/plain;q=0.9',
      'user-agent': options.userAgent,
    };
    if (spec.session?.header) headers['authorization'] = spec.session.header;
    if (contentType) headers['content-type'] = contentType;

    // One deadline for headers and body together, whatever the dispatcher's own timeouts are. A
    // plain timer, cleared when the body is in: AbortSignal.timeout costs more and lingers until it fires.
    const deadline = new AbortController();
    const signal = deadline.signal;
    const timer = setTimeout(
      () => deadline.abort(new DOMException('The platform did not answer in time', 'TimeoutError')),
      timeoutMs,
    );
    timer.unref();
    const started = performance.now();
    let status: number;
    let text: string;
    let responseHeaders: Record<string, string | string[] | undefined>;
    try {
      const response = await (spec.urgent ? (options.urgentDispatcher ?? dispatcher) : dispatcher).request({
        origin,
        path: basePath + spec.path + queryString(spec),
        method: spec.method,
        headers,
        body: body ?? null,
        signal,
      });
      status = response.statusCode;
      responseHeaders = response.headers;
      text = await response.body.text();
    } catch (error) {
      const mapped = transportError(error, call, signal.aborted, idempotent);
      const durationMs = Math.round(performance.now() - started);
      const outcome = mapped instanceof PlatformError ? mapped.name : 'Error';
      logger.warn(
        { method: spec.method, path: spec.path, error: outcome, code: errorCode(error), durationMs, attempt },
        'platform request failed',
      );
      throw mapped;
    } finally {
      clearTimeout(timer);
    }

    const durationMs = Math.round(performance.now() - started);
    const requestId = headerValue(responseHeaders, 'x-request-id');
    const level = status >= 500 || status === 429 ? 'warn' : 'debug';
    logger[level]({ method: spec.method, path: spec.path, status, durationMs, attempt, requestId }, 'platform request');

    if (status >= 400) {
      const retryAfterMs = parseRetryAfter(headerValue(responseHeaders, 'retry-after'), now());
      throw errorFromResponse({ status, body: text, retryAfterMs }, { ...call, requestId });
    }
    let payload: unknown = text;
    if (isJson(headerValue(responseHeaders, 'content-type')) && text.trim() !== '') {
      try {
        payload = JSON.parse(text);
      } catch {
        throw new InvalidResponseError({ ...call, status, requestId, issues: ['body: not valid JSON'] });
      }
    }
    const parsed = spec.schema.safeParse(payload);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`);
      throw new InvalidResponseError({ ...call, status, requestId, issues });
    }
    return parsed.data;
  }

  async function withRetries<S extends z.ZodType>(spec: RequestSpec<S>): Promise<z.output<S>> {
    const idempotent = spec.idempotent ?? isIdempotentMethod(spec.method);
    for (let attempt = 1; ; attempt++) {
      try {
        return await attemptOnce(spec, idempotent, attempt);
      } catch (error) {
        const delayMs = retryDelay({ attempt, error, idempotent }, options.retry, options.random);
        if (delayMs === null) throw error;
        logger.info({ method: spec.method, path: spec.path, attempt, delayMs }, 'retrying platform request');
        await options.sleep(delayMs);
      }
    }
  }

  // People's calls under way. Past the bound they would only queue for a connection, most of them
  // until their deadline, each holding its command's work in memory; refused, the person hears at once.
  let waiting = 0;
  return async function request<S extends z.ZodType>(template: RequestSpec<S>): Promise<z.output<S>> {
    const spec = { ...template, path: expandPath(template) };
    if (spec.urgent || spec.session?.background) return withRetries(spec);
    if (waiting >= options.maxWaiting) {
      logger.warn({ method: spec.method, path: spec.path, waiting }, 'platform call refused: too many waiting');
      throw new BusyError({ method: spec.method, path: spec.path });
    }
    waiting++;
    try {
      return await withRetries(spec);
    } finally {
      waiting--;
    }
  };
}
