import { randomUUID } from 'node:crypto';
import { type Arrivals, arrivals } from '../http.ts';
import type { Logger } from '../logger.ts';
import { StoreUnavailableError } from '../store/errors.ts';
import type { KeyValueStore } from '../store/keyValue.ts';
import { keys } from '../store/keys.ts';

/**
 * What a job awaits between its units (a page, a batch of cards, a card redrawn): it resolves on
 * a later turn of the event loop, and later still while Slack's deliveries arrive in a burst, so
 * that a pass over thousands of cards never holds their acks (see Arrivals).
 */
export type Breathe = () => Promise<void>;

/** One piece of background work, run on its own timer. */
export interface Job {
  /** What it does, as the logs and its lease's key name it (`enforce-guards`). */
  name: string;
  /** How often it runs; a tick that finds the job still running is skipped. */
  everyMs: number;
  /**
   * The job leases its own parts (the card refresh leases each team), so every replica runs it
   * and no lease over the whole job is taken.
   */
  ownLeases?: boolean;
  /** Runs once as soon as the bot starts too, not only one cadence later. */
  atStart?: boolean;
  /** A job that walks many things awaits `breathe` between them. */
  run(breathe: Breathe): Promise<unknown>;
  /** Called once at stop, after the job's last run has finished (the card refresh gives back its teams). */
  stop?(): Promise<unknown>;
}

interface Slot {
  job: Job;
  timer: NodeJS.Timeout | undefined;
  /** The run under way, if any; it never rejects. */
  running: Promise<unknown> | undefined;
  /** Whether this replica took the job's lease, to give it back at stop. */
  leased: boolean;
}

/**
 * Runs each job on its own timer, so a slow job delays nobody else. A job without its own leases
 * runs on one replica at a time: the replica that ran it holds its lease (twice its cadence) and
 * takes it again at each tick; when that replica stops it gives the lease back, and when it dies
 * the lease lapses, so another replica takes the job over at its next tick. A run is never
 * renewed while it lasts: a job that overruns its lease moves to another replica rather than stop
 * running anywhere, and the jobs' own claims (one halt per attack, one warning per session) keep
 * such an overlap harmless. A job that fails is logged and runs again at its next tick. Every run
 * is handed the one way to give way to Slack's deliveries: jobs know nothing of Slack's timing.
 */
export class Scheduler {
  readonly #slots: Slot[];
  readonly #store: KeyValueStore;
  readonly #logger: Logger;
  /** This process, as the holder of job leases. */
  readonly #replica = randomUUID();
  #stopped = false;
  /** Whether the last failure was the store being away (said once, not at every tick of every job). */
  #storeAway = false;
  readonly #breathe: Breathe;

  /** `deliveries`: the process's record of Slack's deliveries, which a job's units give way to. */
  constructor(options: { jobs: Job[]; store: KeyValueStore; logger: Logger; deliveries?: Arrivals }) {
    const names = options.jobs.map((job) => job.name);
    const twice = names.find((name, i) => names.indexOf(name) !== i);
    if (twice) throw new Error(`Two background jobs are named ${twice}`);
    this.#slots = options.jobs.map((job) => ({ job, timer: undefined, running: undefined, leased: false }));
    this.#store = options.store;
    this.#logger = options.logger.child({ component: 'jobs' });
    const deliveries = options.deliveries ?? arrivals;
    this.#breathe = () => deliveries.giveWay();
  }

  /** The jobs, in the table's order. */
  get jobs(): readonly Job[] {
    return this.#slots.map((slot) => slot.job);
  }

  /** Starts every job's timer; the first run comes one cadence after the start, or at once for `atStart`. */
  start(): void {
    if (this.#stopped) return;
    for (const slot of this.#slots) {
      if (slot.timer) continue;
      slot.timer = setInterval(() => void this.#tick(slot), slot.job.everyMs);
      slot.timer.unref();
      if (slot.job.atStart) void this.#tick(slot);
    }
  }

  /**
   * Runs every job (or only the one named) once now, one after another in the table's order,
   * joining a run already under way; gives back what each returned (undefined when it failed or
   * another replica holds it).
   */
  async runNow(only?: string): Promise<Map<string, unknown>> {
    const results = new Map<string, unknown>();
    for (const slot of this.#slots.filter((s) => only === undefined || s.job.name === only))
      results.set(slot.job.name, await this.#tick(slot));
    return results;
  }

  /** Stops the timers, waits for the runs under way, and gives back this replica's leases. */
  async stop(): Promise<void> {
    this.#stopped = true;
    for (const slot of this.#slots) {
      clearInterval(slot.timer);
      slot.timer = undefined;
    }
    await Promise.all(this.#slots.map((slot) => this.#stopSlot(slot)));
  }

  async #stopSlot(slot: Slot): Promise<void> {
    const { job } = slot;
    await slot.running;
    await job.stop?.().catch((error: unknown) => {
      this.#logger.warn({ err: error, job: job.name }, 'a background job did not stop cleanly');
    });
    if (!slot.leased) return;
    slot.leased = false;
    await this.#store.release(keys.job.key(job.name), this.#replica).catch((error: unknown) => {
      // The lease lapses by itself; another replica only waits a little longer.
      this.#logger.warn({ err: error, job: job.name }, 'could not give back the lease of a background job');
    });
  }

  /** Starts a run unless one is under way (then joins it) or the scheduler has stopped. */
  #tick(slot: Slot): Promise<unknown> {
    if (this.#stopped) return Promise.resolve(undefined);
    slot.running ??= this.#run(slot).finally(() => {
      slot.running = undefined;
    });
    return slot.running;
  }

  async #run(slot: Slot): Promise<unknown> {
    const { job } = slot;
    try {
      if (!job.ownLeases) {
        slot.leased = await this.#store.claim(keys.job.key(job.name), keys.job.ttlMs(job.everyMs), this.#replica);
        if (!slot.leased) return undefined;
      }
      const result = await job.run(this.#breathe);
      this.#passed();
      return result;
    } catch (error) {
      this.#failed(job, error);
      return undefined;
    }
  }

  #passed(): void {
    if (!this.#storeAway) return;
    this.#storeAway = false;
    this.#logger.info('background jobs resumed: the store answers again');
  }

  #failed(job: Job, error: unknown): void {
    if (!(error instanceof StoreUnavailableError)) {
      this.#logger.error({ err: error, job: job.name }, 'a background job failed; it runs again at its next tick');
      return;
    }
    // An outage is expected now and then, and /readyz already reports it: say it once, not at every tick.
    if (this.#storeAway) {
      this.#logger.debug({ err: error, job: job.name }, 'a background job failed: the store is still unreachable');
      return;
    }
    this.#storeAway = true;
    this.#logger.warn(
      { err: error, job: job.name },
      'background jobs failed: the store is unreachable; they run again when it answers',
    );
  }
}
