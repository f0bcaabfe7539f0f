import { describe, expect, it } from 'vitest';
import {
  BadRequestError,
  errorFromResponse,
  ForbiddenError,
  NoIntegrationError,
  NotFoundError,
  parsePrivilege,
  PlatformError,
  RateLimitedError,
  ServerError,
  UnauthorizedError,
} from '../../src/client/errors.ts';

const read = { method: 'GET', path: '/attacks/abc' };

describe('errorFromResponse: status and body to class', () => {
  it.each([
    { status: 401, body: 'Please provide proper credentials in the Authorization header', type: UnauthorizedError },
    { status: 403, body: 'User requires privilege for target team: HALT_WRITE', type: ForbiddenError },
    { status: 404, body: 'Not found', type: NotFoundError },
    { status: 404, body: 'No integration exists', type: NoIntegrationError },
    { status: 429, body: 'Too many requests', type: RateLimitedError },
    { status: 400, body: '"Bad arguments"', type: BadRequestError },
    { status: 422, body: 'Bad request', type: BadRequestError },
    { status: 415, body: 'Unsupported media type', type: BadRequestError },
    { status: 500, body: 'java.lang.NullPointerException at ...', type: ServerError },
    { status: 503, body: '', type: ServerError },
    { status: 409, body: 'Conflict', type: PlatformError },
  ])('$status "$body" -> $type.name', ({ status, body, type }) => {
    const error = errorFromResponse({ status, body }, read);
    expect(error).toBeInstanceOf(type);
    expect(error.name).toBe(type.name);
    expect(error.status).toBe(status);
    expect(error.method).toBe('GET');
    expect(error.path).toBe('/attacks/abc');
  });

  it('keeps a NoIntegrationError a NotFoundError', () => {
    expect(errorFromResponse({ status: 404, body: 'No integration exists' }, read)).toBeInstanceOf(NotFoundError);
  });

  it.each([
    ['/tracker/issues', 'tracker', 'The company has no issue-tracker integration'],
    ['/monitoringA/monitors/12', 'monitoringA', 'The company has no monitoringA integration'],
    ['/monitoringB/alerts', 'monitoringB', 'The company has no monitoringB integration'],
    ['/attacks/abc', undefined, 'The company has no integration'],
  ])('names the missing integration of %s', (path, integration, words) => {
    const error = errorFromResponse(
      { status: 404, body: 'No integration exists' },
      { method: 'GET', path },
    ) as NoIntegrationError;
    expect(error.integration).toBe(integration);
    expect(error.message).toMatch(new RegExp(`^${words} \\(`));
  });

  it('carries the request id and the Retry-After wait', () => {
    const error = errorFromResponse({ status: 429, body: '', retryAfterMs: 3000 }, { ...read, requestId: 'req-1' });
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterMs).toBe(3000);
    expect(error.requestId).toBe('req-1');
  });
});

describe('errorFromResponse: 401 reasons', () => {
  const login = { method: 'POST', path: '/users/auth' };
  it.each([
    { call: login, body: 'MFA token required', reason: 'mfa_required' },
    {
      call: { method: 'POST', path: '/users/auth/mfa/auth' },
      body: 'Invalid credentials',
      reason: 'invalid_credentials',
    },
    { call: login, body: 'Invalid credentials', reason: 'invalid_credentials' },
    { call: login, body: '', reason: 'invalid_credentials' },
    { call: read, body: 'Please provide proper credentials in the Authorization header', reason: 'session' },
    { call: read, body: 'Session expired', reason: 'session' },
  ])('$call.method $call.path "$body" -> $reason', ({ call, body, reason }) => {
    const error = errorFromResponse({ status: 401, body }, call);
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect((error as UnauthorizedError).reason).toBe(reason);
  });
});

describe('errorFromResponse: 403', () => {
  it.each([
    ['User requires privilege for target team: HALT_WRITE', 'HALT_WRITE'],
    ['User requires privilege: HALT_ALL', 'HALT_ALL'],
    ['"User requires privilege: ROLES_WRITE"', 'ROLES_WRITE'],
    ['User requires privilege: EXPERIMENTS_RUN.\n', 'EXPERIMENTS_RUN'],
    ['Forbidden', undefined],
    ['Nope: <script>alert(1)</script>', undefined],
  ])('%j names privilege %j', (body, privilege) => {
    expect(parsePrivilege(body)).toBe(privilege);
    const error = errorFromResponse({ status: 403, body }, read) as ForbiddenError;
    expect(error.privilege).toBe(privilege);
    expect(error.httpsRequired).toBe(false);
  });

  it('recognises the plain-HTTP refusal of auth calls', () => {
    const error = errorFromResponse(
      { status: 403, body: 'Please retry using HTTPS' },
      { method: 'POST', path: '/users/auth' },
    );
    expect(error).toBeInstanceOf(ForbiddenError);
    expect((error as ForbiddenError).httpsRequired).toBe(true);
    expect((error as ForbiddenError).privilege).toBeUndefined();
  });
});

describe('error messages', () => {
  const secretBody = 'stack trace with Bearer 0c2b-secret-token and password=hunter2';
  it.each([400, 401, 403, 404, 409, 429, 500, 503])('never contain the body (status %i)', (status) => {
    const error = errorFromResponse({ status, body: secretBody }, read);
    expect(error.message).not.toContain('secret');
    expect(error.message).not.toContain('hunter2');
    expect(error.message).not.toContain('stack');
    expect(error.message).toContain('GET /attacks/abc');
    expect(String(error)).not.toContain('hunter2');
  });

  it('names the missing privilege', () => {
    const error = errorFromResponse({ status: 403, body: 'User requires privilege for target team: HALT_WRITE' }, read);
    expect(error.message).toContain('HALT_WRITE');
  });
});

describe('errorFromResponse: 400 naming a field', () => {
  const call = { method: 'POST', path: '/tracker/issues' };
  it.each([
    ['Bad request: field "priority" is required', 'priority'],
    ['Bad request: field "customfield_10050" must be one of its allowed values', 'customfield_10050'],
    ['"Bad request: field labels is invalid"', 'labels'],
    ['Bad request', undefined],
    ['Bad request: field "<script>" is required', undefined],
  ])('%s → %s', (body, field) => {
    const error = errorFromResponse({ status: 400, body }, call);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).field).toBe(field);
    expect(error.message).not.toContain('Bad request:');
  });
});
