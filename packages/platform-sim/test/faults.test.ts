import { beforeEach, describe, expect, it, vi } from 'vitest';
import { simulatorForFile } from './support.ts';

const { sim, api } = await simulatorForFile();
const platform = sim.seed.teams.platform.id;
let owner: string;
beforeEach(async () => {
  owner = await api.companyAuth(sim.seed.users.owner);
});

const listActive = () => api.call('GET', '/attacks/active', { auth: owner, teamId: platform });

/** Starts a request and reports whether it has settled, without waiting for it. */
function track<T>(promise: Promise<T>) {
  const tracked = { settled: false, promise };
  promise.then(
    () => (tracked.settled = true),
    () => (tracked.settled = true),
  );
  return tracked;
}

async function waitUntilReceived(path: string) {
  await vi.waitFor(
    () => expect(sim.requests.some((request) => request.path === path && request.status === 0)).toBe(true),
    { timeout: 5_000, interval: 5 },
  );
}

describe('status faults', () => {
  it('answer the given status with Retry-After once, then normally', async () => {
    sim.faults.inject({ kind: 'status', status: 429, retryAfter: 7, method: 'GET', path: '/attacks/active' });
    const limited = await listActive();
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('7');
    expect(limited.text).toBe('Too Many Requests');
    expect((await listActive()).status).toBe(200);
  });

  it('apply `times` times, with the body given, to matching requests only', async () => {
    sim.faults.inject({ kind: 'status', status: 503, body: 'maintenance', path: /^\/attacks\//, times: 2 });
    expect((await api.call('GET', '/roles', { auth: owner })).status).toBe(200);
    const first = await api.call('GET', '/attacks/active', { auth: owner, teamId: platform });
    const second = await api.call('GET', '/attacks/completed', { auth: owner, teamId: platform });
    expect([first.status, first.text, second.status]).toEqual([503, 'maintenance', 503]);
    expect((await listActive()).status).toBe(200);
  });

  it('match the method when one is given', async () => {
    sim.faults.inject({ kind: 'status', status: 500, method: 'POST', path: '/attacks/new' });
    expect((await listActive()).status).toBe(200);
    const create = await api.call('POST', '/attacks/new', {
      auth: owner,
      teamId: platform,
      json: { command: { type: 'cpu' }, target: { type: 'Random' } },
    });
    expect(create.status).toBe(500);
    expect(sim.state.attacks.size).toBe(0);
  });

  it('last until cleared when times is Infinity', async () => {
    sim.faults.inject({ kind: 'status', status: 502, times: Infinity });
    for (let attempt = 0; attempt < 3; attempt++) expect((await listActive()).status).toBe(502);
    sim.faults.clear();
    expect((await listActive()).status).toBe(200);
  });
});

describe('connection faults', () => {
  it('reset destroys the connection without an answer', async () => {
    sim.faults.inject({ kind: 'reset', path: '/attacks/active' });
    await expect(listActive()).rejects.toThrow();
    expect((await listActive()).status).toBe(200);
    expect(
      sim.requests.filter((request) => request.path === '/attacks/active').map((request) => request.status),
    ).toEqual([0, 200]);
  });

  it('hang never answers until the faults are cleared', async () => {
    sim.faults.inject({ kind: 'hang', path: '/attacks/active' });
    const pending = track(listActive());
    await waitUntilReceived('/attacks/active');
    expect(pending.settled).toBe(false);

    sim.faults.clear();
    await expect(pending.promise).rejects.toThrow();
    expect((await listActive()).status).toBe(200);
  });

  it('lostAnswer does what was asked, then never answers until the faults are cleared', async () => {
    sim.faults.inject({ kind: 'lostAnswer', method: 'POST', path: '/attacks/new' });
    const pending = track(
      api.call('POST', '/attacks/new', {
        auth: owner,
        teamId: platform,
        json: { command: { type: 'cpu', args: ['-l', '60'] }, target: { type: 'Random' } },
      }),
    );
    await waitUntilReceived('/attacks/new');
    await vi.waitFor(() => expect(sim.state.attacks.size).toBe(1), { timeout: 5_000, interval: 5 });
    expect(pending.settled).toBe(false);

    sim.faults.clear();
    await expect(pending.promise).rejects.toThrow();
    expect(sim.state.attacks.size).toBe(1);
  });

  it('latency holds the answer, which then arrives as normal', async () => {
    sim.faults.inject({ kind: 'latency', ms: 600_000, path: '/attacks/active' });
    const pending = track(listActive());
    await waitUntilReceived('/attacks/active');
    expect(pending.settled).toBe(false);

    sim.faults.clear();
    const answer = await pending.promise;
    expect(answer.status).toBe(200);
    expect(answer.json()).toEqual([]);
  });

  it('a short latency answers normally on its own', async () => {
    sim.faults.inject({ kind: 'latency', ms: 5 });
    expect((await listActive()).status).toBe(200);
  });

  it('refuses faults that make no sense', () => {
    expect(() => sim.faults.inject({ kind: 'status', status: 42 })).toThrow(RangeError);
    expect(() => sim.faults.inject({ kind: 'latency', ms: -1 })).toThrow(RangeError);
    expect(() => sim.faults.inject({ kind: 'reset', times: 0 })).toThrow(RangeError);
  });
});

describe('recorded requests', () => {
  it('lists every request in order with its path after /v1, query, team and status', async () => {
    sim.requests.length = 0;
    await listActive();
    await api.call('GET', '/attacks/active/paged', { auth: owner, teamId: platform, query: { pageSize: '10' } });
    await api.call('GET', '/attacks/active', { auth: owner });
    const [teamSession] = await api.teamSessions(sim.seed.users.solo);
    await api.call('GET', '/metadata', { auth: teamSession?.header ?? '' });

    expect(sim.requests.map(({ method, path, teamId, status }) => ({ method, path, teamId, status }))).toEqual([
      { method: 'GET', path: '/attacks/active', teamId: platform, status: 200 },
      { method: 'GET', path: '/attacks/active/paged', teamId: platform, status: 200 },
      { method: 'GET', path: '/attacks/active', status: 400 },
      { method: 'POST', path: '/users/auth', status: 200 },
      { method: 'GET', path: '/metadata', teamId: platform, status: 200 },
    ]);
    expect(sim.requests[1]?.query).toEqual({ pageSize: '10', teamId: platform });
    expect(sim.requests[0]?.at).toBeLessThanOrEqual(sim.clock.now());
  });

  it('are emptied by reset, which also restores the seed and the clock', async () => {
    sim.addAttacks(platform, 3);
    sim.addTeams(sim.seed.users.solo.email, 2);
    sim.clock.advance(3_600_000);
    sim.faults.inject({ kind: 'status', status: 500, times: Infinity });
    sim.reset();

    expect(sim.requests).toEqual([]);
    expect(sim.state.attacks.size).toBe(0);
    expect(sim.state.sessions.size).toBe(0);
    expect(sim.state.teams.size).toBe(4);
    expect(Math.abs(sim.clock.now() - Date.now())).toBeLessThan(60_000);
    const auth = await api.companyAuth(sim.seed.users.owner);
    expect((await api.call('GET', '/attacks/active', { auth, teamId: platform })).status).toBe(200);
  });
});
