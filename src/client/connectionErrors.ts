/** What undici threw, as the platform error a caller can act on: a timeout, or a platform out of reach. */
import { type CallInfo, PlatformError, TimeoutError, UnreachableError } from './errors.ts';

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

function isConnectionFailure(code: string): boolean {
  return (
    (code.startsWith('E') && !code.startsWith('ERR_')) ||
    code === 'UND_ERR_SOCKET' ||
    code === 'UND_ERR_CONNECT_TIMEOUT' ||
    /CERT|TLS|SSL/.test(code)
  );
}

/** Maps what undici threw; anything unrecognised is a bug of ours and is rethrown as is. */
export function transportError(error: unknown, call: CallInfo, timedOut: boolean, idempotent: boolean): unknown {
  if (error instanceof PlatformError) return error;
  const code = errorCode(error);
  if (timedOut || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return new TimeoutError({ ...call, outcomeUnknown: !idempotent, cause: error });
  }
  if (code && isConnectionFailure(code)) {
    const sent = !notSentCodes.has(code) && !/CERT|TLS|SSL/.test(code);
    return new UnreachableError({ ...call, code, outcomeUnknown: !idempotent && sent, cause: error });
  }
  return error;
}
