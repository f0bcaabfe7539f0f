/**
 * The client's reads for a target preview and a halt receipt, against the platform simulator over
 * real HTTPS: a team's clients (GET /clients) and, per target, when a halted execution stopped.
 */
import { type Simulator, startSimulator } from '@faultline/platform-sim';
import { Agent } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type CallContext,
  type CreateAttackInput,
  createPlatformClient,
  ForbiddenError,
  InvalidResponseError,
  type PlatformClient,
  resolveTarget,
  type TargetResolution,
} from '../../src/client/index.ts';

let sim: Simulator;
let dispatcher: Agent;
let platform: PlatformClient;
let owner: CallContext;

beforeAll(async () => {
  sim = await startSimulator();
  dispatcher = new Agent({ connect: { ca: sim.ca } });
  platform = createPlatformClient({ baseUrl: sim.url, dispatcher, sleep: async () => {} });
});

afterAll(async () => {
  await platform?.close();
  await dispatcher?.close();
  await sim?.stop();
});

beforeEach(async () => {
  sim.reset();
  const { email, password } = sim.seed.users.owner;
  owner = { header: (await platform.auth.login({ email, password })).header, teamId: sim.seed.teams.platform.id };
});

const names = (clients: Array<{ identifier: string }>) => clients.map((client) => client.identifier);

describe('clients', () => {
  it("lists the team's hosts with their tags and containers with their labels, for that team only", async () => {
    const clients = await platform.as(owner).clients.list();
    expect(names(clients)).toEqual(['platform-web-1', 'platform-web-2', 'platform-db-1', 'platform-cache-1']);
    expect(clients[0]).toMatchObject({
      identifier: 'platform-web-1',
      active: true,
      tags: { role: 'web', zone: 'us-east-1a' },
      containers: [
        { id: 'checkout-1', labels: { app: 'checkout', tier: 'frontend' } },
        { id: 'cart-1', labels: { app: 'cart' } },
      ],
    });
    expect(Number.isNaN(Date.parse(clients[0]!.last_seen ?? ''))).toBe(false);
    expect(sim.requests.filter((r) => r.path === '/clients').map((r) => [r.method, r.teamId, r.status])).toEqual([
      ['GET', sim.seed.teams.platform.id, 200],
    ]);

    const payments = await platform.as({ ...owner, teamId: sim.seed.teams.payments.id }).clients.list();
    expect(names(payments)).toEqual(['payments-web-1', 'payments-db-1']);
  });

  it('leaves out of the active ones a host whose agent stopped reporting, and shows one that joined', async () => {
    sim.clients.setActive('platform-db-1', false);
    sim.clients.addHost(sim.seed.teams.platform.id, 'platform-web-3', { role: 'web' });
    sim.clients.addContainer('platform-web-3', 'checkout-3', { app: 'checkout' });

    const all = await platform.as(owner).clients.list();
    expect(all.find((client) => client.identifier === 'platform-db-1')?.active).toBe(false);
    const active = await platform.as(owner).clients.listActive();
    expect(names(active)).toEqual(['platform-web-1', 'platform-web-2', 'platform-cache-1', 'platform-web-3']);
    expect(active.at(-1)?.containers).toEqual([{ id: 'checkout-3', name: 'checkout-3', labels: { app: 'checkout' } }]);
  });

  it("refuses another company's team, and a body that is not a list of clients", async () => {
    const { email, password } = sim.seed.users.globex;
    const globex = { header: (await platform.auth.login({ email, password })).header, teamId: owner.teamId };
    await expect(platform.as(globex).clients.list()).rejects.toBeInstanceOf(ForbiddenError);

    sim.faults.inject({ kind: 'status', status: 200, path: '/clients', body: '{"items": "none"}' });
    await expect(platform.as(owner).clients.list()).rejects.toBeInstanceOf(InvalidResponseError);
  });
});

describe('what a halt receipt reads', () => {
  it("gives each target's execution its own end time when targets stop at different times", async () => {
    sim.delayStop('platform-db-1', 5_000);
    sim.delayStop('platform-cache-1', 1_500);
    const guid = await platform.as(owner).attacks.create({
      command: { type: 'cpu', args: ['-l', '600'] },
      target: { type: 'Exact', hosts: { ids: ['platform-web-1', 'platform-db-1', 'platform-cache-1'] } },
    });
    sim.clock.advance(10_000);
    const [halted] = (await platform.as(owner).attacks.halt(guid)) ?? [];
    expect(halted?.stage_lifecycle).toBe('Halting');
    // The attack entered the Halt stage when the halt was taken.
    const haltedAt = Date.parse(halted!.updated_at!);

    // Two stages of 2 s after the halt the prompt target has stopped; the slow ones still halt.
    sim.clock.advance(4_000);
    const early = await platform.as(owner).attacks.executions(guid);
    expect(early.map((execution) => [execution.client_id, execution.stage_lifecycle])).toEqual([
      ['platform-web-1', 'Complete'],
      ['platform-db-1', 'Halting'],
      ['platform-cache-1', 'Halting'],
    ]);
    expect(early.map((execution) => execution.end_time === undefined)).toEqual([false, true, true]);

    sim.clock.advance(5_000);
    const stopped = await platform.as(owner).attacks.executions(guid);
    expect(stopped.every((execution) => execution.stage === 'UserHalted')).toBe(true);
    const took = stopped.map((execution) => Date.parse(execution.end_time!) - haltedAt);
    expect(took).toEqual([4_000, 9_000, 5_500]);
    expect((await platform.as(owner).attacks.get(guid)).end_time).toBe(stopped[1]!.end_time);
  });
});

describe('resolving a target against the clients', () => {
  type Target = CreateAttackInput['target'];
  const cases: Array<[string, Target, Partial<TargetResolution>]> = [
    ['hosts by tag', { type: 'Random', tags: { role: 'web' } }, { kind: 'Host', hits: 2, outOf: 3 }],
    ['a count of them', { type: 'Random', tags: { role: 'web' }, exact: 1 }, { kind: 'Host', hits: 1 }],
    ['every active host', { type: 'Random' }, { kind: 'Host', hits: 3, outOf: 3 }],
    ['hosts by name', { type: 'Exact', hosts: { ids: ['platform-db-1', 'platform-web-2'] } }, { hits: 2 }],
    ['containers by label', { type: 'Random', containers: { labels: { app: 'checkout' } } }, { kind: 'Container' }],
    [
      'containers by label on tagged hosts',
      { type: 'Random', tags: { zone: 'us-east-1a' }, containers: { labels: { tier: 'data' } } },
      { hits: 1, outOf: 4 },
    ],
    // redis-1 runs on the inactive host.
    [
      'containers by id',
      { type: 'Exact', containers: { ids: ['redis-1', 'cart-1'] } },
      { kind: 'Container', matches: ['cart-1'] },
    ],
    ['a tag nothing carries', { type: 'Random', tags: { role: 'webb' } }, { matches: [], hits: 0, outOf: 3 }],
  ];

  it.each(cases)('finds what an attack then hits: %s', async (_, target, expected) => {
    // platform-cache-1 and its container redis-1 are out of every count.
    sim.clients.setActive('platform-cache-1', false);
    const resolution = resolveTarget(await platform.as(owner).clients.list(), target);
    expect(resolution).toMatchObject({ unknownHosts: [], ...expected });
    const guid = await platform.as(owner).attacks.create({ command: { type: 'cpu', args: ['-l', '60'] }, target });
    const attack = await platform.as(owner).attacks.get(guid);
    expect(attack.target_type).toBe(resolution.kind);
    expect(attack.targets).toHaveLength(resolution.hits);
    expect(resolution.matches).toEqual(expect.arrayContaining(attack.targets));
    if (resolution.hits === resolution.matches.length)
      expect(attack.targets.toSorted()).toEqual(resolution.matches.toSorted());
  });

  it('names the hosts an Exact target gives that the team has no active client for', async () => {
    sim.clients.setActive('platform-db-1', false);
    const clients = await platform.as(owner).clients.list();
    const resolution = resolveTarget(clients, {
      type: 'Exact',
      exact: ['platform-web-1', 'platform-db-1', 'platfrom-web-2'],
    });
    expect(resolution).toEqual({
      kind: 'Host',
      matches: ['platform-web-1'],
      hits: 1,
      outOf: 3,
      unknownHosts: ['platform-db-1', 'platfrom-web-2'],
    });
  });

  it('counts a client the platform does not call inactive, and reads top-level labels as container labels', () => {
    const clients = [
      { identifier: 'a', tags: {}, containers: [{ id: 'a-1', labels: { app: 'x' } }] },
      { identifier: 'b', active: false, tags: {}, containers: [{ id: 'b-1', labels: { app: 'x' } }] },
    ];
    expect(resolveTarget(clients, { type: 'Random' }, { app: 'x' })).toMatchObject({
      kind: 'Container',
      matches: ['a-1'],
      outOf: 1,
    });
  });
});
