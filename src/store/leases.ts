/**
 * Claims held for a while, over the store's atomic `claim` and `release`: a lease (work under way
 * that another replica takes over once its holder is gone) and a lock (one writer at a time).
 * Every caller that holds a claim while it works goes through here, so renewing, giving back and
 * waiting are done one way.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { KeyValueStore } from './keyValue.ts';

type Claims = Pick<KeyValueStore, 'claim' | 'release'>;

/**
 * Takes the lease on `key` if nobody holds it, and holds it until the returned function is
 * called; undefined when another holds it. Work under way is never taken over, and work whose
 * process died is free to take once its lease lapses.
 */
export async function takeLease(store: Claims, key: string, ttlMs: number): Promise<(() => Promise<void>) | undefined> {
  const owner = randomUUID();
  return (await store.claim(key, ttlMs, owner)) ? hold(store, key, ttlMs, owner) : undefined;
}

/** Holds the lease on work just taken (a start just opened, a run just claimed) until the returned function is called. */
export async function holdLease(store: Claims, key: string, ttlMs: number): Promise<() => Promise<void>> {
  const owner = randomUUID();
  await store.claim(key, ttlMs, owner);
  return hold(store, key, ttlMs, owner);
}

/** Renews the lease every quarter of its time, so that it never lapses while its holder lives. */
function hold(store: Claims, key: string, ttlMs: number, owner: string): () => Promise<void> {
  const renewing = setInterval(() => void store.claim(key, ttlMs, owner).catch(() => undefined), ttlMs / 4);
  renewing.unref();
  return async () => {
    clearInterval(renewing);
    await store.release(key, owner);
  };
}

/** The last waiter for each lock of a store in this process: the next one queues behind it. */
const waiting = new WeakMap<Claims, Map<string, Promise<void>>>();

/**
 * Runs `work` while holding the lock `key` (across replicas), given back when it ends; `busy`
 * when another holds it for longer than `waitMs`. Waiters in this process queue behind one
 * another instead of asking the store again and again; a holder in another process is asked
 * after at growing intervals.
 */
export async function withLock<T>(
  store: Claims,
  key: string,
  ttlMs: number,
  work: () => Promise<T>,
  waitMs = 0,
): Promise<{ done: T } | 'busy'> {
  const holder = randomUUID();
  const until = Date.now() + waitMs;
  const queues = waiting.get(store) ?? new Map<string, Promise<void>>();
  waiting.set(store, queues);
  const ahead = queues.get(key);
  let leave = () => {};
  const place = new Promise<void>((resolve) => (leave = resolve));
  queues.set(key, place);
  try {
    if (ahead) await Promise.race([ahead, sleep(waitMs, undefined, { ref: false })]);
    for (let pause = 25; !(await store.claim(key, ttlMs, holder)); pause = Math.min(pause * 2, 400)) {
      const left = until - Date.now();
      if (left <= 0) return 'busy';
      await sleep(Math.min(pause, left));
    }
    try {
      return { done: await work() };
    } finally {
      await store.release(key, holder);
    }
  } finally {
    leave();
    if (queues.get(key) === place) queues.delete(key);
  }
}
