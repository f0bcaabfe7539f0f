/** What the guard form finds as a person types: monitors by id or name, alert names that hold the text. */
import { describe, expect, it, vi } from 'vitest';
import { NoIntegrationError, NotFoundError } from '../../src/client/errors.ts';
import type { ScopedPlatform } from '../../src/client/index.ts';
import { alertsLike, monitorsLike } from '../../src/guardrails/searches.ts';
import { monitoring, useGuardrails } from './parts.ts';

const t = useGuardrails();

const platform = (monitoring: object) => ({ monitoring }) as unknown as ScopedPlatform;
const where = { integrationName: 'acme-metrics', domain: undefined };

describe('monitors', () => {
  it('finds a monitor by the id typed, or at the end of an option picked', async () => {
    const getMonitorA = vi.fn(async (id: string) => ({ id: Number(id), name: 'checkout p99 latency' }));
    const searchMonitorsA = vi.fn();
    const api = platform({ getMonitorA, searchMonitorsA });
    expect(await monitorsLike(api, 'checkout p99 latency (1234567)', where, 5)).toEqual([
      { id: 1234567, name: 'checkout p99 latency' },
    ]);
    expect(getMonitorA).toHaveBeenCalledWith('1234567', where);
    expect(searchMonitorsA).not.toHaveBeenCalled();
  });

  it('searches by name when no monitor has the digits typed, at most as many as asked', async () => {
    const getMonitorA = vi.fn(async () =>
      Promise.reject(new NotFoundError({ method: 'GET', path: '/monitoring/a/1' })),
    );
    const searchMonitorsA = vi.fn(async () => ({ monitors: [{ id: 1 }, { id: 2 }, { id: 3 }] }));
    const found = await monitorsLike(platform({ getMonitorA, searchMonitorsA }), '1', where, 2);
    expect(searchMonitorsA).toHaveBeenCalledWith('1', { ...where, page: 0, perPage: 2 });
    expect(found).toEqual([{ id: 1 }, { id: 2 }]);
  });

  it('says when the integration is missing rather than searching', async () => {
    const missing = new NoIntegrationError({ method: 'GET', path: '/monitoringA/monitors/1' });
    const api = platform({ getMonitorA: async () => Promise.reject(missing), searchMonitorsA: vi.fn() });
    await expect(monitorsLike(api, '1', where, 5)).rejects.toBe(missing);
  });
});

describe('alerts', () => {
  it('reads the whole list for a partial name, and ranks the exact name, then those starting with it', async () => {
    const alertsB = vi.fn(async (query: { uri: string; name?: string }) =>
      query.name
        ? []
        : ['db-errors', 'api-errors', 'errors', 'errors-5xx', 'api-latency', 'errors!'].map((name) => ({ name })),
    );
    const names = await alertsLike(platform({ alertsB }), 'https://b.example', 'errors', 3);
    expect(alertsB).toHaveBeenCalledWith({ uri: 'https://b.example', name: 'errors' });
    expect(alertsB).toHaveBeenCalledWith({ uri: 'https://b.example' });
    expect(names).toEqual(['errors', 'errors-5xx', 'api-errors']);
  });

  it('answers from the exact match alone when the platform has the name typed', async () => {
    const alertsB = vi.fn(async () => [{ name: 'errors' }, { name: 'errors' }]);
    expect(await alertsLike(platform({ alertsB }), 'https://b.example', 'errors', 5)).toEqual(['errors']);
    expect(alertsB).toHaveBeenCalledTimes(1);
  });

  it('leaves out names a guard flag could not carry', async () => {
    const alertsB = vi.fn(async () => [{ name: 'cpu-high' }, { name: 'cpu; drop' }]);
    expect(await alertsLike(platform({ alertsB }), 'https://b.example', 'cpu', 5)).toEqual(['cpu-high']);
  });
});

describe('the searches on the platform, with the person’s session in their team', () => {
  async function owner() {
    const login = (await t.deps.sessions.get(await t.login('U0STARTER')))!;
    const team = login.session.teams.find((team) => team.identifier === t.sim.seed.teams.platform.id)!;
    return { login, team };
  }

  it('finds a monitor by its id, and alert names by part of a name', async () => {
    const { login, team } = await owner();
    const where = { integrationName: monitoring.integrationA, domain: monitoring.domainA };
    expect(await t.service.monitorsLike(login, team, '1234567', where, 5)).toEqual([
      expect.objectContaining({ id: '1234567', name: 'checkout p99 latency' }),
    ]);
    const alerts = await t.service.alertsLike(login, team, 'https://alerts.monitoring-b.example', 'checkout', 5);
    expect(alerts).toContain('CheckoutErrorRate');
  });
});
