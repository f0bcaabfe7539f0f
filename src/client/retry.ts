import { RateLimitedError, ServerError, TimeoutError, UnreachableError } from './errors.ts';

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

/** Methods that are safe to repeat by HTTP semantics; POSTs must opt in one by one. */
export function isIdempotentMethod(method: string): boolean {
  return method === 'GET' || method === 'HEAD' || method === 'PUT' || method === 'DELETE' || method === 'OPTIONS';
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
