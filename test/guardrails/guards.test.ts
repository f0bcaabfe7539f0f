/** The guards of a start: which cover it, and what their readings let through. */
import { describe, expect, it } from 'vitest';
import type { GuardrailParts } from '../../src/guardrails/service.ts';
import {
  cardGuards,
  coveringGuards,
  type Guard,
  guardKey,
  type GuardSpec,
  guardStart,
  GuardsUnknownError,
  UnhealthyGuardsError,
} from '../../src/guardrails/guards.ts';
import { useGuardrails } from './parts.ts';

const t = useGuardrails();

const monitor = (monitorId: string): GuardSpec => ({
  kind: 'a',
  monitorId,
  integration: 'acme-metrics',
  domain: 'app.monitoring-a.example',
});
const healthy = monitor('1234567');
const untold = monitor('1234569');

/** The owner's session in the Platform team, as a start reads its guards. */
async function api() {
  const login = (await t.deps.sessions.get(await t.login('U0STARTER')))!;
  return t.platform.as({ header: login.session.header, teamId: t.sim.seed.teams.platform.id });
}

const guard = (spec: GuardSpec, userId = 'U0STARTER'): Guard => ({
  spec,
  owner: { workspaceId: 'T0GUARDS', userId, userName: userId.toLowerCase() },
});

describe('guard checks', () => {
  it('lets a start through while its guards are healthy, and keeps each reading for the cards', async () => {
    const checks = await guardStart(t.deps, await api(), [guard(healthy)], undefined);
    expect(cardGuards(checks)).toEqual([
      { key: guardKey(healthy), name: 'checkout p99 latency (1234567)', state: 'OK', health: 'healthy' },
    ]);
    expect(await t.deps.guards.reading(healthy)).toEqual(expect.objectContaining({ health: 'healthy', state: 'OK' }));
  });

  it('refuses a start while a guard is unhealthy, naming it and its state', async () => {
    t.sim.setMonitorState(1234567, 'Alert');
    const refused = await guardStart(t.deps, await api(), [guard(healthy), guard(untold)], [guardKey(untold)]).catch(
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(UnhealthyGuardsError);
    expect((refused as UnhealthyGuardsError).checks.map((c) => [c.guard.spec, c.reading.state])).toEqual([
      [healthy, 'Alert'],
    ]);
  });

  it('needs a guard that cannot be told acknowledged on the preview, and then lets the start through', async () => {
    const refused = await guardStart(t.deps, await api(), [guard(untold)], []).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(GuardsUnknownError);
    expect((refused as GuardsUnknownError).checks.map((c) => c.guard.spec)).toEqual([untold]);
    const checks = await guardStart(t.deps, await api(), [guard(untold)], [guardKey(untold)]);
    expect(checks.map((c) => c.reading.health)).toEqual(['unknown']);
  });

  it('covers a start with its own guards and those of the game day running in its channel, each once', async () => {
    const starter = await t.login('U0STARTER');
    const alert: GuardSpec = { kind: 'b', alert: 'CheckoutErrorRate', uri: 'https://alerts.monitoring-b.example' };
    await t.deps.guards.addToGameDay('day-1', [guard(healthy, 'U0LEAD'), guard(alert, 'U0LEAD')]);
    const deps = {
      ...t.deps,
      gameDays: { runningBase: async (channel: string) => (channel === 'C0DAY' ? { id: 'day-1' } : undefined) },
    } as unknown as GuardrailParts;
    const covering = await coveringGuards(deps, starter, 'C0DAY', [healthy, healthy]);
    expect(covering.map((g) => [g.spec, g.owner.userId])).toEqual([
      [healthy, 'U0STARTER'],
      [alert, 'U0LEAD'],
    ]);
    expect(await coveringGuards(deps, starter, 'C0ELSEWHERE', [untold])).toEqual([guard(untold)]);
  });
});
