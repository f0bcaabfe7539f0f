import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createKeyValueStore, type KeyValueStore } from '../../src/store/keyValue.ts';
import { holdLease, takeLease, withLock } from '../../src/store/leases.ts';

let store: KeyValueStore;
afterEach(async () => {
  await store.close();
});
const open = () => (store = createKeyValueStore('memory://', 'leases-test'));

describe('leases', () => {
  it('gives a lease to one taker until it is let go', async () => {
    open();
    const letGo = await takeLease(store, 'lease:a', 5_000);
    expect(letGo).toBeDefined();
    expect(await takeLease(store, 'lease:a', 5_000)).toBeUndefined();
    await letGo!();
    const again = await takeLease(store, 'lease:a', 5_000);
    expect(again).toBeDefined();
    await again!();
  });

  it('renews a lease while it is held, so it outlives its time to live', async () => {
    open();
    const letGo = await holdLease(store, 'lease:b', 200);
    await sleep(500);
    expect(await takeLease(store, 'lease:b', 200)).toBeUndefined();
    await letGo();
    expect(await store.claim('lease:b', 200, 'another')).toBe(true);
  });
});

describe('locks', () => {
  it('runs the waiters of one lock one after another', async () => {
    open();
    const ran: string[] = [];
    const work = (name: string) => async () => {
      ran.push(`${name} in`);
      await sleep(50);
      ran.push(`${name} out`);
      return name;
    };
    const answers = await Promise.all(
      ['a', 'b', 'c'].map((name) => withLock(store, 'lock:a', 5_000, work(name), 2_000)),
    );
    expect(answers).toEqual([{ done: 'a' }, { done: 'b' }, { done: 'c' }]);
    expect(ran).toEqual(['a in', 'a out', 'b in', 'b out', 'c in', 'c out']);
  });

  it('answers busy at once without a wait, and after the wait when another process holds it', async () => {
    open();
    expect(await store.claim('lock:b', 5_000, 'another process')).toBe(true);
    let ran = false;
    const run = async () => {
      ran = true;
    };
    expect(await withLock(store, 'lock:b', 5_000, run)).toBe('busy');
    const started = Date.now();
    expect(await withLock(store, 'lock:b', 5_000, run, 300)).toBe('busy');
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
    expect(ran).toBe(false);
    await store.release('lock:b', 'another process');
    expect(await withLock(store, 'lock:b', 5_000, run)).toEqual({ done: undefined });
  });

  it('gives the lock back when the work fails', async () => {
    open();
    const failing = withLock(store, 'lock:c', 5_000, async () => {
      throw new Error('no');
    });
    await expect(failing).rejects.toThrow('no');
    expect(await withLock(store, 'lock:c', 5_000, async () => 'next')).toEqual({ done: 'next' });
  });
});
