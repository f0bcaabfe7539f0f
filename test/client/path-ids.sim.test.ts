/**
 * Ids placed in URL paths, against the simulator over HTTPS: an id that could change which
 * endpoint a path names (`.` makes `/attacks/./halt` read as `/attacks/halt`, halt all) is refused
 * before anything is sent, and a valid one still reaches its endpoint.
 */
import { type Simulator, startSimulator } from '@faultline/platform-sim';
import { Agent } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type CallContext,
  createPlatformClient,
  type PlatformClient,
  type ScopedPlatform,
} from '../../src/client/index.ts';

let sim: Simulator;
let dispatcher: Agent;
let platform: PlatformClient;

beforeAll(async () => {
  sim = await startSimulator();
  dispatcher = new Agent({ connect: { ca: sim.ca } });
  platform = createPlatformClient({ baseUrl: sim.url, dispatcher, sleep: async () => undefined });
});

afterAll(async () => {
  await platform?.close();
  await dispatcher?.close();
  await sim?.stop();
});

beforeEach(() => sim.reset());

async function ownerOnPlatformTeam(): Promise<{ api: ScopedPlatform; ctx: CallContext }> {
  const { email, password } = sim.seed.users.owner;
  const session = await platform.auth.login({ email, password });
  const ctx = { header: session.header, teamId: sim.seed.teams.platform.id };
  return { api: platform.as(ctx), ctx };
}

const forged: unknown[] = [
  '.',
  '..',
  '../x',
  '../../attacks',
  'a/b',
  '%2e',
  '%2e%2e',
  '',
  ' ',
  'x?teamId=y',
  'x#y',
  'a\\b',
  '.hidden',
  'é',
  'x'.repeat(200),
  1.5,
  -1,
  true,
  ['abc'],
  undefined,
  null,
  { g: 'x' },
];

const calls: [string, (api: ScopedPlatform, id: string) => Promise<unknown>][] = [
  ['attacks.get', (api, id) => api.attacks.get(id)],
  ['attacks.halt (POST)', (api, id) => api.attacks.halt(id, { reason: 'test' })],
  ['attacks.halt (DELETE)', (api, id) => api.attacks.halt(id, undefined, { method: 'DELETE' })],
  ['attacks.annotate', (api, id) => api.attacks.annotate(id, { note: 'x' })],
  ['kubernetes.get', (api, id) => api.kubernetes.get(id)],
  ['kubernetes.halt', (api, id) => api.kubernetes.halt(id)],
  ['monitoring.getMonitorA', (api, id) => api.monitoring.getMonitorA(id, { integrationName: 'acme-metrics' })],
];

describe('ids in URL paths', () => {
  it.each(calls)('%s refuses every forged id with InvalidIdError and sends nothing', async (_name, call) => {
    const { api } = await ownerOnPlatformTeam();
    const before = sim.requests.length;
    for (const id of forged) {
      await expect(call(api, id as string), `id ${JSON.stringify(id)}`).rejects.toMatchObject({
        name: 'InvalidIdError',
      });
    }
    expect(sim.requests.slice(before).map((r) => `${r.method} ${r.path}`)).toEqual([]);
  });

  it('never halts everything through a guid of "."', async () => {
    const { api } = await ownerOnPlatformTeam();
    const [guid] = sim.addAttacks(sim.seed.teams.platform.id, 1);
    await expect(api.attacks.halt('.')).rejects.toMatchObject({
      name: 'InvalidIdError',
      message: expect.stringContaining('nothing was sent'),
    });
    expect(sim.state.attacks.get(guid!)!.halt).toBeUndefined();
  });

  it('still reaches the endpoint with a valid id, encoded as one segment', async () => {
    const { api } = await ownerOnPlatformTeam();
    const [guid] = sim.addAttacks(sim.seed.teams.platform.id, 1);
    expect((await api.attacks.get(guid!)).guid).toBe(guid);
    await api.attacks.halt(guid!, { reason: 'test' });
    expect(sim.state.attacks.get(guid!)!.halt?.reason).toBe('test');
    expect(sim.requests.filter((r) => r.path.startsWith('/attacks/')).map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET /attacks/${guid}`,
      `POST /attacks/${guid}/halt`,
    ]);
  });
});
