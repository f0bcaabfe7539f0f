import { describe, expect, it } from 'vitest';
import { badLinkLimit } from '../../src/login/limits.ts';
import { type Stack, stackForFile } from '../e2e/harness.ts';
import { PageClient, publicUrl, secureLink } from './support.ts';

/**
 * Whose address the login page counts, with no TRUSTED_PROXIES (the default): the socket's peer,
 * whatever X-Forwarded-For it sends. The tests connect from loopback, which is then no proxy.
 */
let stack: Stack;
stackForFile({ env: { PUBLIC_URL: publicUrl } }, (started) => (stack = started));

const botUrl = () => `http://127.0.0.1:${stack.bot.port}`;
const badLink = (i: number, headers: Record<string, string> = {}) =>
  fetch(`${botUrl()}/login/not-a-link-${i}`, { headers }).then(async (answer) => ({
    status: answer.status,
    text: await answer.text(),
  }));

describe('the login page counts a client under the address it connected from', () => {
  it('believes no X-Forwarded-For from a peer that is not a trusted proxy', async () => {
    for (let i = 0; i < badLinkLimit; i++) {
      // Another address each time, as a client choosing its own would send.
      const answer = await badLink(i, { 'x-forwarded-for': `198.51.100.${i + 1}`, 'x-real-ip': `203.0.113.${i + 1}` });
      expect(answer.status).toBe(410);
    }
    const refused = await badLink(99, { 'x-forwarded-for': '198.51.100.200' });
    expect(refused.status).toBe(429);
    expect(refused.text).toContain('Too many unusable login links from your network');
    expect(refused.text).toMatch(/Try again at \d\d:\d\d UTC/);
  });

  it('still opens a valid link, and logs in with it, from an address its unusable links are refused for', async () => {
    for (let i = 0; i <= badLinkLimit; i++) await badLink(i);
    expect((await badLink(100)).status).toBe(429);
    const id = 'U0ADDRESS1';
    const page = await new PageClient(
      (await secureLink(stack, id, { email: stack.sim.seed.users.solo.email })).url,
    ).open();
    expect(page.status).toBe(200);
    await page.submit({ email: stack.sim.seed.users.solo.email, password: stack.sim.seed.users.solo.password });
    expect(page.status).toBe(200);
    expect(page.said()).toContain('Logged in as solo@acme.test');
    await stack.fake.waitFor(() => stack.person(id).channel(id).messages().at(-1), 'the confirmation DM');
  });

  it('counts every request of a burst, so no more unusable links are answered than the limit', async () => {
    const answers = await Promise.all(Array.from({ length: 3 * badLinkLimit }, (_, i) => badLink(i)));
    expect(answers.filter((a) => a.status === 410)).toHaveLength(badLinkLimit);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(2 * badLinkLimit);
  });
});
