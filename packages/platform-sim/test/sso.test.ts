import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { simulatorForFile, type CompanySession } from './support.ts';

const { sim, api } = await simulatorForFile();
const redirectUri = 'https://faultline.example.test/login/sso/callback';

/** The identity provider's page at `url`, as a browser without JavaScript opens it; `form` posts it. */
async function provider(url: string, form?: Record<string, string>) {
  const answer = await request(form ? new URL('/_idp/authorize', url) : url, {
    method: form ? 'POST' : 'GET',
    dispatcher: api.agent,
    ...(form
      ? { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() }
      : {}),
  });
  return { status: answer.statusCode, location: String(answer.headers.location ?? ''), text: await answer.body.text() };
}

/** Starts a login, signs the SSO person in at the provider, and returns where it sends the browser back. */
async function signIn(): Promise<URL> {
  const started = await api.call('GET', '/oauth/login', { query: { companyName: 'acme demo', redirectUri } });
  expect(started.status).toBe(200);
  const authorize = new URL(started.text);
  const page = await provider(started.text);
  expect(page.text).toContain(`Sign in as ${sim.seed.sso.email}`);
  const back = await provider(started.text, { state: authorize.searchParams.get('state')!, email: sim.seed.sso.email });
  expect(back.status).toBe(302);
  return new URL(back.location);
}

const callback = (code: string, state: string) =>
  api.call('GET', '/oauth/callback', { query: { code, state, getCompanySession: 'true' } });

describe('single sign-on through the demo identity provider', () => {
  it('signs a person without a password in, once, and records why a replay failed', async () => {
    const back = await signIn();
    expect(`${back.origin}${back.pathname}`).toBe(redirectUri);
    const code = back.searchParams.get('code')!;
    const state = back.searchParams.get('state')!;
    const answer = await callback(code, state);
    expect(answer.status).toBe(200);
    expect(answer.json<CompanySession>()).toMatchObject({ identifier: sim.seed.sso.email, company_name: 'Acme Demo' });

    expect((await callback(code, state)).status).toBe(401);
    // The person has no password: a password login is refused.
    const withPassword = await api.call('POST', '/users/auth', { form: { email: sim.seed.sso.email, password: 'x' } });
    expect(withPassword.status).toBe(401);

    const owner = await api.companyAuth(sim.seed.users.owner);
    const failures = await api.call('GET', '/users/auth/saml/failures', { auth: owner });
    expect(failures.status).toBe(200);
    const list = failures.json<Array<{ email: string; timestamp: string; reason: string }>>();
    expect(list.map((f) => f.reason)).toEqual([
      'The code or state was used already',
      ...[...sim.seed.sso.failures].sort((a, b) => a.minutesAgo - b.minutesAgo).map((f) => f.reason),
    ]);
    const one = await api.call('GET', '/users/auth/saml/failures', {
      auth: owner,
      query: { email: 'FORMER@acme.test' },
    });
    expect(one.json<unknown[]>()).toHaveLength(1);
    // Only a security reader sees them.
    const solo = await api.companyAuth(sim.seed.users.solo);
    expect((await api.call('GET', '/users/auth/saml/failures', { auth: solo })).status).toBe(403);
  });

  it('refuses a state of another login, an expired one, and an unknown company', async () => {
    const first = await signIn();
    const second = await signIn();
    expect((await callback(first.searchParams.get('code')!, second.searchParams.get('state')!)).status).toBe(401);

    const late = await signIn();
    sim.clock.advance(10 * 60_000);
    expect((await callback(late.searchParams.get('code')!, late.searchParams.get('state')!)).status).toBe(401);

    const unknown = await api.call('GET', '/oauth/login', { query: { companyName: 'Globex', redirectUri } });
    expect(unknown.status).toBe(400);
  });

  it('sends the browser back with an error when the person cancels', async () => {
    const started = await api.call('GET', '/oauth/login', { query: { companyName: 'Acme Demo', redirectUri } });
    const state = new URL(started.text).searchParams.get('state')!;
    const back = new URL((await provider(started.text, { state, cancel: '1' })).location);
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe(state);
    expect(back.searchParams.has('code')).toBe(false);
  });
});
