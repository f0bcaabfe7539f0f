import { describe, expect, it } from 'vitest';
import { addressFailureLimit, badLinkLimit, personFailureLimit } from '../../src/login/limits.ts';
import { type Stack, stackForFile } from '../e2e/harness.ts';
import { PageClient, publicUrl, secureLink } from './support.ts';

/**
 * Whose address the login page counts, with no TRUSTED_PROXIES (the default): the socket's peer,
 * whatever X-Forwarded-For it sends. The tests connect from loopback, which is then no proxy.
 */
let stack: Stack;
stackForFile({ env: { PUBLIC_URL: publicUrl } }, (started) => (stack = started));

const botUrl = () => `http://127.0.0.1:${stack.bot.port}`;
const platformLogins = () =>
  stack.sim.requests.filter((r) => r.method === 'POST' && r.path.startsWith('/users/auth') && !r.path.includes('reset'))
    .length;
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

describe('behind a proxy that is not in TRUSTED_PROXIES', () => {
  const proxyWarnings = (since: number) =>
    stack.logs.slice(since).filter((line) => line.level === 'warn' && line.msg.includes('TRUSTED_PROXIES'));

  it('warns once, saying to set TRUSTED_PROXIES, when page clients keep arriving from one private address with X-Forwarded-For', async () => {
    // The tests connect from loopback: a proxy on the bot's own host, forwarding every client.
    const since = stack.logs.length;
    for (let i = 0; i < 10; i++) await badLink(i, { 'x-forwarded-for': `198.51.100.${i + 1}` });
    const warnings = proxyWarnings(since);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.msg).toMatch(/set TRUSTED_PROXIES/);
    expect(JSON.stringify(warnings[0])).not.toContain('not-a-link');
  });

  it('says nothing while clients arrive without X-Forwarded-For', async () => {
    const since = stack.logs.length;
    for (let i = 0; i < 10; i++) await badLink(i);
    expect(proxyWarnings(since)).toEqual([]);
  });

  it("lets a person below their own failed-login limit in, after other people's failures used up the address's", async () => {
    const failing = async (id: string, times: number) => {
      const email = `${id.toLowerCase()}@acme.test`;
      const page = await new PageClient((await secureLink(stack, id, { email })).url).open();
      for (let i = 0; i < times; i++) await page.submit({ email, password: `wrong-${i}` });
      return page;
    };
    // A member below their own limit, who failed before the address's limit was reached.
    const earlier = await failing('U0BEHIND0', 2);
    expect(earlier.status).toBe(401);
    // Four members use up their own limits, and so the address's.
    let last = earlier;
    for (let p = 1, failed = 2; failed < addressFailureLimit; p++, failed += personFailureLimit)
      last = await failing(`U0BEHIND${p}`, personFailureLimit);
    expect(last.said()).toContain('Too many failed logins from your network');

    // A fifth member, and the one who failed twice, still log in.
    const fifth = 'U0BEHINDOK';
    const { solo, owner } = stack.sim.seed.users;
    const page = await new PageClient((await secureLink(stack, fifth, { email: solo.email })).url).open();
    await page.submit({ email: solo.email, password: solo.password });
    expect(page.said()).toContain('Logged in as solo@acme.test');
    stack.person('U0BEHIND0', { email: owner.email });
    const again = await new PageClient((await secureLink(stack, 'U0BEHIND0')).url).open();
    await again.submit({ email: owner.email, password: owner.password });
    expect(again.said()).toContain('Logged in as owner@acme.test');
  });

  it("still stops one client trying many people's links once the address's limit is used up: one more attempt each", async () => {
    let failures = 0;
    for (let p = 0; failures < addressFailureLimit; p++) {
      const id = `U0VICTIM${p}`;
      const email = `${id.toLowerCase()}@acme.test`;
      const page = await new PageClient((await secureLink(stack, id, { email })).url).open();
      for (let i = 0; i < personFailureLimit && failures < addressFailureLimit; i++, failures++)
        await page.submit({ email, password: `guess-${i}` });
    }
    const tried = platformLogins();
    // Another person's link: one attempt from this address, then the address's limit holds them too.
    const id = 'U0VICTIMLAST';
    const email = `${id.toLowerCase()}@acme.test`;
    const page = await new PageClient((await secureLink(stack, id, { email })).url).open();
    await page.submit({ email, password: 'guess-a' });
    expect(page.status).toBe(401);
    await page.submit({ email, password: 'guess-b' });
    expect(page.status).toBe(429);
    expect(page.said()).toMatch(/Too many failed logins from your network\. Try again at \d\d:\d\d UTC/);
    expect(platformLogins()).toBe(tried + 1);
  });
});
