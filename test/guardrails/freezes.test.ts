/** Freezes on their own: declared for a team or for every team, which one covers a start, lifted. */
import { afterEach, describe, expect, it } from 'vitest';
import { type Freeze, Freezes } from '../../src/guardrails/freezes.ts';
import { createKeyValueStore, type KeyValueStore } from '../../src/store/keyValue.ts';

let store: KeyValueStore;
afterEach(async () => {
  await store?.close();
});

const freeze = (scope: Freeze['scope'], teamId?: string): Freeze => ({
  scope,
  teamId,
  by: { workspaceId: 'T0FREEZE', userId: 'U0LEAD', userName: 'lead' },
  reason: `incident in ${teamId ?? 'everything'}`,
  since: '2030-01-01T00:00:00.000Z',
  channel: 'C0OPS',
});

const fresh = () => {
  store = createKeyValueStore('memory://');
  return new Freezes(store);
};

describe('freezes', () => {
  it('covers starts in its own team only', async () => {
    const freezes = fresh();
    await freezes.declare(freeze('team', 'payments'));
    expect(await freezes.covering('payments')).toEqual(freeze('team', 'payments'));
    expect(await freezes.covering('search')).toBeUndefined();
    expect(await freezes.touching(['search', 'payments'])).toEqual([freeze('team', 'payments')]);
    expect(await freezes.touching(['search'])).toEqual([]);
  });

  it('covers every team when it is a freeze of everything, which is the one a start is told of', async () => {
    const freezes = fresh();
    await freezes.declare(freeze('team', 'payments'));
    await freezes.declare(freeze('all'));
    expect(await freezes.covering('payments')).toEqual(freeze('all'));
    expect(await freezes.covering('search')).toEqual(freeze('all'));
    expect((await freezes.touching(['search'])).map((f) => f.scope)).toEqual(['all']);
  });

  it('is lifted by scope, once; a team freeze declared again replaces the first', async () => {
    const freezes = fresh();
    await freezes.declare(freeze('team', 'payments'));
    await freezes.declare({ ...freeze('team', 'payments'), reason: 'still the incident' });
    expect(await freezes.all()).toEqual([{ ...freeze('team', 'payments'), reason: 'still the incident' }]);
    expect(await freezes.lift('all')).toBe(false);
    expect(await freezes.lift('team', 'search')).toBe(false);
    expect(await freezes.lift('team', 'payments')).toBe(true);
    expect(await freezes.lift('team', 'payments')).toBe(false);
    expect(await freezes.covering('payments')).toBeUndefined();
    expect(await freezes.all()).toEqual([]);
  });
});
