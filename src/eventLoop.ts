/**
 * Slack's requests go first. Node takes one new connection per turn of its event loop, so a burst
 * of deliveries on new connections is taken no faster than the turns go by: a turn spent parsing
 * a page of attacks for a poll pass, or doing a command's work after its ack, holds every
 * connection still waiting by that much. Work that nobody waits on within Slack's 3 s gives way:
 * while deliveries come in a burst it waits, then goes on one piece per turn, in the order it came.
 * A delivery on its own is no burst: work after it goes on at the next turn, as it would have.
 */
export class Arrivals {
  /** A pause this long between deliveries ends a burst. */
  static readonly quietMs = 5;
  /** A burst has the event loop to itself this long at most; past it, work waiting shares the turns. */
  static readonly atMostMs = 1_000;

  #last = Number.NEGATIVE_INFINITY;
  #burstStarted = Number.NEGATIVE_INFINITY;
  /** Deliveries since the burst started: one alone is not a burst. */
  #inBurst = 0;
  readonly #waiting: (() => void)[] = [];
  #releasing = false;
  readonly #now: () => number;

  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  /**
   * A delivery arrived: a request whose Slack signature verified. Nothing else counts, so a
   * flood of probes or unsigned requests cannot hold work back.
   */
  arrived(): void {
    const now = this.#now();
    if (now - this.#last >= Arrivals.quietMs) {
      this.#burstStarted = now;
      this.#inBurst = 0;
    }
    this.#inBurst++;
    this.#last = now;
  }

  /**
   * Resolves on a later turn of the event loop, after everything that gave way before it: at once
   * when the last delivery came alone, else once deliveries have paused for quietMs or their burst
   * has gone on for atMostMs.
   */
  giveWay(): Promise<void> {
    return new Promise((go) => {
      this.#waiting.push(go);
      if (!this.#releasing) void this.#release();
    });
  }

  /** Lets the waiting go one per turn, so that a connection waits for one piece of work at most. */
  async #release(): Promise<void> {
    this.#releasing = true;
    try {
      while (this.#waiting.length) {
        await new Promise((turn) => setImmediate(turn));
        const wait =
          this.#inBurst < 2
            ? 0
            : Math.min(this.#last + Arrivals.quietMs, this.#burstStarted + Arrivals.atMostMs) - this.#now();
        if (wait > 0) await new Promise((later) => setTimeout(later, Math.ceil(wait)));
        else this.#waiting.shift()!();
      }
    } finally {
      this.#releasing = false;
    }
  }
}

/** The process's deliveries: one event loop, so one record for every server and job in it. */
export const arrivals = new Arrivals();
