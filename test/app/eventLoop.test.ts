import { afterEach, describe, expect, it, vi } from 'vitest';
import { Arrivals } from '../../src/http.ts';

/** Closer together than Arrivals.quietMs. */
const apart = Math.floor(Arrivals.quietMs / 2);

/** Deliveries every `everyMs` (less than Arrivals.quietMs apart) for `forMs`. */
async function deliveries(arrivals: Arrivals, everyMs: number, forMs: number): Promise<void> {
  for (let elapsed = 0; elapsed < forMs; elapsed += everyMs) {
    arrivals.arrived();
    await vi.advanceTimersByTimeAsync(everyMs);
  }
}

describe('Arrivals', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it.each([
    [
      'a burst has paused for quietMs',
      async (arrivals: Arrivals) => {
        await deliveries(arrivals, apart, 2 * apart);
        await vi.advanceTimersByTimeAsync(Arrivals.quietMs);
      },
    ],
    ['a delivery came alone', async (arrivals: Arrivals) => arrivals.arrived()],
  ])('lets work go on the next turn once %s', async (_, before) => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'performance'] });
    const arrivals = new Arrivals();
    await before(arrivals);
    let done = false;
    void arrivals.giveWay().then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(done).toBe(true);
  });

  it('holds work that gives way while deliveries keep arriving, and lets it go in order once they pause', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'performance'] });
    const arrivals = new Arrivals();
    await deliveries(arrivals, apart, 2 * apart);
    const done: string[] = [];
    void arrivals.giveWay().then(() => done.push('pass'));
    void arrivals.giveWay().then(() => done.push('reply'));

    await deliveries(arrivals, apart, 200);
    expect(done).toEqual([]);

    await vi.advanceTimersByTimeAsync(Arrivals.quietMs);
    expect(done).toEqual(['pass', 'reply']);
  });

  it('lets work go once a burst has had the event loop for atMostMs, while the burst goes on', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'performance'] });
    const arrivals = new Arrivals();
    await deliveries(arrivals, apart, 2 * apart);
    let done = false;
    void arrivals.giveWay().then(() => {
      done = true;
    });

    await deliveries(arrivals, apart, Arrivals.atMostMs - 20);
    expect(done).toBe(false);
    await deliveries(arrivals, apart, 20);
    expect(done).toBe(true);
  });

  it('lets one piece of work go per turn of the event loop, so a connection waits for one piece at most', async () => {
    const arrivals = new Arrivals();
    let turn = 0;
    const count = () => {
      if (++turn < 20) setImmediate(count);
    };
    setImmediate(count);
    const seen: number[] = [];
    await Promise.all([1, 2, 3].map(() => arrivals.giveWay().then(() => seen.push(turn))));

    expect(seen).toHaveLength(3);
    expect(new Set(seen).size).toBe(3);
  });
});
