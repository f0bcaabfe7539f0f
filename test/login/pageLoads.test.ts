import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pageLoadsPerLink, ssoStartsPerAddress, ssoStartsPerLink } from '../../src/login/limits.ts';
import { keys } from '../../src/store/keys.ts';
import { Stack } from '../e2e/harness.ts';
import { PageClient, publicUrl, secureLink } from './support.ts';

/**
 * What one login link may cost: page loads and single sign-on starts are limited per link and
 * per address, and the Slack profile is read once per link. Its own stack, because a test here
 * provokes Slack's 429, which the shared checks refuse.
 */
let stack: Stack;
beforeAll(async () => {
  stack = await Stack.start({ env: { PUBLIC_URL: publicUrl, SSO_COMPANY: 'Acme Demo' } });
});
afterEach(async () => {
  stack.fake.faults.clear();
  await stack.reset();
});
afterAll(async () => {
  await stack?.stop();
});

let n = 0;
const nextPerson = () => `U0LOADS${++n}`;
const profileReads = (id: string) => stack.fake.callsTo('users.info').filter((call) => call.args['user'] === id).length;
const ssoStarts = () =>
  stack.sim.requests.filter((r) => r.method === 'GET' && r.path.startsWith('/oauth/login')).length;
async function storedSsoStarts(): Promise<number> {
  let count = 0;
  for await (const _ of stack.built.store.entries(keys.ssoLogin.prefix)) count++;
  return count;
}

describe('one login link', () => {
  it('reads the Slack profile once and starts a bounded number of single sign-ons, however often it is loaded', async () => {
    const id = nextPerson();
    const { url } = await secureLink(stack, id, { email: stack.sim.seed.sso.email });
    const page = await new PageClient(url).open();
    expect(page.status).toBe(200);
    const sso = new PageClient(`${url}/sso`).adopt(page);
    const pages: number[] = [];
    const starts: number[] = [];
    for (let i = 0; i < 100; i++) {
      pages.push((await page.open()).status);
      starts.push((await sso.open()).status);
    }

    expect(profileReads(id)).toBe(1);
    expect(ssoStarts()).toBe(ssoStartsPerLink);
    expect(await storedSsoStarts()).toBe(ssoStartsPerLink);
    expect(starts.filter((status) => status === 200)).toHaveLength(ssoStartsPerLink);
    // The first load was before the loop.
    expect(pages.filter((status) => status === 200)).toHaveLength(pageLoadsPerLink - 1);
    const refused = await sso.open();
    expect(refused.status).toBe(429);
    expect(refused.said()).toMatch(/Too many .* Try again at \d\d:\d\d UTC/);
    stack.expectClean();
  });

  it('logs in with the profile it read first, when Slack answers users.info with 429 afterwards', async () => {
    const id = nextPerson();
    const { solo } = stack.sim.seed.users;
    const { url } = await secureLink(stack, id, { email: solo.email });
    const page = await new PageClient(url).open();
    expect(page.status).toBe(200);
    stack.fake.faults.inject({ kind: 'ratelimit', method: 'users.info' });
    await page.open();
    await page.submit({ email: solo.email, password: solo.password });
    expect(page.said()).toContain('Logged in as solo@acme.test');
    expect(Stack.read(await stack.ask(id, 'whoami'))).toContain('solo@acme.test');
  });

  it('bounds the single sign-ons one address starts over many links: past its limit, one more per person', async () => {
    const startOnce = async (id: string) => {
      const { url } = await secureLink(stack, id, { email: stack.sim.seed.sso.email });
      const page = await new PageClient(url).open();
      return new PageClient(`${url}/sso`).adopt(page);
    };
    for (let p = 0; p * ssoStartsPerLink < ssoStartsPerAddress; p++) {
      const sso = await startOnce(`U0STARTER${p}`);
      for (let i = 0; i < ssoStartsPerLink; i++) expect((await sso.open()).status).toBe(200);
    }
    expect(ssoStarts()).toBe(ssoStartsPerAddress);
    const late = await startOnce('U0LATE');
    expect((await late.open()).status).toBe(200);
    const again = await late.open();
    expect(again.status).toBe(429);
    expect(again.said()).toContain('Too many single sign-ons were started with this link or from your network');
    expect(ssoStarts()).toBe(ssoStartsPerAddress + 1);
    stack.expectClean();
  });
});
