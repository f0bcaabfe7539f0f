/**
 * The scheduler alone, on fake timers: the in-memory store holds the leases, and two schedulers
 * on one store stand for two replicas.
 */
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Arrivals } from '../../src/http.ts';
import { Scheduler, type Job } from '../../src/jobs/scheduler.ts';
import { createLogger } from '../../src/logger.ts';
import { createKeyValueStore, type KeyValueStore } from '../../src/store/keyValue.ts';
import { keys } from '../../src/store/keys.ts';

let store: KeyValueStore;
let logs: { level: string; msg: string; job?: string }[];
let schedulers: Scheduler[];

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout', 'Date'] });
  store = createKeyValueStore('memory://');
  logs = [];
  schedulers = [];
});

afterEach(async () => {
  for (const scheduler of schedulers) await scheduler.stop();
  await store.close();
  vi.useRealTimers();
});

const logger = () =>
  createLogger(
    'debug',
    new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) logs.push(JSON.parse(line));
        done();
      },
    }),
  );

/** A started scheduler (a replica) over the shared store. */
function replica(jobs: Job[]): Scheduler {
  const scheduler = new Scheduler({ jobs, store, logger: logger() });
  schedulers.push(scheduler);
  scheduler.start();
  return scheduler;
}

/** A job that counts its runs; each run ends when `finish` is called, or at once with `quick`. */
function countedJob(
  name: string,
  everyMs: number,
  options: { quick?: boolean; ownLeases?: boolean; atStart?: boolean } = {},
) {
  const waiting: (() => void)[] = [];
  const job = {
    runs: 0,
    stops: 0,
    /** Ends every run under way. */
    finish: () => {
      for (const end of waiting.splice(0)) end();
    },
    job: {
      name,
      everyMs,
      ...(options.ownLeases ? { ownLeases: true } : {}),
      ...(options.atStart ? { atStart: true } : {}),
      run: (): Promise<unknown> => {
        job.runs++;
        return options.quick ? Promise.resolve(job.runs) : new Promise<void>((resolve) => waiting.push(resolve));
      },
      stop: async () => {
        job.stops++;
      },
    } satisfies Job,
  };
  return job;
}

describe('Scheduler', () => {
  it('runs each job on its own cadence, the first run one cadence after the start', async () => {
    const often = countedJob('often', 1_000, { quick: true });
    const seldom = countedJob('seldom', 3_000, { quick: true });
    replica([often.job, seldom.job]);
    await vi.advanceTimersByTimeAsync(999);
    expect([often.runs, seldom.runs]).toEqual([0, 0]);
    await vi.advanceTimersByTimeAsync(5_001);
    expect([often.runs, seldom.runs]).toEqual([6, 2]);
  });

  it('runs a job marked to run at start-up at once, then on its cadence', async () => {
    const recovery = countedJob('recovery', 1_000, { quick: true, atStart: true });
    const other = countedJob('other', 1_000, { quick: true });
    replica([recovery.job, other.job]);
    await vi.advanceTimersByTimeAsync(0);
    expect([recovery.runs, other.runs]).toEqual([1, 0]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect([recovery.runs, other.runs]).toEqual([2, 1]);
  });

  it('keeps running the other jobs while one is slow, and skips the slow one’s ticks rather than piling runs up', async () => {
    const slow = countedJob('slow', 1_000);
    const quick = countedJob('quick', 1_000, { quick: true });
    replica([slow.job, quick.job]);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(quick.runs).toBe(10);
    expect(slow.runs).toBe(1);
    slow.finish();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(slow.runs).toBe(2);
    slow.finish();
  });

  it('logs a job that throws, with its name, and runs it again at its next tick', async () => {
    let runs = 0;
    const flaky: Job = {
      name: 'flaky',
      everyMs: 1_000,
      run: async () => {
        if (++runs === 1) throw new Error('the platform said no');
      },
    };
    const quick = countedJob('quick', 1_000, { quick: true });
    replica([flaky, quick.job]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(logs.filter((line) => line.level === 'error')).toEqual([
      expect.objectContaining({ job: 'flaky', msg: 'a background job failed; it runs again at its next tick' }),
    ]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(runs).toBe(2);
    expect(quick.runs).toBe(2);
    expect(logs.filter((line) => line.level === 'error')).toHaveLength(1);
  });

  it('skips a job while another replica holds its lease, and takes it over once that lease lapses', async () => {
    // A replica that died just after taking the lease: nobody gives it back.
    expect(await store.claim(keys.job.key('sweep'), 2_000, 'a replica that died')).toBe(true);
    const sweep = countedJob('sweep', 1_000, { quick: true });
    replica([sweep.job]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(sweep.runs).toBe(0);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(sweep.runs).toBe(1);
  });

  it('runs a job on one of two replicas at a time, and hands it over as soon as that one stops', async () => {
    const first = countedJob('sweep', 1_000, { quick: true });
    const second = countedJob('sweep', 1_000, { quick: true });
    const firstReplica = replica([first.job]);
    replica([second.job]);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(first.runs + second.runs).toBe(5);
    expect(Math.min(first.runs, second.runs)).toBe(0);
    const [holder, holderJob, other] = first.runs > 0 ? [firstReplica, first, second] : [schedulers[1]!, second, first];
    await holder.stop();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(other.runs).toBe(1);
    expect(holderJob.runs).toBe(5);
  });

  it('runs a job that leases its own parts on every replica', async () => {
    const first = countedJob('refresh', 1_000, { quick: true, ownLeases: true });
    const second = countedJob('refresh', 1_000, { quick: true, ownLeases: true });
    replica([first.job]);
    replica([second.job]);
    await vi.advanceTimersByTimeAsync(3_000);
    expect([first.runs, second.runs]).toEqual([3, 3]);
  });

  it('waits at stop for the runs under way, then stops each job and starts no more', async () => {
    const slow = countedJob('slow', 1_000);
    const scheduler = replica([slow.job]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(slow.runs).toBe(1);
    let stopped = false;
    const stopping = scheduler.stop().then(() => {
      stopped = true;
    });
    await vi.advanceTimersByTimeAsync(5_000);
    expect(stopped).toBe(false);
    expect(slow.stops).toBe(0);
    slow.finish();
    await stopping;
    expect(slow.stops).toBe(1);
    // Its lease is given back: another replica need not wait for it to lapse.
    expect(await store.claim(keys.job.key('slow'), 1_000, 'another replica')).toBe(true);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(slow.runs).toBe(1);
    expect(await scheduler.runNow()).toEqual(new Map([['slow', undefined]]));
    expect(slow.runs).toBe(1);
  });

  it('runs every job once on demand, in the table’s order, and gives back what each returned', async () => {
    const order: string[] = [];
    const job = (name: string): Job => ({
      name,
      everyMs: 60_000,
      run: async () => {
        order.push(name);
        return `${name} done`;
      },
    });
    const scheduler = replica([job('guards'), job('freezes'), job('cards')]);
    expect(await scheduler.runNow()).toEqual(
      new Map([
        ['guards', 'guards done'],
        ['freezes', 'freezes done'],
        ['cards', 'cards done'],
      ]),
    );
    expect(order).toEqual(['guards', 'freezes', 'cards']);
    expect(await scheduler.runNow('freezes')).toEqual(new Map([['freezes', 'freezes done']]));
  });

  it("hands each run a breathe that holds the job between its units while Slack's deliveries arrive in a burst", async () => {
    vi.useFakeTimers({
      toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout', 'setImmediate', 'performance'],
    });
    const deliveries = new Arrivals();
    const done: number[] = [];
    const walk: Job = {
      name: 'walk',
      everyMs: 60_000,
      run: async (breathe) => {
        for (const unit of [1, 2, 3]) {
          await breathe();
          done.push(unit);
        }
      },
    };
    const scheduler = new Scheduler({ jobs: [walk], store, logger: logger(), deliveries });
    schedulers.push(scheduler);
    /** Deliveries closer together than Arrivals.quietMs, for `forMs`. */
    const burst = async (forMs: number) => {
      for (let elapsed = 0; elapsed < forMs; elapsed += 2) {
        deliveries.arrived();
        await vi.advanceTimersByTimeAsync(2);
      }
    };
    await burst(4);
    const run = scheduler.runNow();
    await burst(200);
    expect(done).toEqual([]);

    // Once they pause, the job goes on, a turn of the event loop per unit.
    await vi.advanceTimersByTimeAsync(Arrivals.quietMs);
    await vi.runAllTimersAsync();
    expect(done).toEqual([1, 2, 3]);
    await run;
  });

  it('refuses two jobs of one name, which would share a lease', () => {
    const job: Job = { name: 'twice', everyMs: 1_000, run: async () => undefined };
    expect(() => new Scheduler({ jobs: [job, job], store, logger: logger() })).toThrow(
      'Two background jobs are named twice',
    );
  });
});
