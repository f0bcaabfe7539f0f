/**
 * What a failed attempt means: the platform error that undici's failure is, and whether and when
 * the call is tried again.
 */
import {
  type CallInfo,
  PlatformError,
  RateLimitedError,
  ServerError,
  TimeoutError,
  UnreachableError,
} from './errors.ts';

export interface RetryPolicy {
  /** Attempts in all, the first one included. */
  maxAttempts: number;
  baseDelayMs: number;
  /** Cap of the exponential backoff. */
  maxDelayMs: number;
  /** Cap of a `Retry-After` wait: a command in chat cannot wait minutes. */
  maxRetryAfterMs: number;
}

export const defaultRetryPolicy: RetryPolicy = {
  maxAttempts: 3,
  baseDelayMs: 250,
  maxDelayMs: 4_000,
  maxRetryAfterMs: 10_000,
};

export interface RetryQuestion {
  /** How many attempts have been made so far (1 after the first failure). */
  attempt: number;
  error: unknown;
  /** Whether repeating the call is harmless; creates and logins are not. */
  idempotent: boolean;
}

function isTransient(error: unknown): boolean {
  return (
    error instanceof UnreachableError ||
    error instanceof ServerError ||
    error instanceof RateLimitedError ||
    error instanceof TimeoutError
  );
}

/**
 * How long to wait before trying again, or null to give up. Exponential backoff with full
 * jitter (a uniform wait up to the capped exponential), so that many clients failing together do
 * not come back together; a `Retry-After` is honoured up to `maxRetryAfterMs`.
 */
export function retryDelay(
  question: RetryQuestion,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number | null {
  const { attempt, error, idempotent } = question;
  if (!idempotent || attempt >= policy.maxAttempts || !isTransient(error)) return null;
  if (error instanceof RateLimitedError && error.retryAfterMs !== undefined) {
    return Math.min(Math.max(0, error.retryAfterMs), policy.maxRetryAfterMs);
  }
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.floor(random() * ceiling);
}

/** `Retry-After` as milliseconds from `now`: delay-seconds or an HTTP-date; undefined if unreadable. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The system or undici code of an error, or of its cause (a fetch error wraps the socket's). */
export function errorCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 3; depth++) {
    if (typeof current !== 'object') return undefined;
    const { code } = current as { code?: unknown };
    if (typeof code === 'string') return code;
    const { cause, errors } = current as { cause?: unknown; errors?: unknown };
    current = cause ?? (Array.isArray(errors) ? errors[0] : undefined);
  }
  return undefined;
}

// Failures where the request cannot have reached the platform, so nothing happened.
const notSentCodes = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** A TLS failure: the connection never carried the request. */
const tlsFailure = /CERT|TLS|SSL/;

function isConnectionFailure(code: string): boolean {
  return (
    (code.startsWith('E') && !code.startsWith('ERR_')) ||
    code === 'UND_ERR_SOCKET' ||
    code === 'UND_ERR_CONNECT_TIMEOUT' ||
    tlsFailure.test(code)
  );
}

/**
 * What undici threw, as the platform error a caller can act on: a timeout, or a platform out of
 * reach. Anything unrecognised is a bug of ours and is rethrown as is.
 */
export function transportError(error: unknown, call: CallInfo, timedOut: boolean, idempotent: boolean): unknown {
  if (error instanceof PlatformError) return error;
  const code = errorCode(error);
  if (timedOut || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return new TimeoutError({ ...call, outcomeUnknown: !idempotent, cause: error });
  }
  if (code && isConnectionFailure(code)) {
    const sent = !notSentCodes.has(code) && !tlsFailure.test(code);
    return new UnreachableError({ ...call, code, outcomeUnknown: !idempotent && sent, cause: error });
  }
  return error;
}
