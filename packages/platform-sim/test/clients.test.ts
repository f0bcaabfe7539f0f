import { request } from 'undici';
import { beforeEach, describe, expect, it } from 'vitest';
import { simulatorForFile, type Answer } from './support.ts';

const { sim, api } = await simulatorForFile();
const platform = sim.seed.teams.platform.id;
const payments = sim.seed.teams.payments.id;
let owner: string;
beforeEach(async () => {
  owner = await api.companyAuth(sim.seed.users.owner);
});

interface ClientRecord {
  identifier: string;
  active: boolean;
  tags: Record<string, string>;
  containers: Array<{ id: string; name: string; labels: Record<string, string> }>;
  last_seen: string;
}

async function clients(teamId = platform, auth = owner): Promise<ClientRecord[]> {
  const answer = await api.call('GET', '/clients', { auth, teamId });
  expect(answer.status, answer.text).toBe(200);
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  return answer.json();
}

const byName = (records: ClientRecord[]) => Object.fromEntries(records.map((record) => [record.identifier, record]));

async function control(method: string, path: string, body?: unknown): Promise<Answer> {
  const response = await request(`${sim.controlUrl}${path}`, {
    method: method as 'GET',
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    dispatcher: api.agent,
  });
  const text = await response.body.text();
  return { status: response.statusCode, headers: response.headers, text, json: () => JSON.parse(text) };
}

/** The hosts (or containers) an attack created now on the target hits. */
async function hit(target: unknown): Promise<string[]> {
  const guid = await api.createAttack(owner, platform, { target });
  return (await api.getAttack(owner, platform, guid)).targets;
}

describe('GET /clients', () => {
  it("answers the team's hosts with their tags and containers with their labels, as the seed has them", async () => {
    const records = await clients();
    expect(records.map((record) => record.identifier)).toEqual([
      'platform-web-1',
      'platform-web-2',
      'platform-db-1',
      'platform-cache-1',
    ]);
    const web1 = byName(records)['platform-web-1']!;
    expect(web1).toEqual({
      identifier: 'platform-web-1',
      active: true,
      tags: { role: 'web', zone: 'us-east-1a', os: 'linux' },
      containers: [
        { id: 'checkout-1', name: 'checkout-1', labels: { app: 'checkout', tier: 'frontend' } },
        { id: 'cart-1', name: 'cart-1', labels: { app: 'cart', tier: 'backend' } },
      ],
      last_seen: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(byName(records)['platform-db-1']?.containers.map((container) => container.id)).toEqual(['postgres-1']);
    // What the resolution of platform-contract.md picks is what an attack then hits.
    expect(await hit({ type: 'Random', tags: { role: 'web' } })).toEqual(
      records.filter((record) => record.tags['role'] === 'web').map((record) => record.identifier),
    );
  });

  it("keeps each team to its own clients, and another company's team is refused", async () => {
    expect((await clients(payments)).map((record) => record.identifier)).toEqual(['payments-web-1', 'payments-db-1']);
    const globex = await api.companyAuth(sim.seed.users.globex);
    const refused = await api.call('GET', '/clients', { auth: globex, teamId: platform });
    expect(refused.status).toBe(403);
    expect(refused.text).toBe('User requires privilege for target team: EXPERIMENTS_READ');
    expect((await api.call('GET', '/clients', { teamId: platform })).status).toBe(401);
  });

  it('answers a team session without teamId, and an observer may read', async () => {
    const [session] = await api.teamSessions(sim.seed.users.observer);
    const answer = await api.call('GET', '/clients', { auth: session!.header });
    expect(answer.status).toBe(200);
    expect(answer.json<ClientRecord[]>()).toHaveLength(4);
  });
});

describe("changing a team's clients", () => {
  it('adds a host and a container through /_control; both are listed and an attack made then hits them', async () => {
    const host = await control('POST', '/hosts', { team: 'Platform', id: 'platform-web-3', tags: { role: 'web' } });
    expect(host.status, host.text).toBe(201);
    expect(host.json()).toMatchObject({ id: 'platform-web-3', kind: 'host', team: 'Platform', active: true });
    const container = await control('POST', '/hosts/platform-web-3/containers', {
      id: 'checkout-3',
      labels: { app: 'checkout' },
    });
    expect(container.status, container.text).toBe(201);

    expect(byName(await clients())['platform-web-3']).toMatchObject({
      active: true,
      tags: { role: 'web' },
      containers: [{ id: 'checkout-3', name: 'checkout-3', labels: { app: 'checkout' } }],
    });
    expect(await hit({ type: 'Random', tags: { role: 'web' } })).toEqual([
      'platform-web-1',
      'platform-web-2',
      'platform-web-3',
    ]);
    expect(await hit({ type: 'Random', containers: { labels: { app: 'checkout' } } })).toEqual([
      'checkout-1',
      'checkout-2',
      'checkout-3',
    ]);
  });

  it('deactivates a host: listed inactive, seen last when it stopped, and skipped with its containers by attacks', async () => {
    const stoppedAt = sim.clock.now();
    const answer = await control('POST', '/hosts/platform-web-2/active', { active: false });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json()).toMatchObject({ id: 'platform-web-2', active: false });
    sim.clock.advance(10 * 60_000);

    const web2 = byName(await clients())['platform-web-2']!;
    expect(web2.active).toBe(false);
    expect(Date.parse(web2.last_seen)).toBeGreaterThanOrEqual(stoppedAt);
    expect(Date.parse(web2.last_seen)).toBeLessThan(sim.clock.now() - 5 * 60_000);
    expect(web2.containers.map((container) => container.id)).toEqual(['checkout-2']);

    expect(await hit({ type: 'Random', tags: { role: 'web' } })).toEqual(['platform-web-1']);
    expect(await hit({ type: 'Random', containers: { labels: { app: 'checkout' } } })).toEqual(['checkout-1']);
    expect(await hit({ type: 'Exact', hosts: { ids: ['platform-web-2', 'platform-db-1'] } })).toEqual([
      'platform-db-1',
    ]);
    expect(await hit({ type: 'Exact', containers: { ids: ['checkout-2', 'checkout-1'] } })).toEqual(['checkout-1']);

    sim.clients.setActive('platform-web-2', true);
    expect(byName(await clients())['platform-web-2']?.active).toBe(true);
    expect(await hit({ type: 'Random', tags: { role: 'web' } })).toEqual(['platform-web-1', 'platform-web-2']);
  });

  it('removes a host with its containers, in process as through /_control', async () => {
    sim.clients.remove('platform-cache-1');
    expect((await control('DELETE', '/targets/checkout-2')).status).toBe(200);
    const records = byName(await clients());
    expect(records['platform-cache-1']).toBeUndefined();
    expect(records['platform-web-2']?.containers).toEqual([]);
    const targets = (await control('GET', '/targets')).json<Array<{ id: string }>>().map((target) => target.id);
    expect(targets).not.toContain('redis-1');
    expect(targets).not.toContain('checkout-2');
    expect(await hit({ type: 'Random', containers: { labels: { tier: 'data' } } })).toEqual(['postgres-1']);
  });

  it('refuses changes it cannot make, saying why', async () => {
    const cases: Array<[string, string, unknown, number, RegExp]> = [
      ['POST', '/hosts', { team: 'Platform', id: 'platform-web-1' }, 409, /exists already/],
      ['POST', '/hosts', { team: 'Nobody', id: 'x-1' }, 400, /no team is named "Nobody"/],
      ['POST', '/hosts', { team: 'Platform', id: 'no spaces' }, 400, /not a client id/],
      ['POST', '/hosts/nowhere/containers', { id: 'c-1' }, 404, /No host nowhere/],
      ['POST', '/hosts/checkout-1/active', { active: false }, 404, /No host checkout-1/],
      ['DELETE', '/targets/nowhere', undefined, 404, /No host or container nowhere/],
      ['POST', '/targets/platform-db-1/stop-delay', { seconds: -1 }, 400, /seconds/],
      ['POST', '/targets/nowhere/stop-delay', { seconds: 5 }, 404, /No target nowhere/],
    ];
    for (const [method, path, body, status, text] of cases) {
      const answer = await control(method, path, body);
      expect(answer.status, `${method} ${path}`).toBe(status);
      expect(answer.text, `${method} ${path}`).toMatch(text);
    }
    expect(await clients()).toHaveLength(4);
  });
});

describe('a target that stops late', () => {
  type Execution = { client_id: string; stage: string; stage_lifecycle: string; end_time: string | null };
  const executions = async (guid: string) =>
    (await api.call('GET', '/executions', { auth: owner, teamId: platform, query: { taskId: guid } })).json<
      Execution[]
    >();
  const hosts = ['platform-web-1', 'platform-db-1', 'platform-cache-1'];

  it('stays halting for its delay after the others stopped, and its execution ends that much later', async () => {
    const set = await control('POST', '/targets/platform-db-1/stop-delay', { seconds: 5 });
    expect(set.json()).toEqual({ id: 'platform-db-1', stopDelaySeconds: 5 });
    sim.delayStop('platform-cache-1', 2_000);
    const guid = await api.createAttack(owner, platform, {
      args: ['-l', '600'],
      target: { type: 'Exact', hosts: { ids: hosts } },
    });
    sim.clock.advance(10_000);
    const halt = await api.call('POST', `/attacks/${guid}/halt`, { auth: owner, teamId: platform });
    const haltedAt = Date.parse(halt.json()[0].updated_at);

    // Halt and HaltDistributed take two stages of 2 s: the first target is done after 4 s.
    sim.clock.advance(4_000);
    expect((await executions(guid)).map((each) => [each.client_id, each.stage])).toEqual([
      ['platform-web-1', 'UserHalted'],
      ['platform-db-1', 'HaltDistributed'],
      ['platform-cache-1', 'HaltDistributed'],
    ]);
    expect(await api.getAttack(owner, platform, guid)).toMatchObject({ stage_lifecycle: 'Halting', end_time: null });

    sim.clock.advance(5_000);
    const done = await executions(guid);
    expect(done.map((each) => each.stage)).toEqual(['UserHalted', 'UserHalted', 'UserHalted']);
    expect(done.map((each) => Date.parse(each.end_time!) - haltedAt)).toEqual([4_000, 9_000, 6_000]);
    const attack = await api.getAttack(owner, platform, guid);
    expect(attack).toMatchObject({ stage: 'UserHalted', stage_lifecycle: 'Complete' });
    expect(Date.parse(attack.end_time) - haltedAt).toBe(9_000);

    const listed = (await control('GET', '/targets')).json<Array<{ id: string; stopDelaySeconds: number }>>();
    expect(listed.find((target) => target.id === 'platform-db-1')?.stopDelaySeconds).toBe(5);
  });

  it('applies from the next halt on, and 0 takes it away', async () => {
    const guid = await api.createAttack(owner, platform, {
      args: ['-l', '600'],
      target: { type: 'Exact', hosts: { ids: hosts } },
    });
    sim.clock.advance(10_000);
    await api.call('POST', `/attacks/${guid}/halt`, { auth: owner, teamId: platform });
    sim.delayStop('platform-db-1', 30_000);
    sim.clock.advance(4_000);
    expect((await executions(guid)).map((each) => each.stage)).toEqual(['UserHalted', 'UserHalted', 'UserHalted']);

    sim.delayStop('platform-db-1', 0);
    const next = await api.createAttack(owner, platform, {
      args: ['-l', '600'],
      target: { type: 'Exact', hosts: { ids: hosts } },
    });
    await api.call('POST', `/attacks/${next}/halt`, { auth: owner, teamId: platform });
    sim.clock.advance(4_000);
    expect((await api.getAttack(owner, platform, next)).stage).toBe('UserHalted');
  });
});
