import { isIP } from 'node:net';
import { InsecureUrlError } from './errors.ts';

/** Hosts that may be reached over plain HTTP: the simulator and local development only. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

/** Where a secret may be sent: https:, or plain http: to a loopback host only. */
export function isSecureUrl(url: URL): boolean {
  return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname));
}

/** Parses the base URL, refusing one that would carry credentials in clear text. */
export function parseBaseUrl(baseUrl: string): URL {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError('The platform URL is not a valid URL');
  }
  if (url.username || url.password) throw new TypeError('The platform URL must not contain credentials');
  if (!isSecureUrl(url)) throw new InsecureUrlError();
  return url;
}
