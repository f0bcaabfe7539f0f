import { beforeEach, describe, expect, it } from 'vitest';
import { simulatorForFile } from './support.ts';

const { sim, api } = await simulatorForFile();
const platform = sim.seed.teams.platform.id;
const { a, b } = sim.seed.monitoring;
const latency = a.monitors.find((monitor) => monitor.name === 'checkout p99 latency')!;
const integrationA = { monitoringAIntegrationName: a.integrationName, domain: a.domain };
const integrationB = { monitoringBUri: b.uri };
let owner: string;
beforeEach(async () => {
  owner = await api.companyAuth(sim.seed.users.owner);
});

const readMonitor = (id: number | string, query: Record<string, string> = integrationA, auth = owner) =>
  api.call('GET', `/monitoringA/monitors/${id}`, { auth, teamId: platform, query });
const searchMonitors = (query: Record<string, string>) =>
  api.call('GET', '/monitoringA/monitors', { auth: owner, teamId: platform, query: { ...integrationA, ...query } });
const alerts = (query: Record<string, string> = {}) =>
  api.call('GET', '/monitoringB/alerts', { auth: owner, teamId: platform, query: { ...integrationB, ...query } });

describe('monitoringA monitors', () => {
  it('reads one monitor in the contract shape', async () => {
    const answer = await readMonitor(latency.id);
    expect(answer.status).toBe(200);
    expect(answer.json()).toMatchObject({
      id: latency.id,
      name: 'checkout p99 latency',
      type: 'metric alert',
      overall_state: 'OK',
      query: expect.stringContaining('checkout'),
      tags: expect.arrayContaining(['service:checkout']),
      message: expect.any(String),
    });
  });

  it('answers 404 Not found for an unknown or malformed monitor id', async () => {
    for (const id of [999, 'checkout']) {
      const answer = await readMonitor(id);
      expect({ status: answer.status, text: answer.text }).toEqual({ status: 404, text: 'Not found' });
    }
  });

  it('answers 400 Bad request without the integration name, and for a bad page or perPage', async () => {
    for (const answer of [
      await readMonitor(latency.id, { domain: a.domain }),
      await api.call('GET', '/monitoringA/monitors', { auth: owner, teamId: platform }),
      await searchMonitors({ page: '-1' }),
      await searchMonitors({ perPage: '0' }),
    ]) {
      expect({ status: answer.status, text: answer.text }).toEqual({ status: 400, text: 'Bad request' });
    }
  });

  it('answers 404 No integration exists for a company without it, or a name or domain it has not configured', async () => {
    const globex = await api.companyAuth(sim.seed.users.globex);
    const answers = [
      await api.call('GET', `/monitoringA/monitors/${latency.id}`, {
        auth: globex,
        teamId: sim.seed.teams.globex.id,
        query: integrationA,
      }),
      await api.call('GET', '/monitoringA/monitors', {
        auth: globex,
        teamId: sim.seed.teams.globex.id,
        query: integrationA,
      }),
      await readMonitor(latency.id, { monitoringAIntegrationName: 'someone-else' }),
      await readMonitor(latency.id, { ...integrationA, domain: 'app.elsewhere.example' }),
    ];
    for (const answer of answers)
      expect({ status: answer.status, text: answer.text }).toEqual({ status: 404, text: 'No integration exists' });
  });

  it('searches names with searchString and pages from 0 with total_count', async () => {
    const checkout = await searchMonitors({ searchString: 'CHECKOUT' });
    expect(checkout.json().monitors.map((monitor: { name: string }) => monitor.name)).toEqual([
      'checkout p99 latency',
      'checkout error budget burn',
    ]);
    expect(checkout.json().metadata).toEqual({ page: 0, per_page: 30, total_count: 2 });

    const first = (await searchMonitors({ perPage: '3', page: '0' })).json();
    const second = (await searchMonitors({ perPage: '3', page: '1' })).json();
    expect(first.monitors).toHaveLength(3);
    expect(second.monitors.map((monitor: { name: string }) => monitor.name)).toEqual(['search index lag']);
    expect(second.metadata).toEqual({ page: 1, per_page: 3, total_count: 4 });
    expect((await searchMonitors({ searchString: 'nothing like it' })).json()).toEqual({
      monitors: [],
      metadata: { page: 0, per_page: 30, total_count: 0 },
    });
  });

  it('seeds one monitor whose state cannot be told', async () => {
    const noData = a.monitors.find((monitor) => monitor.state === 'No Data')!;
    expect((await readMonitor(noData.id)).json().overall_state).toBe('No Data');
  });

  it('follows setMonitorState, and refuses a state the product does not have', async () => {
    sim.setMonitorState(latency.id, 'Alert');
    const alerting = (await readMonitor(latency.id)).json();
    expect(alerting.overall_state).toBe('Alert');
    expect(Date.parse(alerting.overall_state_modified)).toBeLessThanOrEqual(sim.clock.now());
    expect((await searchMonitors({ searchString: 'p99' })).json().monitors[0].overall_state).toBe('Alert');

    expect(() => sim.setMonitorState(latency.id, 'Broken' as 'OK')).toThrow(RangeError);
    expect(() => sim.setMonitorState(42, 'OK')).toThrow(/No monitor/);
    sim.reset();
    expect(
      (await readMonitor(latency.id, integrationA, await api.companyAuth(sim.seed.users.owner))).json().overall_state,
    ).toBe('OK');
  });

  it('adds monitors for tests that need many guards', async () => {
    const id = sim.addMonitor({ name: 'guard 001', state: 'Warn' });
    expect((await readMonitor(id)).json()).toMatchObject({ id, name: 'guard 001', overall_state: 'Warn' });
  });

  it('answers 429 with Retry-After while the provider rate limits, after checking the caller', async () => {
    sim.rateLimitMonitoringA(2, 7);
    const observer = await api.companyAuth(sim.seed.users.observer);
    const limited = await readMonitor(latency.id, integrationA, observer);
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('7');
    expect((await searchMonitors({})).status).toBe(429);
    expect((await readMonitor(latency.id)).status).toBe(200);

    sim.rateLimitMonitoringA(1);
    const anonymous = await api.call('GET', `/monitoringA/monitors/${latency.id}`, {
      teamId: platform,
      query: integrationA,
    });
    expect(anonymous.status).toBe(401);
    expect((await readMonitor(latency.id)).status).toBe(429);
  });

  it('lets any member of the team read, but not someone outside it', async () => {
    const observer = await api.companyAuth(sim.seed.users.observer);
    expect((await readMonitor(latency.id, integrationA, observer)).status).toBe(200);
    const solo = await api.companyAuth(sim.seed.users.solo);
    const outside = await api.call('GET', `/monitoringA/monitors/${latency.id}`, {
      auth: solo,
      teamId: sim.seed.teams.payments.id,
      query: integrationA,
    });
    expect({ status: outside.status, text: outside.text }).toEqual({
      status: 403,
      text: 'User requires privilege for target team: MINIMUM_TEAM_PRIVILEGES',
    });
  });
});

describe('monitoringB alerts, rules, dashboards and monitors', () => {
  it('lists alerts in the contract shape, filtered by name', async () => {
    const all = await alerts();
    expect(all.status).toBe(200);
    expect(all.json().map((alert: { name: string }) => alert.name)).toEqual(b.alerts.map((alert) => alert.name));
    const [checkout, ...others] = (await alerts({ name: 'CheckoutErrorRate' })).json();
    expect(others).toEqual([]);
    expect(checkout).toEqual({
      name: 'CheckoutErrorRate',
      state: 'inactive',
      labels: expect.objectContaining({ service: 'checkout' }),
      annotations: { summary: expect.any(String) },
      active_at: null,
    });
    expect((await alerts({ name: 'NoSuchAlert' })).json()).toEqual([]);
  });

  it('follows setAlertState, setting active_at when the alert becomes active', async () => {
    sim.setAlertState('CheckoutErrorRate', 'pending');
    const pending = (await alerts({ name: 'CheckoutErrorRate' })).json()[0];
    sim.clock.advance(60_000);
    sim.setAlertState('CheckoutErrorRate', 'firing');
    const firing = (await alerts({ name: 'CheckoutErrorRate' })).json()[0];
    expect(firing.state).toBe('firing');
    expect(firing.active_at).toBe(pending.active_at);
    sim.setAlertState('CheckoutErrorRate', 'inactive');
    expect((await alerts({ name: 'CheckoutErrorRate' })).json()[0]).toMatchObject({
      state: 'inactive',
      active_at: null,
    });
    expect(() => sim.setAlertState('Nope', 'firing')).toThrow(/No alert/);
    expect(() => sim.setAlertState('CheckoutErrorRate', 'on fire' as 'firing')).toThrow(RangeError);
  });

  it('lists rules and dashboards, and the alert rules as monitors by integration name', async () => {
    const rules = await api.call('GET', '/monitoringB/rules', { auth: owner, teamId: platform, query: integrationB });
    expect(rules.json()).toEqual(expect.arrayContaining([expect.objectContaining({ name: expect.any(String) })]));
    const dashboards = await api.call('GET', '/monitoringB/dashboards', {
      auth: owner,
      teamId: platform,
      query: { ...integrationB, name: 'Checkout overview' },
    });
    expect(dashboards.json()).toEqual([
      { name: 'Checkout overview', uid: 'checkout-overview', url: `${b.uri}/d/checkout-overview` },
    ]);

    sim.setAlertState('CartLatencyHigh', 'firing');
    const monitors = await api.call('GET', '/monitoringB/monitors', {
      auth: owner,
      teamId: platform,
      query: { monitoringBIntegrationName: b.integrationName, searchString: 'cart' },
    });
    expect(monitors.json()).toEqual([{ name: 'CartLatencyHigh', id: expect.any(String), state: 'firing' }]);
  });

  it('answers 400 Bad request without the URI or integration name', async () => {
    for (const path of [
      '/monitoringB/alerts',
      '/monitoringB/rules',
      '/monitoringB/dashboards',
      '/monitoringB/monitors',
    ]) {
      const answer = await api.call('GET', path, { auth: owner, teamId: platform });
      expect({ path, status: answer.status, text: answer.text }).toEqual({ path, status: 400, text: 'Bad request' });
    }
  });

  it('answers 404 No integration exists for a company without it, or another URI', async () => {
    const globex = await api.companyAuth(sim.seed.users.globex);
    const team = sim.seed.teams.globex.id;
    for (const answer of [
      await api.call('GET', '/monitoringB/alerts', { auth: globex, teamId: team, query: integrationB }),
      await api.call('GET', '/monitoringB/monitors', {
        auth: globex,
        teamId: team,
        query: { monitoringBIntegrationName: b.integrationName },
      }),
      await alerts({ monitoringBUri: 'https://alerts.elsewhere.example' }),
    ]) {
      expect({ status: answer.status, text: answer.text }).toEqual({ status: 404, text: 'No integration exists' });
    }
    expect((await alerts({ monitoringBUri: `${b.uri}/` })).status).toBe(200);
  });
});
