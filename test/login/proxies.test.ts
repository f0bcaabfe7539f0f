import { describe, expect, it } from 'vitest';
import { badLinkLimit } from '../../src/login/limits.ts';
import { type Stack, stackForFile } from '../e2e/harness.ts';
import { publicUrl } from './support.ts';

/** Behind proxies named in TRUSTED_PROXIES (here the loopback the tests connect from), X-Forwarded-For names the client. */
let stack: Stack;
stackForFile(
  { env: { PUBLIC_URL: publicUrl, TRUSTED_PROXIES: '127.0.0.1/32, ::1, 10.0.0.0/8' } },
  (started) => (stack = started),
);

const badLink = (i: number, forwardedFor: string) =>
  fetch(`http://127.0.0.1:${stack.bot.port}/login/not-a-link-${i}`, { headers: { 'x-forwarded-for': forwardedFor } });

describe('the login page behind trusted proxies', () => {
  it('counts the client the nearest untrusted address in X-Forwarded-For names', async () => {
    // The client wrote a first entry of its own; the proxies appended what they saw, ending in another proxy.
    for (let i = 0; i < badLinkLimit; i++)
      expect((await badLink(i, `192.0.2.${i + 1}, 198.51.100.9, 10.1.2.3`)).status).toBe(410);
    expect((await badLink(99, '198.51.100.9')).status).toBe(429);
    // Another client behind the same proxies has a count of its own.
    expect((await badLink(100, '198.51.100.10')).status).toBe(410);
  });
});
