import { describe, expect, it } from 'vitest';
import {
  BadRequestError,
  ForbiddenError,
  InvalidResponseError,
  NotFoundError,
  RateLimitedError,
  ServerError,
  TimeoutError,
  UnauthorizedError,
  UnreachableError,
} from '../../src/client/errors.ts';
import { isIdempotentMethod } from '../../src/client/request.ts';
import { defaultRetryPolicy, parseRetryAfter, retryDelay } from '../../src/client/retry.ts';

const call = { method: 'GET', path: '/attacks/active' };
const policy = defaultRetryPolicy;
const highest = () => 0.999_999;
const lowest = () => 0;

describe('retryDelay: which failures are retried', () => {
  const cases: { error: unknown; retried: boolean }[] = [
    { error: new UnreachableError({ ...call, code: 'ECONNRESET', outcomeUnknown: false }), retried: true },
    { error: new ServerError({ ...call, status: 503 }), retried: true },
    { error: new ServerError({ ...call, status: 500 }), retried: true },
    { error: new RateLimitedError({ ...call, status: 429 }), retried: true },
    { error: new TimeoutError({ ...call, outcomeUnknown: false }), retried: true },
    { error: new UnauthorizedError('session', { ...call, status: 401 }), retried: false },
    { error: new ForbiddenError({ ...call, status: 403, privilege: 'HALT_WRITE' }), retried: false },
    { error: new NotFoundError({ ...call, status: 404 }), retried: false },
    { error: new BadRequestError({ ...call, status: 400 }), retried: false },
    { error: new InvalidResponseError({ ...call, status: 200 }), retried: false },
    { error: new TypeError('a bug of ours'), retried: false },
  ];
  it.each(cases)('$error.name (status $error.status) retried: $retried', ({ error, retried }) => {
    const delay = retryDelay({ attempt: 1, error, idempotent: true }, policy, lowest);
    expect(delay !== null).toBe(retried);
  });

  it('never retries a call that is not idempotent, whatever the failure', () => {
    for (const error of [
      new ServerError({ ...call, status: 503 }),
      new RateLimitedError({ ...call, status: 429, retryAfterMs: 10 }),
      new TimeoutError({ ...call, outcomeUnknown: true }),
      new UnreachableError({ ...call, code: 'ECONNREFUSED', outcomeUnknown: false }),
    ]) {
      expect(retryDelay({ attempt: 1, error, idempotent: false }, policy, lowest)).toBeNull();
    }
  });

  it('stops once maxAttempts attempts have been made', () => {
    const error = new ServerError({ ...call, status: 502 });
    expect(retryDelay({ attempt: 2, error, idempotent: true }, policy, lowest)).not.toBeNull();
    expect(retryDelay({ attempt: 3, error, idempotent: true }, policy, lowest)).toBeNull();
    expect(retryDelay({ attempt: 1, error, idempotent: true }, { ...policy, maxAttempts: 1 }, lowest)).toBeNull();
  });
});

describe('isIdempotentMethod', () => {
  it.each([
    ['GET', true],
    ['PUT', true],
    ['DELETE', true],
    ['HEAD', true],
    ['POST', false],
    ['PATCH', false],
  ])('%s -> %s', (method, expected) => {
    expect(isIdempotentMethod(method)).toBe(expected);
  });
});

describe('retryDelay: how long to wait', () => {
  const serverError = new ServerError({ ...call, status: 503 });

  it.each([
    { attempt: 1, ceiling: 250 },
    { attempt: 2, ceiling: 500 },
    { attempt: 3, ceiling: 1000 },
    { attempt: 5, ceiling: 4000 },
    { attempt: 9, ceiling: 4000 },
  ])('attempt $attempt waits in [0, $ceiling)', ({ attempt, ceiling }) => {
    const roomy = { ...policy, maxAttempts: 10 };
    const top = retryDelay({ attempt, error: serverError, idempotent: true }, roomy, highest);
    const bottom = retryDelay({ attempt, error: serverError, idempotent: true }, roomy, lowest);
    expect(bottom).toBe(0);
    expect(top).toBe(ceiling - 1);
  });

  it('scales with the injected random number (full jitter)', () => {
    expect(retryDelay({ attempt: 2, error: serverError, idempotent: true }, policy, () => 0.5)).toBe(250);
  });

  it('waits exactly what Retry-After asks, without jitter', () => {
    const error = new RateLimitedError({ ...call, status: 429, retryAfterMs: 2000 });
    expect(retryDelay({ attempt: 1, error, idempotent: true }, policy, highest)).toBe(2000);
    expect(retryDelay({ attempt: 1, error, idempotent: true }, policy, lowest)).toBe(2000);
  });

  it('caps Retry-After at maxRetryAfterMs', () => {
    const error = new RateLimitedError({ ...call, status: 429, retryAfterMs: 120_000 });
    expect(retryDelay({ attempt: 1, error, idempotent: true }, policy, lowest)).toBe(10_000);
  });

  it('falls back to backoff for a 429 without Retry-After', () => {
    const error = new RateLimitedError({ ...call, status: 429 });
    expect(retryDelay({ attempt: 1, error, idempotent: true }, policy, () => 0.5)).toBe(125);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-20T18:00:00.000Z');
  it.each([
    ['3', 3000],
    [' 0 ', 0],
    ['1.5', 1500],
    ['Fri, 20 Nov 2026 18:00:05 GMT', 5000],
    ['Fri, 20 Nov 2026 17:59:00 GMT', 0],
    ['soon', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('%j -> %j ms', (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });
});
