import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The form's CSRF token: an HMAC of the link under the browser's cookie secret. Only a page this
 * bot rendered for this browser and this link carries it, and nothing extra is stored.
 */
export function csrfToken(browserSecret: string, linkHash: string): string {
  return createHmac('sha256', browserSecret).update(`login-form:${linkHash}`).digest('base64url');
}

export function validCsrf(given: string | undefined, browserSecret: string, linkHash: string): boolean {
  if (!given) return false;
  const expected = Buffer.from(csrfToken(browserSecret, linkHash));
  const actual = Buffer.from(given);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
