import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

export type Fault = {
  /** e.g. 'GET'; absent = any. */
  method?: string;
  /** Matched against the path after /v1, e.g. '/attacks/active'; absent = any. */
  path?: string | RegExp;
  /** How many matching requests it affects; default 1; Infinity allowed. */
  times?: number;
} & (
  | { kind: 'latency'; ms: number }
  | { kind: 'hang' }
  /** Does what was asked, then never answers (until `clear()`): a create whose answer is lost. */
  | { kind: 'lostAnswer' }
  | { kind: 'status'; status: number; retryAfter?: number; body?: string }
  | { kind: 'reset' }
);

interface ArmedFault {
  fault: Fault;
  remaining: number;
}

/** Faults waiting for matching requests, and the requests left hanging by them. */
export class FaultInjector {
  #armed: ArmedFault[] = [];
  #hanging = new Set<ServerResponse>();
  #delays = new AbortController();

  inject(fault: Fault): void {
    const times = fault.times ?? 1;
    if (!(times >= 1)) throw new RangeError('A fault must apply at least once');
    if (fault.kind === 'latency' && !(fault.ms >= 0 && Number.isFinite(fault.ms)))
      throw new RangeError('Latency must be a finite number of milliseconds');
    if (fault.kind === 'status' && !(Number.isInteger(fault.status) && fault.status >= 100 && fault.status <= 599))
      throw new RangeError('Not an HTTP status');
    this.#armed.push({ fault, remaining: times });
  }

  /** Disarms every fault, releases delayed requests and drops the hanging ones. */
  clear(): void {
    this.#armed = [];
    this.#delays.abort();
    this.#delays = new AbortController();
    for (const response of this.#hanging) response.destroy();
    this.#hanging.clear();
  }

  /** The first armed fault matching the request, using up one of its times. */
  take(method: string, path: string): Fault | undefined {
    const index = this.#armed.findIndex(({ fault }) => matches(fault, method, path));
    const armed = this.#armed[index];
    if (!armed) return undefined;
    if (--armed.remaining <= 0) this.#armed.splice(index, 1);
    return armed.fault;
  }

  /** Leaves a request unanswered until `clear()`. */
  hang(response: ServerResponse): void {
    this.#hanging.add(response);
    response.once('close', () => this.#hanging.delete(response));
  }

  /** Waits `ms` of real time, or less if the faults are cleared meanwhile. */
  async delay(ms: number): Promise<void> {
    await sleep(ms, undefined, { signal: this.#delays.signal }).catch(() => undefined);
  }
}

function matches(fault: Fault, method: string, path: string): boolean {
  if (fault.method && fault.method.toUpperCase() !== method) return false;
  if (fault.path === undefined) return true;
  // search() ignores lastIndex, so a /g pattern matches every time.
  return typeof fault.path === 'string' ? fault.path === path : path.search(fault.path) !== -1;
}
