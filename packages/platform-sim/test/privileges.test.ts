import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { routes } from '../src/routes/index.ts';
import { simulatorForFile } from './support.ts';

type Level = 'team' | 'company' | 'session' | 'public';

const team = (privilege: string) => ({ level: 'team' as Level, privilege });
const company = (privilege: string) => ({ level: 'company' as Level, privilege });
const sessionOnly = { level: 'session' as Level, privilege: undefined };
const open = { level: 'public' as Level, privilege: undefined };

/**
 * The privilege column of platform-api.md for every endpoint the simulator serves, copied by
 * hand: the 403 texts are checked against this list, never against the simulator's own table.
 * The halt-all endpoints and company-level endpoints answer with the company text.
 */
const documented: Record<string, { level: Level; privilege: string | undefined }> = {
  'GET /attacks/active': team('EXPERIMENTS_READ'),
  'GET /attacks/active/paged': team('EXPERIMENTS_READ'),
  'PUT /attacks/{guid}/annotations': team('MINIMUM_TEAM_PRIVILEGES'),
  'GET /attacks': team('EXPERIMENTS_READ'),
  'POST /attacks': team('EXPERIMENTS_RUN'),
  'DELETE /attacks': company('HALT_ALL'),
  'POST /attacks/halt': company('HALT_ALL'),
  'GET /attacks/range': team('EXPERIMENTS_READ'),
  'GET /attacks/completed': team('EXPERIMENTS_READ'),
  'GET /attacks/completed/paged': team('EXPERIMENTS_READ'),
  'POST /attacks/new': team('EXPERIMENTS_RUN'),
  'GET /attacks/{guid}': team('EXPERIMENTS_READ'),
  'DELETE /attacks/{guid}': team('HALT_WRITE'),
  'POST /attacks/{guid}/halt': team('HALT_WRITE'),
  'GET /executions': team('EXPERIMENTS_READ'),
  // platform-contract.md, Clients.
  'GET /clients': team('EXPERIMENTS_READ'),
  'POST /halts': company('HALT_ALL'),
  'GET /kubernetes/attacks/{guid}': team('EXPERIMENTS_READ'),
  'GET /kubernetes/attacks': team('EXPERIMENTS_READ'),
  'POST /kubernetes/attacks/new': team('EXPERIMENTS_WRITE'),
  'POST /kubernetes/attacks/{uid}/halt': team('HALT_WRITE'),
  'POST /kubernetes/attacks/halt': company('HALT_ALL'),
  'GET /metadata': team('MINIMUM_TEAM_PRIVILEGES'),
  'POST /users/auth': open,
  'DELETE /users/auth': company('MINIMUM_COMPANY_PRIVILEGES'),
  'POST /users/auth/mfa/auth': open,
  'POST /users/auth/password/reset': open,
  'GET /users/auth/saml/failures': company('COMPANY_SECURITY_READ'),
  'GET /oauth/login': open,
  'GET /oauth/callback': open,
  'GET /tracker/issues': team('INTEGRATIONS_READ'),
  'POST /tracker/issues': team('INTEGRATIONS_WRITE'),
  'GET /tracker/issues/count': team('MINIMUM_TEAM_PRIVILEGES'),
  'GET /tracker/issue-meta': team('MINIMUM_TEAM_PRIVILEGES'),
  'GET /tracker/issues/services': team('INTEGRATIONS_READ'),
  'GET /tracker/labels': team('MINIMUM_TEAM_PRIVILEGES'),
  'GET /monitoringA/monitors/{monitorId}': team('MINIMUM_TEAM_PRIVILEGES'),
  'GET /monitoringA/monitors': team('MINIMUM_TEAM_PRIVILEGES'),
  'GET /monitoringB/alerts': team('MINIMUM_TEAM_PRIVILEGES'),
  'GET /monitoringB/dashboards': team('MINIMUM_TEAM_PRIVILEGES'),
  'GET /monitoringB/rules': team('MINIMUM_TEAM_PRIVILEGES'),
  'GET /monitoringB/monitors': team('MINIMUM_TEAM_PRIVILEGES'),
  'GET /roles': sessionOnly,
  'GET /roles/{roleId}': sessionOnly,
};

/** Team privileges a TEAM_OBSERVER lacks (sim.md, Roles). */
const lackedByObserver = new Set(['EXPERIMENTS_RUN', 'EXPERIMENTS_WRITE', 'HALT_WRITE', 'INTEGRATIONS_WRITE']);

const served = routes.map((route) => ({ route, key: `${route.method} ${route.path.replace(/:(\w+)/g, '{$1}')}` }));

// Kept for the whole file: the user added below must outlive each test.
const { sim, api } = await simulatorForFile({}, { keepState: true });
const platform = sim.seed.teams.platform.id;
const payments = sim.seed.teams.payments.id;
// A member of the company whose company role carries no privilege at all.
sim.state.addUser({
  id: randomUUID(),
  email: 'suspended@acme.test',
  password: 'chaos-demo-1',
  companyId: sim.seed.company.id,
  companyRoles: [],
  teamRoles: new Map([[platform, 'TEAM_OBSERVER']]),
});

function concretePath(path: string): string {
  return path.replace(/:\w+/g, () => randomUUID());
}

/** Callers that lack `privilege`: a company session and a team session, with the teamId they send. */
async function callersLacking(
  level: Level,
  privilege: string,
): Promise<Array<{ who: string; auth: string; teamId?: string }>> {
  const { users } = sim.seed;
  if (level === 'company') {
    if (privilege === 'MINIMUM_COMPANY_PRIVILEGES') {
      const suspended = { email: 'suspended@acme.test', password: 'chaos-demo-1', id: '' };
      return [
        { who: 'company session without company role', auth: await api.companyAuth(suspended) },
        { who: 'team session without company role', auth: (await api.teamSessions(suspended))[0]?.header ?? '' },
      ];
    }
    return [
      { who: 'COMPANY_USER company session', auth: await api.companyAuth(users.observer) },
      { who: 'COMPANY_USER team session', auth: (await api.teamSessions(users.observer))[0]?.header ?? '' },
    ];
  }
  if (lackedByObserver.has(privilege)) {
    return [
      { who: 'observer company session', auth: await api.companyAuth(users.observer), teamId: platform },
      { who: 'observer team session', auth: (await api.teamSessions(users.observer))[0]?.header ?? '' },
    ];
  }
  // Solo belongs to Platform only, so it has no privilege on Payments.
  return [
    { who: 'company session of a non-member', auth: await api.companyAuth(users.solo), teamId: payments },
    {
      who: 'team session of another org',
      auth: (await api.teamSessions(users.solo))[0]?.header ?? '',
      teamId: payments,
    },
  ];
}

describe('privileges of every served endpoint', () => {
  it('serves exactly the documented endpoints, with their documented privilege', () => {
    expect(served.map(({ key }) => key).sort()).toEqual(Object.keys(documented).sort());
    for (const { route, key } of served) {
      const expected = documented[key];
      expect({
        key,
        scope: route.access.scope,
        privilege: 'privilege' in route.access ? route.access.privilege : undefined,
      }).toEqual({ key, scope: expected?.level, privilege: expected?.privilege });
    }
  });

  it.each(served.filter(({ key }) => documented[key]?.privilege).map(({ route, key }) => [key, route] as const))(
    '%s answers 403 with the documented text to callers lacking the privilege',
    async (key, route) => {
      const { level, privilege = '' } = documented[key] ?? open;
      const expectedText =
        level === 'team'
          ? `User requires privilege for target team: ${privilege}`
          : `User requires privilege: ${privilege}`;
      for (const caller of await callersLacking(level, privilege)) {
        const answer = await api.call(route.method, concretePath(route.path), {
          auth: caller.auth,
          ...(caller.teamId ? { teamId: caller.teamId } : {}),
        });
        expect({ who: caller.who, status: answer.status, text: answer.text }).toEqual({
          who: caller.who,
          status: 403,
          text: expectedText,
        });
      }
    },
  );

  it.each(
    served.filter(({ key }) => documented[key]?.level !== 'public').map(({ route, key }) => [key, route] as const),
  )(
    '%s answers 401 asking for credentials without a session, and lets a privileged caller through',
    async (_key, route) => {
      const path = concretePath(route.path);
      const anonymous = await api.call(route.method, path, route.access.scope === 'team' ? { teamId: platform } : {});
      expect(anonymous.status).toBe(401);
      expect(anonymous.text).toMatch(/proper credentials.*Authorization header/);

      const owner = await api.companyAuth(sim.seed.users.owner);
      const allowed = await api.call(route.method, path, {
        auth: owner,
        ...(route.access.scope === 'team' ? { teamId: platform } : {}),
      });
      expect([401, 403]).not.toContain(allowed.status);
    },
  );

  it.each(
    served.filter(({ key }) => documented[key]?.level === 'public').map(({ route, key }) => [key, route] as const),
  )('%s needs no session', async (key, route) => {
    const { solo, sre } = sim.seed.users;
    const form: Record<string, string> = key.includes('/mfa/')
      ? { email: sre.email, password: sre.password, token: sim.seed.mfaCode }
      : { email: solo.email, password: solo.password };
    if (key === 'GET /oauth/callback') {
      // Without a code it asks for the code, not for a session.
      expect((await api.call('GET', route.path)).text).toMatch(/^Bad request: code and state are required/);
      return;
    }
    const answer =
      key === 'GET /oauth/login'
        ? await api.call('GET', route.path, { query: { companyName: 'Acme Demo', redirectUri: 'https://app.test/cb' } })
        : await api.call(route.method, concretePath(route.path), { form });
    expect(answer.status).toBe(200);
  });
});
