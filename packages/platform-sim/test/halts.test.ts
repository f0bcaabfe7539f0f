import { request } from 'undici';
import { beforeEach, describe, expect, it } from 'vitest';
import { simulatorForFile } from './support.ts';

const { sim, api } = await simulatorForFile();
const platform = sim.seed.teams.platform.id;
const payments = sim.seed.teams.payments.id;
let owner: string;
beforeEach(async () => {
  owner = await api.companyAuth(sim.seed.users.owner);
});

const attack = (guid: string, teamId = platform) => api.getAttack(owner, teamId, guid);

const kubernetesAttack = (objects: unknown[]) => ({
  impactDefinition: { cliArgs: ['memory', '-l', '120', '-p', '50'] },
  targetDefinition: { strategy: { k8sObjects: objects } },
});

describe('halting one attack', () => {
  it('answers 202 with the halted attack the first time and an empty array the second, changing nothing', async () => {
    const guid = await api.createAttack(owner, platform);
    const first = await api.call('DELETE', `/attacks/${guid}`, { auth: owner, teamId: platform });
    expect(first.status).toBe(202);
    const halted = first.json();
    expect(halted).toHaveLength(1);
    expect(halted[0]).toMatchObject({ guid, stage: 'Halt', stage_lifecycle: 'Halting' });

    sim.clock.advance(1_000);
    const second = await api.call('POST', `/attacks/${guid}/halt`, {
      auth: owner,
      teamId: platform,
      json: { reason: 'again' },
    });
    expect(second.status).toBe(202);
    expect(second.json()).toEqual([]);
    const after = await attack(guid);
    expect(after.updated_at).toBe(halted[0].updated_at);
    expect(after.halt_reason).toBeNull();
  });

  it('leaves a finished attack as it was', async () => {
    const guid = await api.createAttack(owner, platform, { args: ['-l', '5'] });
    sim.clock.advance(60_000);
    const before = await attack(guid);
    expect(before.stage).toBe('Successful');

    const answer = await api.call('POST', `/attacks/${guid}/halt`, { auth: owner, teamId: platform });
    expect(answer.status).toBe(202);
    expect(answer.json()).toEqual([]);
    expect(await attack(guid)).toEqual(before);
  });

  it('answers 404 for an attack of another team and 400 for a malformed HaltRequest', async () => {
    const guid = await api.createAttack(owner, platform);
    const elsewhere = await api.call('DELETE', `/attacks/${guid}`, { auth: owner, teamId: payments });
    expect(elsewhere.status).toBe(404);
    const malformed = await api.call('POST', `/attacks/${guid}/halt`, {
      auth: owner,
      teamId: platform,
      json: { reason: 42 },
    });
    expect(malformed.status).toBe(400);
    expect((await attack(guid)).stage_lifecycle).toBe('Active');
  });

  it('is refused to an observer, who lacks HALT_WRITE', async () => {
    const guid = await api.createAttack(owner, platform);
    const observer = await api.companyAuth(sim.seed.users.observer);
    const answer = await api.call('DELETE', `/attacks/${guid}`, { auth: observer, teamId: platform });
    expect(answer.status).toBe(403);
    expect(answer.text).toBe('User requires privilege for target team: HALT_WRITE');
    expect((await attack(guid)).stage_lifecycle).toBe('Active');
  });
});

describe('halting all', () => {
  it.each(['DELETE /attacks', 'POST /attacks/halt'])(
    '%s halts the active attacks of every team of the company, once',
    async (endpoint) => {
      const [method = '', path = ''] = endpoint.split(' ');
      const finished = await api.createAttack(owner, platform, { args: ['-l', '1'] });
      sim.clock.advance(30_000);
      const running = [await api.createAttack(owner, platform), await api.createAttack(owner, payments)];

      const first = await api.call(method, path, { auth: owner });
      expect(first.status).toBe(202);
      expect(
        first
          .json()
          .map((each: { guid: string }) => each.guid)
          .sort(),
      ).toEqual(running.toSorted());
      expect((await attack(running[1] ?? '', payments)).stage).toBe('Halt');
      expect((await attack(finished)).stage).toBe('Successful');

      const second = await api.call(method, path, { auth: owner });
      expect(second.status).toBe(202);
      expect(second.json()).toEqual([]);
    },
  );

  it('POST /halts halts attacks and Kubernetes attacks', async () => {
    const guid = await api.createAttack(owner, platform);
    const created = await api.call('POST', '/kubernetes/attacks/new', {
      auth: owner,
      teamId: platform,
      json: kubernetesAttack([{ clusterId: 'acme-prod', namespace: 'checkout', kind: 'Deployment', name: 'checkout' }]),
    });
    const answer = await api.call('POST', '/halts', { auth: owner, json: { reason: 'stop everything' } });
    expect(answer.status).toBe(202);
    expect((await attack(guid)).stage).toBe('Halt');
    expect(
      (await api.call('GET', `/kubernetes/attacks/${created.text}`, { auth: owner, teamId: platform })).json().stage,
    ).toBe('Halt');
  });

  it('is refused without HALT_ALL, with the company-level text', async () => {
    const guid = await api.createAttack(owner, platform);
    const sre = await api.companyAuth(sim.seed.users.sre, sim.seed.mfaCode);
    for (const [method, path] of [
      ['DELETE', '/attacks'],
      ['POST', '/attacks/halt'],
      ['POST', '/halts'],
      ['POST', '/kubernetes/attacks/halt'],
    ] as const) {
      const answer = await api.call(method, path, { auth: sre });
      expect(answer.status).toBe(403);
      expect(answer.text).toBe('User requires privilege: HALT_ALL');
    }
    expect((await attack(guid)).stage_lifecycle).toBe('Active');
  });
});

describe('Kubernetes attacks', () => {
  const checkout = { clusterId: 'acme-prod', namespace: 'checkout', kind: 'Deployment', name: 'checkout' };

  it('are created with 201 and the guid as text, listed, read and staged like attacks', async () => {
    const created = await api.call('POST', '/kubernetes/attacks/new', {
      auth: owner,
      teamId: platform,
      json: kubernetesAttack([checkout]),
    });
    expect(created.status).toBe(201);
    expect(created.text).toMatch(/^[0-9a-f-]{36}$/);

    const read = await api.call('GET', `/kubernetes/attacks/${created.text}`, { auth: owner, teamId: platform });
    expect(read.status).toBe(200);
    expect(read.json()).toMatchObject({
      guid: created.text,
      stage: 'Pending',
      stage_lifecycle: 'Active',
      end_time: null,
      impact_definition: { cli_args: ['memory', '-l', '120', '-p', '50'] },
      target_definition: {
        strategy: {
          k8s_objects: [{ cluster_id: 'acme-prod', namespace: 'checkout', kind: 'Deployment', name: 'checkout' }],
        },
      },
    });

    const list = await api.call('GET', '/kubernetes/attacks', {
      auth: owner,
      teamId: platform,
      query: { source: 'Adhoc' },
    });
    expect(list.json().map((each: { guid: string }) => each.guid)).toEqual([created.text]);

    sim.clock.advance(6_000 + 120_000 + 2_000);
    const done = (
      await api.call('GET', `/kubernetes/attacks/${created.text}`, { auth: owner, teamId: platform })
    ).json();
    expect(done).toMatchObject({ stage: 'Successful', stage_lifecycle: 'Complete' });
    expect(done.end_time).not.toBeNull();
  });

  it('end TargetNotFound when no object matches, and refuse unknown types', async () => {
    const missing = await api.call('POST', '/kubernetes/attacks/new', {
      auth: owner,
      teamId: platform,
      json: kubernetesAttack([{ ...checkout, name: 'nothing' }]),
    });
    expect(missing.status).toBe(201);
    sim.clock.advance(2_000);
    expect(
      (await api.call('GET', `/kubernetes/attacks/${missing.text}`, { auth: owner, teamId: platform })).json().stage,
    ).toBe('TargetNotFound');

    const unknown = await api.call('POST', '/kubernetes/attacks/new', {
      auth: owner,
      teamId: platform,
      json: { impactDefinition: { cliArgs: ['meteor'] }, targetDefinition: { strategy: { k8sObjects: [checkout] } } },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.text).toMatch(/unknown attack type/);
  });

  it('halt one with 202, idempotently, and all with 202', async () => {
    const first = (
      await api.call('POST', '/kubernetes/attacks/new', {
        auth: owner,
        teamId: platform,
        json: kubernetesAttack([checkout]),
      })
    ).text;
    const second = (
      await api.call('POST', '/kubernetes/attacks/new', {
        auth: owner,
        teamId: payments,
        json: kubernetesAttack([
          { clusterId: 'acme-prod', namespace: 'payments', kind: 'Deployment', name: 'payments-api' },
        ]),
      })
    ).text;
    const stageOf = async (guid: string, teamId: string) =>
      (await api.call('GET', `/kubernetes/attacks/${guid}`, { auth: owner, teamId })).json().stage;

    expect(
      (await api.call('POST', `/kubernetes/attacks/${first}/halt`, { auth: owner, teamId: platform })).status,
    ).toBe(202);
    sim.clock.advance(1_000);
    expect(
      (await api.call('POST', `/kubernetes/attacks/${first}/halt`, { auth: owner, teamId: platform })).status,
    ).toBe(202);
    expect(await stageOf(first, platform)).toBe('Halt');
    expect(await stageOf(second, payments)).toBe('Pending');

    expect((await api.call('POST', '/kubernetes/attacks/halt', { auth: owner })).status).toBe(202);
    expect(await stageOf(second, payments)).toBe('Halt');
    sim.clock.advance(4_000);
    expect(await stageOf(first, platform)).toBe('UserHalted');
  });

  it('narrow the objects to a count or a percentage, refusing both at once', async () => {
    const cartDb = { clusterId: 'acme-prod', namespace: 'checkout', kind: 'StatefulSet', name: 'cart-db' };
    const create = (strategy: Record<string, unknown>) =>
      api.call('POST', '/kubernetes/attacks/new', {
        auth: owner,
        teamId: platform,
        json: {
          impactDefinition: { cliArgs: ['cpu', '-l', '60'] },
          targetDefinition: { strategy: { k8sObjects: [checkout, cartDb], ...strategy } },
        },
      });
    const read = async (guid: string) =>
      (await api.call('GET', `/kubernetes/attacks/${guid}`, { auth: owner, teamId: platform })).json();

    const counted = await read((await create({ count: 1 })).text);
    expect(counted.targets).toEqual(['acme-prod/checkout/Deployment/checkout']);
    expect(counted.target_definition.strategy.count).toBe(1);
    const halfOf = await read((await create({ percentage: 50 })).text);
    expect(halfOf.targets).toHaveLength(1);
    expect(halfOf.target_definition.strategy.percentage).toBe(50);
    expect((await read((await create({})).text)).targets).toHaveLength(2);

    const both = await create({ count: 1, percentage: 50 });
    expect(both.status).toBe(400);
    expect(both.text).toMatch(/^Bad request: .*count or percentage/);
  });

  it('have one execution per object, and show who created and halted them', async () => {
    const guid = (
      await api.call('POST', '/kubernetes/attacks/new', {
        auth: owner,
        teamId: platform,
        json: kubernetesAttack([checkout]),
      })
    ).text;
    const executions = (
      await api.call('GET', '/executions', { auth: owner, teamId: platform, query: { taskId: guid } })
    ).json();
    expect(executions).toEqual([
      expect.objectContaining({
        task_id: guid,
        client_id: 'acme-prod/checkout/Deployment/checkout',
        target_type: 'Kubernetes',
        stage: 'Pending',
      }),
    ]);

    await api.call('POST', `/kubernetes/attacks/${guid}/halt`, {
      auth: owner,
      teamId: platform,
      json: { reason: 'guard fired' },
    });
    const read = (await api.call('GET', `/kubernetes/attacks/${guid}`, { auth: owner, teamId: platform })).json();
    expect(read).toMatchObject({
      create_source: 'Api',
      create_user: sim.seed.users.owner.email,
      halt_reason: 'guard fired',
      halted_by: sim.seed.users.owner.email,
    });
    expect(read.start_time).toBe(read.created_at);
  });
});

describe('the executions of a halted attack', () => {
  const executions = async (guid: string) =>
    (await api.call('GET', '/executions', { auth: owner, teamId: platform, query: { taskId: guid } })).json() as {
      client_id: string;
      stage: string;
      stage_lifecycle: string;
      end_time: string | null;
    }[];
  const hostsOfPlatform = () => sim.seed.hosts.filter((h) => h.teamId === platform).map((h) => h.id);
  const halt = (guid: string) => api.call('POST', `/attacks/${guid}/halt`, { auth: owner, teamId: platform });

  it('all reach UserHalted two stages after the halt', async () => {
    const hosts = hostsOfPlatform().slice(0, 3);
    const guid = await api.createAttack(owner, platform, {
      args: ['-l', '600'],
      target: { type: 'Exact', hosts: { ids: hosts } },
    });
    sim.clock.advance(10_000);
    expect((await halt(guid)).json()).toHaveLength(1);
    expect((await executions(guid)).map((e) => e.stage_lifecycle)).toEqual(['Halting', 'Halting', 'Halting']);
    sim.clock.advance(4_000);
    const after = await executions(guid);
    expect(after.map((e) => e.stage)).toEqual(['UserHalted', 'UserHalted', 'UserHalted']);
    expect(after.every((e) => e.end_time !== null)).toBe(true);
    expect((await attack(guid)).stage).toBe('UserHalted');
  });

  it('keeps a target that ignores halts running, and the attack halting, until a later halt reaches it', async () => {
    const hosts = hostsOfPlatform().slice(0, 3);
    const deaf = hosts[1]!;
    const guid = await api.createAttack(owner, platform, {
      args: ['-l', '600'],
      target: { type: 'Exact', hosts: { ids: hosts } },
    });
    sim.clock.advance(10_000);
    const set = await api.call('GET', '/executions', { auth: owner, teamId: platform, query: { taskId: guid } });
    expect(set.status).toBe(200);
    const control = (ignore: boolean) =>
      request(`${sim.controlUrl}/targets/${deaf}/halts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ignore }),
        dispatcher: api.agent,
      });
    expect((await control(true)).statusCode).toBe(200);
    expect((await halt(guid)).json()).toHaveLength(1);
    sim.clock.advance(60_000);
    const stuck = await executions(guid);
    expect(stuck.map((e) => [e.client_id, e.stage])).toEqual([
      [hosts[0], 'UserHalted'],
      [deaf, 'Running'],
      [hosts[2], 'UserHalted'],
    ]);
    expect(await attack(guid)).toMatchObject({ stage: 'HaltDistributed', stage_lifecycle: 'Halting', end_time: null });

    // Halting again changes nothing while the target still ignores halts…
    expect((await halt(guid)).json()).toEqual([]);
    expect((await control(false)).statusCode).toBe(200);
    // …and reaches it once it takes them again.
    expect((await halt(guid)).json()).toHaveLength(1);
    sim.clock.advance(4_000);
    expect((await executions(guid)).map((e) => e.stage)).toEqual(['UserHalted', 'UserHalted', 'UserHalted']);
    expect(await attack(guid)).toMatchObject({ stage: 'UserHalted', stage_lifecycle: 'Complete' });
  });

  it('the control refuses a target nobody knows', async () => {
    const answer = await request(`${sim.controlUrl}/targets/nowhere/halts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ignore: true }),
      dispatcher: api.agent,
    });
    expect(answer.statusCode).toBe(404);
    await answer.body.text();
  });
});
