import type { ServerResponse } from 'node:http';

/** What a test can make the Web API do instead of answering a method normally. */
export type WebApiFault =
  /** HTTP 429 with `Retry-After`, as Slack answers a method called past its tier's limit. */
  | { kind: 'ratelimit'; method: string; retryAfterSeconds?: number; times?: number }
  /** No answer at all until the faults are cleared or the fake stops: a call that hangs. */
  | { kind: 'hang'; method: string; times?: number };

type Rule = WebApiFault & { remaining: number };

/** Faults for the Web API, by method: each applies to its next `times` calls (every call without). */
export class WebApiFaults {
  #rules: Rule[] = [];
  readonly #held = new Map<ServerResponse, string>();

  inject(fault: WebApiFault): void {
    this.#rules.push({ ...fault, remaining: fault.times ?? Number.POSITIVE_INFINITY });
  }

  /** Removes every fault; calls held by a hang are cut off, as a connection Slack dropped. */
  clear(): void {
    this.#rules = [];
    for (const response of this.#held.keys()) response.destroy();
    this.#held.clear();
  }

  /** The fault for this call of `method`, if any, counting it. */
  take(method: string): WebApiFault | undefined {
    const rule = this.#rules.find((r) => r.method === method && r.remaining > 0);
    if (rule === undefined) return undefined;
    rule.remaining -= 1;
    return rule;
  }

  /** Keeps a response to a call of `method` open until clear(). */
  hold(response: ServerResponse, method: string): void {
    this.#held.set(response, method);
    response.on('close', () => this.#held.delete(response));
  }

  /** How many calls of `method` a hang holds right now: a test acts once the call has arrived. */
  held(method: string): number {
    return [...this.#held.values()].filter((held) => held === method).length;
  }
}
