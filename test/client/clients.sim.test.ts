/**
 * The client's reads for a target preview and a halt receipt, against the platform simulator over
 * real HTTPS: a team's clients (GET /clients) and, per target, when a halted execution stopped.
 */
import { type Simulator, startSimulator } from '@faultline/platform-sim';
import { Agent } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type CallContext,
  createPlatformClient,
  ForbiddenError,
  InvalidResponseError,
  type PlatformClient,
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
