/**
 * Simulated time: real time plus an offset that tests move forward. Stages and session expiry
 * are computed from it on demand, so advancing it needs no timers.
 */
export class SimClock {
  #offsetMs = 0;

  now(): number {
    return Date.now() + this.#offsetMs;
  }

  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError('The clock only moves forward by a finite amount');
    this.#offsetMs += ms;
  }

  reset(): void {
    this.#offsetMs = 0;
  }
}

export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
