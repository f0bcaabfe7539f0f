import { Agent, request } from 'undici';
import { describe, expect, it } from 'vitest';
import { simulatorForFile, type CompanySession, type TeamSession } from './support.ts';

const isoMillis = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const credentialsText = /proper credentials.*Authorization header/;

const { sim, api } = await simulatorForFile();

describe('login', () => {
  it('gives a company session with the company, its privileges and the teams', async () => {
    const { owner } = sim.seed.users;
    const before = sim.clock.now();
    const answer = await api.call('POST', '/users/auth', {
      query: { getCompanySession: 'true' },
      form: { email: owner.email, password: owner.password },
    });

    expect(answer.status).toBe(200);
    const session = answer.json<CompanySession>();
    expect(session).toMatchObject({
      company_id: sim.seed.company.id,
      company_name: 'Acme Demo',
      identifier: owner.email,
      header: `Bearer ${session.token}`,
    });
    expect(session.roles).toEqual(['COMPANY_OWNER']);
    expect(session.privileges).toEqual(
      expect.arrayContaining(['HALT_ALL', 'MINIMUM_COMPANY_PRIVILEGES', 'COMPANY_DEFAULT']),
    );
    expect(session.teams.map((team) => team.name).sort()).toEqual(['Payments', 'Platform', 'Search']);
    expect(session.teams[0]).toMatchObject({ company_id: sim.seed.company.id, roles: ['TEAM_OWNER'] });
    expect(session.teams[0]?.privileges).toEqual(expect.arrayContaining(['EXPERIMENTS_RUN', 'HALT_WRITE']));
    expect(session.expires_at).toMatch(isoMillis);
    expect(session.last_login).toMatch(isoMillis);
    expect(Date.parse(session.expires_at) - before).toBeGreaterThanOrEqual(12 * 3600_000);
    expect(session.renew_token).not.toBe(session.token);
  });

  it('gives one team session per org without the company-session flag (or with any other value)', async () => {
    const { owner, observer } = sim.seed.users;
    const sessions = await api.teamSessions(owner);
    expect(sessions.map((session) => session.org_id).sort()).toEqual(
      [sim.seed.teams.platform.id, sim.seed.teams.payments.id, sim.seed.teams.search.id].sort(),
    );
    expect(new Set(sessions.map((session) => session.token)).size).toBe(3);
    expect(sessions[0]).toMatchObject({ identifier: owner.email, role: 'OWNER' });

    const answer = await api.call('POST', '/users/auth', {
      query: { getCompanySession: 'yes' },
      form: { email: observer.email, password: observer.password },
    });
    const observerSessions = answer.json<TeamSession[]>();
    expect(observerSessions).toHaveLength(1);
    expect(observerSessions[0]).toMatchObject({
      org_id: sim.seed.teams.platform.id,
      org_name: 'Platform',
      role: 'OBSERVER',
    });
  });

  it('answers 401 Invalid credentials to a wrong password, an unknown e-mail or another company name', async () => {
    const { owner } = sim.seed.users;
    const forms: Array<Record<string, string>> = [
      { email: owner.email, password: 'wrong' },
      { email: 'nobody@acme.test', password: owner.password },
      { email: owner.email, password: owner.password, companyName: 'Globex' },
    ];
    for (const form of forms) {
      const answer = await api.call('POST', '/users/auth', { query: { getCompanySession: 'true' }, form });
      expect(answer.status).toBe(401);
      expect(answer.text).toBe('Invalid credentials');
    }
    const named = await api.call('POST', '/users/auth', {
      query: { getCompanySession: 'true' },
      form: { email: owner.email, password: owner.password, companyName: 'Acme Demo' },
    });
    expect(named.status).toBe(200);
  });

  it('takes form fields only', async () => {
    const { owner } = sim.seed.users;
    const answer = await api.call('POST', '/users/auth', { json: { email: owner.email, password: owner.password } });
    expect(answer.status).toBe(415);
  });
});

describe('MFA', () => {
  it('asks for the token on the plain login and accepts the right code on /users/auth/mfa/auth', async () => {
    const { sre } = sim.seed.users;
    const plain = await api.call('POST', '/users/auth', {
      query: { getCompanySession: 'true' },
      form: { email: sre.email, password: sre.password },
    });
    expect(plain.status).toBe(401);
    expect(plain.text).toBe('MFA token required');

    const noToken = await api.call('POST', '/users/auth/mfa/auth', {
      query: { getCompanySession: 'true' },
      form: { email: sre.email, password: sre.password },
    });
    expect(noToken.status).toBe(401);
    expect(noToken.text).toBe('MFA token required');

    const wrong = await api.call('POST', '/users/auth/mfa/auth', {
      query: { getCompanySession: 'true' },
      form: { email: sre.email, password: sre.password, token: '111111' },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toBe('Invalid credentials');

    const session = await api.companySession(sre, sim.seed.mfaCode);
    expect(session.teams.map((team) => team.name).sort()).toEqual(['Payments', 'Platform']);
    expect(sim.seed.mfaCode).toBe('246810');
  });

  it('gives team sessions with a code too, and rejects a token that is not a 6-digit integer', async () => {
    const { sre } = sim.seed.users;
    const teams = await api.call('POST', '/users/auth/mfa/auth', {
      form: { email: sre.email, password: sre.password, token: sim.seed.mfaCode },
    });
    expect(teams.status).toBe(200);
    expect(teams.json<TeamSession[]>()).toHaveLength(2);

    const bad = await api.call('POST', '/users/auth/mfa/auth', {
      form: { email: sre.email, password: sre.password, token: '1234567' },
    });
    expect(bad.status).toBe(400);
  });
});

describe('plain HTTP', () => {
  it('refuses the authentication endpoints with a 403 asking for HTTPS', async () => {
    const { owner } = sim.seed.users;
    const form = { email: owner.email, password: owner.password };
    for (const [method, path] of [
      ['POST', '/users/auth'],
      ['POST', '/users/auth/mfa/auth'],
      ['POST', '/users/auth/password/reset'],
      ['DELETE', '/users/auth'],
      ['GET', '/oauth/login'],
    ] as const) {
      const answer = await api.call(method, path, { plainHttp: true, ...(method === 'POST' ? { form } : {}) });
      expect(answer.status, `${method} ${path}`).toBe(403);
      expect(answer.text).toMatch(/retry using HTTPS/);
    }
    expect(sim.state.sessions.size).toBe(0);
  });

  it('serves the rest of the API with a session obtained over HTTPS', async () => {
    const auth = await api.companyAuth(sim.seed.users.owner);
    const answer = await api.call('GET', '/attacks/active', {
      auth,
      teamId: sim.seed.teams.platform.id,
      plainHttp: true,
    });
    expect(answer.status).toBe(200);
    expect(answer.json()).toEqual([]);
  });
});

describe('sessions', () => {
  it('answers 401 asking for credentials when the header is missing, malformed or unknown', async () => {
    for (const auth of [undefined, 'Basic b3duZXI6cGFzcw==', 'Bearer', 'Bearer 00000000-0000-0000-0000-000000000000']) {
      const answer = await api.call('GET', '/roles', { ...(auth ? { auth } : {}) });
      expect(answer.status).toBe(401);
      expect(answer.text).toMatch(credentialsText);
    }
  });

  it('logs out: the session answers 401 afterwards while another session of the user still works', async () => {
    const { owner } = sim.seed.users;
    const first = await api.companyAuth(owner);
    const second = await api.companyAuth(owner);

    const logout = await api.call('DELETE', '/users/auth', { auth: first });
    expect(logout.status).toBe(200);

    const after = await api.call('GET', '/attacks/active', { auth: first, teamId: sim.seed.teams.platform.id });
    expect(after.status).toBe(401);
    expect(after.text).toMatch(credentialsText);
    expect((await api.call('GET', '/roles', { auth: second })).status).toBe(200);
  });

  it('expires sessions at expires_at in simulated time', async () => {
    const session = await api.companySession(sim.seed.users.owner);
    sim.clock.advance(Date.parse(session.expires_at) - sim.clock.now() - 60_000);
    expect((await api.call('GET', '/roles', { auth: session.header })).status).toBe(200);
    sim.clock.advance(60_000);
    expect((await api.call('GET', '/roles', { auth: session.header })).status).toBe(401);
  });

  it('lets tests expire one session by token, or all of a user by e-mail', async () => {
    const { owner, solo } = sim.seed.users;
    const first = await api.companySession(owner);
    const second = await api.companySession(owner);
    const other = await api.companySession(solo);

    expect(sim.expireSession(first.token)).toBe(1);
    expect((await api.call('GET', '/roles', { auth: first.header })).status).toBe(401);
    expect((await api.call('GET', '/roles', { auth: second.header })).status).toBe(200);

    expect(sim.expireSession(owner.email)).toBe(2);
    expect((await api.call('GET', '/roles', { auth: second.header })).status).toBe(401);
    expect((await api.call('GET', '/roles', { auth: other.header })).status).toBe(200);
  });
});

describe('password reset', () => {
  it('records the request and answers alike for known and unknown addresses', async () => {
    const known = await api.call('POST', '/users/auth/password/reset', { form: { email: sim.seed.users.solo.email } });
    const unknown = await api.call('POST', '/users/auth/password/reset', { form: { email: 'nobody@acme.test' } });
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    expect(unknown.text).toBe(known.text);
    expect(sim.state.passwordResets.map((reset) => reset.email)).toEqual([
      sim.seed.users.solo.email,
      'nobody@acme.test',
    ]);

    const missing = await api.call('POST', '/users/auth/password/reset', { form: {} });
    expect(missing.status).toBe(400);
  });
});

describe('certificate', () => {
  it('is valid for localhost as well as 127.0.0.1, and only trusted through the simulator CA', async () => {
    const port = new URL(sim.url).port;
    const trusting = new Agent({ connect: { ca: sim.ca } });
    try {
      const answer = await request(`https://localhost:${port}/v1/roles`, { dispatcher: trusting });
      await answer.body.text();
      expect(answer.statusCode).toBe(401);
    } finally {
      await trusting.close();
    }
    const plain = new Agent();
    try {
      await expect(request(`${sim.url}/roles`, { dispatcher: plain })).rejects.toThrow();
    } finally {
      await plain.close();
    }
  });
});
