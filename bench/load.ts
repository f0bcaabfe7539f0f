import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { slackSignature } from '@faultline/fake-slack';
import { Pool } from 'undici';

/** A request body as Slack would deliver it to the bot; it is signed when it is sent. */
export interface Delivery {
  body: string;
  contentType: 'application/x-www-form-urlencoded' | 'application/json';
}

/** One delivery's round trip: status 0 when no answer came at all. */
export interface Timing {
  ms: number;
  status: number;
  /** When it was sent, ms since the epoch (performance.timeOrigin based, comparable across processes). */
  at?: number;
}

/** Long past Slack's 3 s, so a missing ack shows as a figure instead of stalling the run. */
const answerTimeoutMs = 15_000;

/**
 * Posts deliveries to a bot's request URL with a fresh Slack signature and times each one from
 * the first byte sent to the last byte of the bot's answer (its ack).
 */
export class SignedSender {
  readonly #pool: Pool;
  readonly #path: string;
  readonly #signingSecret: string;

  constructor(url: string, signingSecret: string, connections: number) {
    const target = new URL(url);
    this.#pool = new Pool(target.origin, { connections });
    this.#path = target.pathname;
    this.#signingSecret = signingSecret;
  }

  async send(delivery: Delivery): Promise<Timing> {
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      'content-type': delivery.contentType,
      'x-slack-request-timestamp': String(timestamp),
      'x-slack-signature': slackSignature(this.#signingSecret, timestamp, delivery.body),
    };
    const started = performance.now();
    const at = performance.timeOrigin + started;
    try {
      const response = await this.#pool.request({
        path: this.#path,
        method: 'POST',
        headers,
        body: delivery.body,
        headersTimeout: answerTimeoutMs,
        bodyTimeout: answerTimeoutMs,
      });
      await response.body.text();
      return { ms: performance.now() - started, status: response.statusCode, at };
    } catch {
      return { ms: performance.now() - started, status: 0, at };
    }
  }

  close(): Promise<void> {
    return this.#pool.close();
  }
}

export interface LoadShape {
  /** Shapes of different names never share the load client's connections to an app. */
  name?: string;
  /** Most deliveries in flight at once. */
  concurrency: number;
  /** Deliveries started per second, on a fixed schedule. */
  ratePerSecond: number;
}

export interface LoadResult {
  timings: Timing[];
  seconds: number;
  maxInFlight: number;
  /** The load client's own event-loop lag: a late client inflates every timing it takes. */
  clientLoopDelayMaxMs: number;
}

/**
 * Sends each delivery once, the i-th at i/rate seconds, with at most `concurrency` in flight: an
 * arrival rate the same for every app under test, so a slower app is not rewarded with less load.
 */
export async function runLoad(
  deliveries: readonly Delivery[],
  send: (delivery: Delivery) => Promise<Timing>,
  shape: LoadShape,
): Promise<LoadResult> {
  const timings: Timing[] = [];
  const loopDelay = monitorEventLoopDelay({ resolution: 5 });
  loopDelay.enable();
  const intervalMs = 1000 / shape.ratePerSecond;
  const started = performance.now();
  let next = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  const worker = async () => {
    for (let index = next++; index < deliveries.length; index = next++) {
      const wait = started + index * intervalMs - performance.now();
      if (wait > 1) await sleep(wait);
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      timings[index] = await send(deliveries[index]!);
      inFlight--;
    }
  };
  await Promise.all(Array.from({ length: shape.concurrency }, worker));
  loopDelay.disable();
  return {
    timings,
    seconds: (performance.now() - started) / 1000,
    maxInFlight,
    clientLoopDelayMaxMs: loopDelay.max / 1e6,
  };
}
