import { beforeEach, describe, expect, it } from 'vitest';
import { simulatorForFile } from './support.ts';

const { sim, api } = await simulatorForFile();
const platform = sim.seed.teams.platform.id;
let owner: string;
beforeEach(async () => {
  owner = await api.companyAuth(sim.seed.users.owner);
});

const getAttack = (guid: string) => api.getAttack(owner, platform, guid);

describe('POST /attacks/new', () => {
  it('answers 201 with the guid as plain text and records the attack as given', async () => {
    const target = { type: 'Random', tags: { role: 'web' } };
    const answer = await api.call('POST', '/attacks/new', {
      auth: owner,
      teamId: platform,
      json: { command: { type: 'cpu', args: ['-l', '30', '--cores', '2'] }, target },
    });
    expect(answer.status).toBe(201);
    expect(answer.headers['content-type']).toMatch(/^text\/plain/);
    expect(answer.text).toMatch(/^[0-9a-f-]{36}$/);

    const attack = await getAttack(answer.text);
    expect(attack).toMatchObject({
      guid: answer.text,
      org_id: platform,
      stage: 'Pending',
      stage_lifecycle: 'Active',
      args: ['-l', '30', '--cores', '2'],
      infra_command: { type: 'cpu', args: ['-l', '30', '--cores', '2'] },
      infra_target: target,
      target_type: 'Host',
      targets: ['platform-web-1', 'platform-web-2'],
      total_clients: 2,
      create_source: 'Api',
      create_user: sim.seed.users.owner.email,
      source: 'Adhoc',
      annotations: {},
      end_time: null,
    });
    expect(attack.created_at).toBe(attack.start_time);
  });

  it('targets every client of the team without tags, and exact hosts, containers or labels when given', async () => {
    const everyHost = await getAttack(await api.createAttack(owner, platform));
    expect(everyHost.targets).toEqual(['platform-cache-1', 'platform-db-1', 'platform-web-1', 'platform-web-2']);

    const exactHosts = await getAttack(
      await api.createAttack(owner, platform, {
        target: { type: 'Exact', hosts: { ids: ['platform-db-1', 'payments-db-1'] } },
      }),
    );
    expect(exactHosts).toMatchObject({ target_type: 'Host', targets: ['platform-db-1'] });

    const byName = await getAttack(
      await api.createAttack(owner, platform, { target: { type: 'Exact', exact: ['platform-web-2'] } }),
    );
    expect(byName.targets).toEqual(['platform-web-2']);

    const containers = await getAttack(
      await api.createAttack(owner, platform, { target: { type: 'Exact', containers: { ids: ['cart-1'] } } }),
    );
    expect(containers).toMatchObject({ target_type: 'Container', targets: ['cart-1'] });

    const labelled = await getAttack(
      await api.createAttack(owner, platform, {
        target: { type: 'Random', containers: { labels: { app: 'checkout' } }, exact: 1 },
      }),
    );
    expect(labelled).toMatchObject({ target_type: 'Container', total_clients: 1, targets: ['checkout-1'] });

    const topLevel = await api.call('POST', '/attacks/new', {
      auth: owner,
      teamId: platform,
      json: {
        command: { type: 'cpu' },
        target: { type: 'Random', tags: { zone: 'us-east-1a' } },
        labels: { tier: 'data' },
      },
    });
    expect((await getAttack(topLevel.text)).targets).toEqual(['postgres-1']);
  });

  it('ends TargetNotFound when nothing matches', async () => {
    const guid = await api.createAttack(owner, platform, { target: { type: 'Random', tags: { role: 'mainframe' } } });
    expect(await getAttack(guid)).toMatchObject({ stage: 'Pending', stage_lifecycle: 'Active', targets: [] });
    sim.clock.advance(2_000);
    const failed = await getAttack(guid);
    expect(failed).toMatchObject({ stage: 'TargetNotFound', stage_lifecycle: 'Error' });
    expect(failed.end_time).not.toBeNull();
    expect(
      (await api.call('GET', '/executions', { auth: owner, teamId: platform, query: { taskId: guid } })).json(),
    ).toEqual([]);
  });

  it.each([
    ['an unknown type', { command: { type: 'meteor' }, target: { type: 'Random' } }, /unknown attack type "meteor"/],
    [
      'an unknown flag',
      { command: { type: 'cpu', args: ['--turbo'] }, target: { type: 'Random' } },
      /unknown argument "--turbo"/,
    ],
    [
      'a flag of another type',
      { command: { type: 'cpu', args: ['-m', '100'] }, target: { type: 'Random' } },
      /unknown argument "-m"/,
    ],
    ['a missing value', { command: { type: 'cpu', args: ['-l'] }, target: { type: 'Random' } }, /"-l" needs a value/],
    [
      'a non-integer length',
      { command: { type: 'cpu', args: ['-l', 'soon'] }, target: { type: 'Random' } },
      /not a valid value for "-l"/,
    ],
    [
      'a value outside the options',
      { command: { type: 'io', args: ['-m', 'x'] }, target: { type: 'Random' } },
      /one of r, w, rw/,
    ],
    [
      'a bad IP address',
      { command: { type: 'blackhole', args: ['-i', '10.0.0.300'] }, target: { type: 'Random' } },
      /IP address/,
    ],
    [
      'a repeated single flag',
      { command: { type: 'cpu', args: ['-c', '1', '--cores', '2'] }, target: { type: 'Random' } },
      /more than once/,
    ],
    [
      'a value given to a switch',
      { command: { type: 'cpu', args: ['--all_cores=yes'] }, target: { type: 'Random' } },
      /takes no value/,
    ],
    ['a missing target', { command: { type: 'cpu' } }, /target/],
    ['an unknown target type', { command: { type: 'cpu' }, target: { type: 'Some' } }, /target\.type/],
    ['an Exact target naming nothing', { command: { type: 'cpu' }, target: { type: 'Exact' } }, /Exact target needs/],
    [
      'args that are not strings',
      { command: { type: 'cpu', args: ['-l', 60] }, target: { type: 'Random' } },
      /command\.args/,
    ],
  ])('answers 400 Bad request to %s, creating nothing', async (_case, body, detail) => {
    const answer = await api.call('POST', '/attacks/new', { auth: owner, teamId: platform, json: body });
    expect(answer.status).toBe(400);
    expect(answer.text).toMatch(/^Bad request/);
    expect(answer.text).toMatch(detail);
    expect(sim.state.attacks.size).toBe(0);
  });

  it('accepts repeated multi-valued flags, --flag=value, CIDR blocks and the simulator-only type', async () => {
    await api.createAttack(owner, platform, {
      type: 'latency',
      args: ['-m', '300', '-h', 'api.example.com', '--hostnames', 'db.example.com', '--ipaddresses=10.0.0.0/8'],
    });
    await api.createAttack(owner, platform, { type: 'process_exhaustion', args: ['-n', '500'] });
    expect(sim.state.attacks.size).toBe(2);
  });

  it('runs for its -l/--length', async () => {
    const guid = await api.createAttack(owner, platform, { args: ['--length', '300'] });
    sim.clock.advance(6_000 + 299_000);
    expect((await getAttack(guid)).stage).toBe('Running');
    sim.clock.advance(1_000);
    expect((await getAttack(guid)).stage).toBe('TearingDown');
  });
});

describe('POST /attacks (service attacks)', () => {
  it('creates one attack per service on its hosts and answers 201 with AttackForServiceResponse', async () => {
    const { service } = sim.seed;
    const answer = await api.call('POST', '/attacks', {
      auth: owner,
      teamId: platform,
      json: {
        attackConfiguration: {
          command: { infraCommandType: 'CPU', infraCommandArgs: { cliArgs: ['cpu', '-l', '60'] } },
          targets: [{ serviceId: service.id, targetingStrategy: { type: 'All' } }],
          sampling: { type: 'Percent', percent: 50 },
        },
        includeNewTargets: false,
      },
    });
    expect(answer.status).toBe(201);
    const [created, ...rest] = answer.json();
    expect(rest).toEqual([]);
    expect(created).toMatchObject({ serviceId: service.id, type: 'Host' });
    expect((await getAttack(created.attackId)).targets).toEqual(['platform-web-1']);
  });

  it('rejects a command type that disagrees with cliArgs, and an unknown service', async () => {
    const configuration = (infraCommandType: string, serviceId: string) => ({
      attackConfiguration: {
        command: { infraCommandType, infraCommandArgs: { cliArgs: ['cpu'] } },
        targets: [{ serviceId, targetingStrategy: { type: 'All' } }],
      },
    });
    const mismatch = await api.call('POST', '/attacks', {
      auth: owner,
      teamId: platform,
      json: configuration('Memory', sim.seed.service.id),
    });
    expect(mismatch.status).toBe(400);
    const unknown = await api.call('POST', '/attacks', {
      auth: owner,
      teamId: sim.seed.teams.payments.id,
      json: configuration('CPU', sim.seed.service.id),
    });
    expect(unknown.status).toBe(400);
    expect(unknown.text).toMatch(/unknown service/);
  });
});

describe('reading attacks', () => {
  it('answers 404 Not found for an unknown guid', async () => {
    const answer = await api.call('GET', '/attacks/2b1e0c55-0000-4000-8000-000000000000', {
      auth: owner,
      teamId: platform,
    });
    expect(answer.status).toBe(404);
    expect(answer.text).toBe('Not found');
  });

  it('lists active, completed and all attacks, newest first, filtered by source and cut at pageSize', async () => {
    const first = await api.createAttack(owner, platform, { args: ['-l', '10'] });
    sim.clock.advance(60_000);
    const second = await api.createAttack(owner, platform);
    const third = await api.createAttack(owner, platform);
    const scenario = sim.state.addAttack({
      teamId: platform,
      type: 'cpu',
      args: [],
      infraTarget: { type: 'Random' },
      targetType: 'Host',
      targets: ['platform-web-1'],
      createSource: 'Scenario',
      createUser: sim.seed.users.owner.email,
      source: 'Scenario',
      timeline: { createdAt: sim.clock.now(), runMs: 60_000 },
    });
    const guids = async (path: string, query: Record<string, string> = {}) =>
      (await api.call('GET', path, { auth: owner, teamId: platform, query }))
        .json()
        .map((attack: { guid: string }) => attack.guid);

    expect(await guids('/attacks/active')).toEqual([scenario.guid, third, second]);
    expect(await guids('/attacks/active', { source: 'Adhoc' })).toEqual([third, second]);
    expect(await guids('/attacks/active', { source: 'Scenario' })).toEqual([scenario.guid]);
    expect(await guids('/attacks/active', { pageSize: '1' })).toEqual([scenario.guid]);
    expect(await guids('/attacks/completed')).toEqual([first]);
    expect(await guids('/attacks')).toEqual([scenario.guid, third, second, first]);
    expect(
      (await api.call('GET', '/attacks', { auth: owner, teamId: platform, query: { source: 'Manual' } })).status,
    ).toBe(400);
  });

  it('pages attacks created within a time range', async () => {
    const early = await api.createAttack(owner, platform);
    sim.clock.advance(3_600_000);
    const middle = await api.createAttack(owner, platform);
    const middleAt = sim.clock.now();
    sim.clock.advance(3_600_000);
    const late = await api.createAttack(owner, platform);
    const range = async (query: Record<string, string>) => {
      const answer = await api.call('GET', '/attacks/range', { auth: owner, teamId: platform, query });
      expect(answer.status).toBe(200);
      return answer.json();
    };

    expect((await range({})).items.map((attack: { guid: string }) => attack.guid)).toEqual([late, middle, early]);
    const window = await range({
      startTime: new Date(middleAt - 60_000).toISOString(),
      endTime: new Date(middleAt + 60_000).toISOString(),
    });
    expect(window.items.map((attack: { guid: string }) => attack.guid)).toEqual([middle]);
    const firstPage = await range({ pageSize: '2' });
    expect(firstPage.items).toHaveLength(2);
    const secondPage = await range({ pageSize: '2', pageToken: firstPage.pageToken });
    expect(secondPage.items.map((attack: { guid: string }) => attack.guid)).toEqual([early]);
    expect(secondPage.pageToken).toBeUndefined();
    expect(
      (await api.call('GET', '/attacks/range', { auth: owner, teamId: platform, query: { startTime: 'yesterday' } }))
        .status,
    ).toBe(400);
  });

  it('has one execution per target, following the attack', async () => {
    const guid = await api.createAttack(owner, platform, { target: { type: 'Random', tags: { role: 'web' } } });
    sim.clock.advance(4_000);
    const answer = await api.call('GET', '/executions', { auth: owner, teamId: platform, query: { taskId: guid } });
    expect(answer.status).toBe(200);
    const executions = answer.json();
    expect(executions.map((execution: { client_id: string }) => execution.client_id)).toEqual([
      'platform-web-1',
      'platform-web-2',
    ]);
    expect(executions[0]).toMatchObject({
      task_id: guid,
      target_type: 'Host',
      stage: 'Initializing',
      stage_lifecycle: 'Active',
      end_time: null,
      error: null,
    });
    expect(executions[0].guid).not.toBe(executions[1].guid);

    expect((await api.call('GET', '/executions', { auth: owner, teamId: platform })).status).toBe(400);
    expect(
      (
        await api.call('GET', '/executions', {
          auth: owner,
          teamId: sim.seed.teams.payments.id,
          query: { taskId: guid },
        })
      ).status,
    ).toBe(404);
  });
});

describe('attacks created directly on the platform', () => {
  it('show where they came from and who made them, and are in the range and the lists', async () => {
    const fromChat = await api.createAttack(owner, platform);
    sim.clock.advance(60_000);
    const fromWebApp = sim.createAttackDirectly(platform, {
      createUser: 'web-user@acme.test',
      args: ['-l', '300'],
      target: { type: 'Random', tags: { role: 'web' } },
    });
    const fromScenario = sim.createAttackDirectly(platform, { createSource: 'Scenario', source: 'Scenario' });

    expect(await getAttack(fromWebApp)).toMatchObject({
      create_source: 'WebApp',
      create_user: 'web-user@acme.test',
      source: 'Adhoc',
      args: ['-l', '300'],
      targets: ['platform-web-1', 'platform-web-2'],
      stage_lifecycle: 'Active',
    });
    expect(await getAttack(fromScenario)).toMatchObject({
      create_source: 'Scenario',
      source: 'Scenario',
      create_user: sim.seed.users.owner.email,
    });

    const range = await api.call('GET', '/attacks/range', { auth: owner, teamId: platform });
    expect(range.json().items.map((attack: { guid: string }) => attack.guid)).toEqual([
      fromScenario,
      fromWebApp,
      fromChat,
    ]);
    const active = await api.call('GET', '/attacks/active', { auth: owner, teamId: platform });
    expect(active.json().map((attack: { guid: string }) => attack.guid)).toEqual([fromScenario, fromWebApp, fromChat]);
    const executions = await api.call('GET', '/executions', {
      auth: owner,
      teamId: platform,
      query: { taskId: fromWebApp },
    });
    expect(executions.json()).toHaveLength(2);
  });

  it('refuse what the platform would refuse', () => {
    expect(() => sim.createAttackDirectly(platform, { type: 'meteor' })).toThrow(/unknown attack type/);
    expect(() => sim.createAttackDirectly('no-such-team')).toThrow(/No team/);
  });
});

describe('annotations', () => {
  it('merges notes into the attack, in either body form', async () => {
    const guid = await api.createAttack(owner, platform);
    const first = await api.call('PUT', `/attacks/${guid}/annotations`, {
      auth: owner,
      teamId: platform,
      json: { annotations: { note: 'latency spike seen' } },
    });
    expect(first.status).toBe(200);
    expect(first.json().annotations).toEqual({ note: 'latency spike seen' });

    const second = await api.call('PUT', `/attacks/${guid}/annotations`, {
      auth: owner,
      teamId: platform,
      json: { ticket: 'OPS-1' },
    });
    expect(second.json().annotations).toEqual({ note: 'latency spike seen', ticket: 'OPS-1' });

    const bad = await api.call('PUT', `/attacks/${guid}/annotations`, {
      auth: owner,
      teamId: platform,
      json: { annotations: { count: 3 } },
    });
    expect(bad.status).toBe(400);
  });
});

describe('metadata and roles', () => {
  it('describes the attack types, including one the client catalogue does not have', async () => {
    const answer = await api.call('GET', '/metadata', { auth: owner, teamId: platform });
    expect(answer.status).toBe(200);
    const types = answer.json();
    expect(types.map((type: { name: string }) => type.name)).toEqual(
      expect.arrayContaining(['cpu', 'latency', 'dns', 'process_exhaustion']),
    );
    const cpu = types.find((type: { name: string }) => type.name === 'cpu');
    expect(cpu).toMatchObject({ type: 'Resource' });
    expect(cpu.args).toContainEqual(
      expect.objectContaining({ name: 'length', short: 'l', long: 'length', type: 'Integer' }),
    );
  });

  it('reports the built-in roles with their privileges, and one role by id', async () => {
    const roles = (await api.call('GET', '/roles', { auth: owner })).json();
    const observer = roles.team_roles.find((role: { name: string }) => role.name === 'TEAM_OBSERVER');
    expect(observer.privileges).toContain('EXPERIMENTS_READ');
    expect(observer.privileges).not.toContain('HALT_WRITE');
    expect(roles.company_roles.map((role: { name: string }) => role.name)).toEqual([
      'COMPANY_OWNER',
      'COMPANY_ADMIN',
      'COMPANY_USER',
    ]);

    const one = await api.call('GET', '/roles/COMPANY_USER', { auth: owner });
    expect(one.json()).toEqual({
      id: 'COMPANY_USER',
      name: 'COMPANY_USER',
      privileges: ['MINIMUM_COMPANY_PRIVILEGES', 'COMPANY_DEFAULT'],
    });
    expect((await api.call('GET', '/roles/NO_SUCH_ROLE', { auth: owner })).status).toBe(404);
  });
});
