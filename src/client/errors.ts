/**
 * What went wrong talking to the platform. Messages are fixed sentences plus method, path and
 * status: they never carry a response body, a token or a password, so they are safe to log.
 */

/** The call an error belongs to. `path` is relative to the base URL and has no query string. */
export interface CallInfo {
  method: string;
  path: string;
  requestId?: string | undefined;
}

interface ErrorInit extends CallInfo {
  status?: number | undefined;
  cause?: unknown;
}

export class PlatformError extends Error {
  /** The class's own name (`UnauthorizedError`, …), which logs and outcomes report. */
  override name = this.constructor.name;
  readonly status: number | undefined;
  readonly method: string;
  readonly path: string;
  readonly requestId: string | undefined;

  constructor(text: string, init: ErrorInit) {
    const where = [init.method, init.path].filter(Boolean).join(' ');
    const detail = [where, init.status].filter(Boolean).join(', ');
    super(detail ? `${text} (${detail})` : text, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.method = init.method;
    this.path = init.path;
    this.requestId = init.requestId;
  }
}

export type UnauthorizedReason = 'mfa_required' | 'invalid_credentials' | 'session';

const unauthorizedText: Record<UnauthorizedReason, string> = {
  mfa_required: 'An MFA code is required',
  invalid_credentials: 'Wrong e-mail or password',
  session: 'The platform session is missing, expired or revoked',
};

export class UnauthorizedError extends PlatformError {
  readonly reason: UnauthorizedReason;

  constructor(reason: UnauthorizedReason, init: ErrorInit) {
    super(unauthorizedText[reason], init);
    this.reason = reason;
  }
}

export class ForbiddenError extends PlatformError {
  /** The privilege the platform named as missing, e.g. `HALT_WRITE`. */
  readonly privilege: string | undefined;
  /** The platform refused an unauthenticated call made over plain HTTP. */
  readonly httpsRequired: boolean;

  constructor(init: ErrorInit & { privilege?: string | undefined; httpsRequired?: boolean }) {
    super(
      init.httpsRequired
        ? 'The platform only accepts this call over HTTPS'
        : init.privilege
          ? `Missing privilege ${init.privilege}`
          : 'The platform refused the call',
      init,
    );
    this.privilege = init.privilege;
    this.httpsRequired = init.httpsRequired ?? false;
  }
}

export class NotFoundError extends PlatformError {
  constructor(init: ErrorInit, text = 'Not found on the platform') {
    super(text, init);
  }
}

/** The company integrations a call can find missing, each under the first segment of its endpoints' paths. */
const integrationWords = { tracker: 'issue-tracker', monitoringA: 'monitoringA', monitoringB: 'monitoringB' } as const;
export type Integration = keyof typeof integrationWords;

function integrationOf(path: string): Integration | undefined {
  const segment = path.split('/')[1] ?? '';
  return Object.hasOwn(integrationWords, segment) ? (segment as Integration) : undefined;
}

/**
 * The company has no integration (or none of the name or URI given) for the tracker or a
 * monitoring product: a 404 `No integration exists`.
 */
export class NoIntegrationError extends NotFoundError {
  /** Which integration is missing, when the path tells. */
  readonly integration: Integration | undefined;

  constructor(init: ErrorInit) {
    const integration = integrationOf(init.path);
    super(init, `The company has no ${integration ? `${integrationWords[integration]} ` : ''}integration`);
    this.integration = integration;
  }
}

export class RateLimitedError extends PlatformError {
  /** From the `Retry-After` header, when the platform sent one. */
  readonly retryAfterMs: number | undefined;

  constructor(init: ErrorInit & { retryAfterMs?: number | undefined }) {
    super('The platform is rate limiting requests', init);
    this.retryAfterMs = init.retryAfterMs;
  }
}

export class BadRequestError extends PlatformError {
  /** The request field the platform named as wrong (e.g. a tracker field key), when it named one. */
  readonly field: string | undefined;

  constructor(init: ErrorInit & { field?: string | undefined }) {
    super(
      init.field ? `The platform rejected the field ${init.field}` : 'The platform rejected the request as invalid',
      init,
    );
    this.field = init.field;
  }
}

const fieldKey = /^[A-Za-z][A-Za-z0-9_.-]{0,99}$/;

/** The field a 400 body names, as in `Bad request: field "priority" is required`; only a key, never the text. */
function parseField(body: string): string | undefined {
  const match = /\bfield\s+"?([^"\s]+)"?/i.exec(unquote(body.trim()));
  return match?.[1] && fieldKey.test(match[1]) ? match[1] : undefined;
}

export class ServerError extends PlatformError {
  constructor(init: ErrorInit) {
    super('The platform failed to handle the request', init);
  }
}

export class TimeoutError extends PlatformError {
  /** True when the call changes something (a create): it may or may not have taken effect. */
  readonly outcomeUnknown: boolean;

  constructor(init: ErrorInit & { outcomeUnknown: boolean }) {
    super('The platform did not answer in time', init);
    this.outcomeUnknown = init.outcomeUnknown;
  }
}

export class UnreachableError extends PlatformError {
  /** The system or undici error code, e.g. `ECONNREFUSED`. */
  readonly code: string | undefined;
  /**
   * True when a call that changes something lost its connection after it may have been sent
   * (a reset rather than a refused connection): it may or may not have taken effect.
   */
  readonly outcomeUnknown: boolean;

  constructor(init: ErrorInit & { code?: string | undefined; outcomeUnknown: boolean }) {
    super('Could not reach the platform', init);
    this.code = init.code;
    this.outcomeUnknown = init.outcomeUnknown;
  }
}

/**
 * Not sent: as many calls made for people were already waiting on the platform as it can answer
 * in their time (see maxWaitingCalls in index.ts). Nothing happened on the platform.
 */
export class BusyError extends PlatformError {
  constructor(init: ErrorInit) {
    super('Too many calls are waiting on the platform already; this one was not sent', init);
  }
}

/** The body did not match the contract (or was not valid JSON). */
export class InvalidResponseError extends PlatformError {
  /** Where validation failed, e.g. `items.3.guid: expected string`; never the values. */
  readonly issues: string[];

  constructor(init: ErrorInit & { issues?: string[] }) {
    super('The platform sent an unexpected response', init);
    this.issues = init.issues ?? [];
  }
}

/** Thrown at construction for a base URL that would send credentials in clear text. */
export class InsecureUrlError extends PlatformError {
  constructor() {
    super('The platform URL must use https: unless its host is a loopback address', { method: '', path: '' });
  }
}

/**
 * An id that cannot stand as one path segment (`.`, `../x`, a slash, an empty or non-string
 * value): refused before any request, since `/attacks/./halt` would reach `/attacks/halt`.
 */
export class InvalidIdError extends PlatformError {
  /** Which id of the path, e.g. `guid`; never its value. */
  readonly param: string;

  constructor(param: string, call: CallInfo) {
    super(`Not a valid ${param}; nothing was sent`, call);
    this.param = param;
  }
}

/** What the factory needs to know about an unsuccessful response. */
export interface ErrorResponse {
  status: number;
  /** The body as text. Only inspected for the platform's known phrases, never copied. */
  body: string;
  retryAfterMs?: number | undefined;
}

const privilegeName = /^[A-Z][A-Z0-9_]*$/;

/** The privilege named after the last `: ` of a 403 body, e.g. `User requires privilege: HALT_ALL`. */
export function parsePrivilege(body: string): string | undefined {
  const text = unquote(body.trim());
  const at = text.lastIndexOf(': ');
  if (at < 0) return undefined;
  const name = text
    .slice(at + 2)
    .trim()
    .replace(/[."]+$/, '');
  return privilegeName.test(name) ? name : undefined;
}

/** Error bodies are plain text, but some arrive as a JSON string (`"Bad arguments"`). */
function unquote(text: string): string {
  if (text.length >= 2 && text.startsWith('"') && text.endsWith('"')) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed === 'string') return parsed;
    } catch {
      // not JSON after all: keep the text as it came
    }
  }
  return text;
}

function unauthorizedReason(body: string, call: CallInfo): UnauthorizedReason {
  const text = body.toLowerCase();
  if (text.includes('mfa')) return 'mfa_required';
  if (text.includes('invalid credentials') || text.includes('bad credentials')) return 'invalid_credentials';
  // A login answers 401 only for its credentials; anything else means the session is unusable.
  const isLogin = call.method === 'POST' && /^\/users\/auth(\/mfa\/auth)?$/.test(call.path);
  return isLogin ? 'invalid_credentials' : 'session';
}

/** The one place that turns an unsuccessful status and body into an error class. */
export function errorFromResponse(response: ErrorResponse, call: CallInfo): PlatformError {
  const { status, body } = response;
  const init: ErrorInit = { ...call, status };
  if (status === 401) return new UnauthorizedError(unauthorizedReason(body, call), init);
  if (status === 403) {
    return new ForbiddenError({ ...init, privilege: parsePrivilege(body), httpsRequired: /\bhttps\b/i.test(body) });
  }
  if (status === 404) {
    return /no integration/i.test(body) ? new NoIntegrationError(init) : new NotFoundError(init);
  }
  if (status === 429) return new RateLimitedError({ ...init, retryAfterMs: response.retryAfterMs });
  if (status === 400 || status === 415 || status === 422)
    return new BadRequestError({ ...init, field: parseField(body) });
  if (status >= 500) return new ServerError(init);
  return new PlatformError('The platform gave an unexpected status', init);
}
