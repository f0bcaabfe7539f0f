import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Guard, GuardStore } from '../../src/guardrails/guards.ts';
import { createKeyValueStore, type KeyValueStore } from '../../src/store/keyValue.ts';
import { dropRedisKeys } from '../support/redisKeys.ts';

const opened: KeyValueStore[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

const owner = (userId: string) => ({ workspaceId: 'T0GUARDS', userId, userName: userId });
const monitor = (monitorId: string, userId: string): Guard => ({
  spec: { kind: 'a', monitorId, integration: 'acme-metrics' },
  owner: owner(userId),
});
const alert = (name: string, userId: string): Guard => ({
  spec: { kind: 'b', alert: name, uri: 'https://alerts.monitoring-b.example' },
  owner: owner(userId),
});

function keepsGameDayGuards(url: () => string) {
  const make = () => {
    const store = createKeyValueStore(url(), `guards-test-${randomUUID()}`);
    opened.push(store);
    return { store, guards: new GuardStore(store) };
  };

  it('keeps the guards two people add to a game day at the same moment', async () => {
    const { guards } = make();
    await Promise.all([
      guards.addToGameDay('day-1', [monitor('1234567', 'U0ANA')]),
      guards.addToGameDay('day-1', [alert('CheckoutErrorRate', 'U0BEN')]),
    ]);
    expect((await guards.forGameDay('day-1')).map((g) => g.owner.userId).sort()).toEqual(['U0ANA', 'U0BEN']);
    expect(await guards.forGameDay('day-2')).toEqual([]);
  });

  it('lists them in the order they were added, and a guard added again keeps its first owner', async () => {
    const { guards } = make();
    await guards.addToGameDay('day-1', [alert('Zeta', 'U0ANA'), monitor('1', 'U0ANA')]);
    const after = await guards.addToGameDay('day-1', [monitor('1', 'U0BEN'), alert('Alpha', 'U0BEN')]);
    expect(after.map((g) => [g.spec.kind === 'a' ? g.spec.monitorId : g.spec.alert, g.owner.userId])).toEqual([
      ['Zeta', 'U0ANA'],
      ['1', 'U0ANA'],
      ['Alpha', 'U0BEN'],
    ]);
  });

  it('still reads guards kept as one list per game day', async () => {
    const { store, guards } = make();
    await store.set('guards:gameday:day-1', [monitor('1', 'U0ANA')]);
    await guards.addToGameDay('day-1', [monitor('1', 'U0BEN'), alert('Alpha', 'U0BEN')]);
    expect((await guards.forGameDay('day-1')).map((g) => g.owner.userId)).toEqual(['U0ANA', 'U0BEN']);
  });
}

describe('game-day guards in the memory store', () => keepsGameDayGuards(() => 'memory://'));

const redisUrl = process.env.REDIS_URL;
describe.skipIf(!redisUrl)('game-day guards in Redis', () => {
  keepsGameDayGuards(() => redisUrl!);
  afterAll(async () => {
    await dropRedisKeys(redisUrl!, 'guards-test-');
  });
});
