import { beforeEach, describe, expect, it } from 'vitest';
import { simulatorForFile } from './support.ts';

const { sim, api } = await simulatorForFile();
const platform = sim.seed.teams.platform.id;
const globexTeam = sim.seed.teams.globex.id;
let acme: string;
let globex: string;
beforeEach(async () => {
  acme = await api.companyAuth(sim.seed.users.owner);
  globex = await api.companyAuth(sim.seed.users.globex);
});

const guidsOf = (answer: { json(): Array<{ guid: string }> }) => answer.json().map((attack) => attack.guid);

describe('between companies', () => {
  it('keeps each company to its own teams in the session', async () => {
    const session = await api.companySession(sim.seed.users.globex);
    expect(session.company_name).toBe('Globex');
    expect(session.teams.map((team) => team.identifier)).toEqual([globexTeam]);
  });

  it("refuses another company's team with 403 on that team", async () => {
    await api.createAttack(acme, platform);
    const answer = await api.call('GET', '/attacks/active', { auth: globex, teamId: platform });
    expect(answer.status).toBe(403);
    expect(answer.text).toBe('User requires privilege for target team: EXPERIMENTS_READ');
  });

  it("does not show, halt or annotate another company's attacks through one's own team", async () => {
    const acmeAttack = await api.createAttack(acme, platform);
    const globexAttack = await api.createAttack(globex, globexTeam);

    expect(guidsOf(await api.call('GET', '/attacks', { auth: globex, teamId: globexTeam }))).toEqual([globexAttack]);
    for (const [method, path, query] of [
      ['GET', `/attacks/${acmeAttack}`, {}],
      ['DELETE', `/attacks/${acmeAttack}`, {}],
      ['POST', `/attacks/${acmeAttack}/halt`, {}],
      ['PUT', `/attacks/${acmeAttack}/annotations`, {}],
      ['GET', '/executions', { taskId: acmeAttack }],
    ] as const) {
      const answer = await api.call(method, path, {
        auth: globex,
        teamId: globexTeam,
        query,
        ...(method === 'PUT' ? { json: { note: 'x' } } : {}),
      });
      expect(answer.status, `${method} ${path}`).toBe(404);
    }
    expect(sim.state.attacks.get(acmeAttack)?.annotations).toEqual({});
  });

  it("halts only the caller's company with the halt-all endpoints", async () => {
    const acmeAttack = await api.createAttack(acme, platform);
    const globexAttack = await api.createAttack(globex, globexTeam);
    const acmeKubernetes = (
      await api.call('POST', '/kubernetes/attacks/new', {
        auth: acme,
        teamId: platform,
        json: {
          impactDefinition: { cliArgs: ['cpu'] },
          targetDefinition: {
            strategy: {
              k8sObjects: [{ clusterId: 'acme-prod', namespace: 'checkout', kind: 'Deployment', name: 'checkout' }],
            },
          },
        },
      })
    ).text;

    expect(guidsOf(await api.call('DELETE', '/attacks', { auth: globex }))).toEqual([globexAttack]);
    await api.call('POST', '/halts', { auth: globex });
    await api.call('POST', '/kubernetes/attacks/halt', { auth: globex });

    expect(
      (await api.call('GET', `/attacks/${acmeAttack}`, { auth: acme, teamId: platform })).json().stage_lifecycle,
    ).toBe('Active');
    expect(
      (await api.call('GET', `/kubernetes/attacks/${acmeKubernetes}`, { auth: acme, teamId: platform })).json()
        .stage_lifecycle,
    ).toBe('Active');
  });

  it('keeps tracker issues to the team that filed them', async () => {
    const guid = await api.createAttack(acme, platform);
    const filed = await api.call('POST', '/tracker/issues', {
      auth: acme,
      teamId: platform,
      json: {
        entity: { id: guid, type: 'ATTACK' },
        fields: { summary: 's', project: { id: '10001' }, issuetype: { id: '10005' } },
      },
    });
    expect(filed.status).toBe(200);
    const elsewhere = await api.call('GET', '/tracker/issues', {
      auth: globex,
      teamId: globexTeam,
      query: { platformEntityIds: guid },
    });
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.text).toBe('No integration exists');
  });
});

describe('teams within a company', () => {
  it('requires teamId with a company session and refuses an unknown team', async () => {
    const missing = await api.call('GET', '/attacks/active', { auth: acme });
    expect(missing.status).toBe(400);
    const unknown = await api.call('GET', '/attacks/active', {
      auth: acme,
      teamId: '2d3c0a6e-0000-4000-8000-000000000000',
    });
    expect(unknown.status).toBe(403);
    expect(unknown.text).toBe('User requires privilege for target team: EXPERIMENTS_READ');
  });

  it('refuses a team of the company that the user is not in', async () => {
    const solo = await api.companyAuth(sim.seed.users.solo);
    const answer = await api.call('GET', '/attacks/active', { auth: solo, teamId: sim.seed.teams.payments.id });
    expect(answer.status).toBe(403);
    expect(answer.text).toBe('User requires privilege for target team: EXPERIMENTS_READ');
  });

  it('binds a team session to its org: no teamId needed, another teamId refused', async () => {
    const sessions = await api.teamSessions(sim.seed.users.owner);
    const platformSession = sessions.find((session) => session.org_id === platform);
    const auth = platformSession?.header ?? '';
    const guid = await api.createAttack(acme, platform);

    expect(guidsOf(await api.call('GET', '/attacks/active', { auth }))).toEqual([guid]);
    expect((await api.call('GET', '/attacks/active', { auth, teamId: platform })).status).toBe(200);
    const other = await api.call('GET', '/attacks/active', { auth, teamId: sim.seed.teams.payments.id });
    expect(other.status).toBe(403);
    expect(other.text).toBe('User requires privilege for target team: EXPERIMENTS_READ');
  });

  it('gives added teams to the user, who can then work in them', async () => {
    const [first, ...others] = sim.addTeams(sim.seed.users.solo.email, 120);
    expect(others).toHaveLength(119);
    const session = await api.companySession(sim.seed.users.solo);
    expect(session.teams).toHaveLength(121);
    const created = await api.call('POST', '/attacks/new', {
      auth: session.header,
      teamId: first ?? '',
      json: { command: { type: 'cpu' }, target: { type: 'Random' } },
    });
    expect(created.status).toBe(201);
  });
});
