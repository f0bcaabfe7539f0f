import type { IncomingMessage, RequestListener, ServerOptions, ServerResponse } from 'node:http';

/**
 * Time limits of every HTTP server of the bot: a client has seconds, not Node's five minutes, to
 * send its headers and its whole request (Slack sends each at once), and the limits are checked
 * every second.
 */
export const httpServerOptions: ServerOptions = {
  headersTimeout: 5_000,
  requestTimeout: 10_000,
  connectionsCheckingInterval: 1_000,
};

/** Slack signs a request for five minutes; an older timestamp is stale, whatever its signature. */
const signatureWindowSeconds = 5 * 60;

/** The largest body Bolt's receiver reads (its own default); a larger one it refuses, unread. */
export const slackBodyLimit = 4 * 1024 * 1024;

/** Bytes held, across every connection, for bodies whose signature is not checked yet. */
export const unverifiedBudget = 16 * 1024 * 1024;

const signaturePattern = /^v0=[0-9a-f]{64}$/;
const timestampPattern = /^\d{1,12}$/;

/**
 * What reaches Slack's endpoint before Bolt reads a body: a request without Slack's signature
 * headers, or with a stale timestamp, is refused at once, unread. The rest reserve the body they
 * declare (a body without a length, the most Bolt reads) from one budget for all connections;
 * when it is spent, the largest bodies held give way to a smaller one, so Slack's small requests
 * are read while someone holds connections with large ones; a request no smaller than every body
 * held is refused. A reservation ends with the response. Bolt still checks the signature itself.
 */
export class UnverifiedBodies {
  readonly #held = new Map<IncomingMessage, number>();
  #total = 0;
  readonly #budget: number;
  readonly #bodyLimit: number;
  readonly #now: () => number;

  constructor(options: { budget?: number; bodyLimit?: number; now?: () => number } = {}) {
    this.#budget = options.budget ?? unverifiedBudget;
    this.#bodyLimit = options.bodyLimit ?? slackBodyLimit;
    this.#now = options.now ?? Date.now;
  }

  /** Bytes reserved now. */
  get held(): number {
    return this.#total;
  }

  /** Bolt's request listener, behind these checks for POSTs to `endpoint`. */
  guard(endpoint: string, listener: RequestListener): RequestListener {
    return (req, res) => {
      if (req.method !== 'POST' || URL.parse(req.url ?? '', 'http://localhost')?.pathname !== endpoint)
        return listener(req, res);
      if (!this.#signed(req)) return refuse(res, 401);
      const declared = req.headers['content-length'];
      const size = declared === undefined ? this.#bodyLimit : Number(declared);
      // A body over the limit Bolt refuses itself, before reading it.
      if (size <= this.#bodyLimit && !this.#reserve(req, res, size)) return refuse(res, 503);
      return listener(req, res);
    };
  }

  #signed(req: IncomingMessage): boolean {
    const signature = req.headers['x-slack-signature'];
    const timestamp = req.headers['x-slack-request-timestamp'];
    return (
      typeof signature === 'string' &&
      signaturePattern.test(signature) &&
      typeof timestamp === 'string' &&
      timestampPattern.test(timestamp) &&
      Math.floor(this.#now() / 1000) - Number(timestamp) <= signatureWindowSeconds
    );
  }

  #reserve(req: IncomingMessage, res: ServerResponse, size: number): boolean {
    while (this.#total + size > this.#budget) {
      let largest: [IncomingMessage, number] | undefined;
      for (const entry of this.#held) if (entry[1] > size && (!largest || entry[1] > largest[1])) largest = entry;
      if (!largest) return false;
      this.#release(largest[0]);
      largest[0].socket.destroy();
    }
    this.#held.set(req, size);
    this.#total += size;
    res.once('close', () => this.#release(req));
    return true;
  }

  #release(req: IncomingMessage): void {
    const size = this.#held.get(req);
    if (size === undefined) return;
    this.#held.delete(req);
    this.#total -= size;
  }
}

/**
 * Answers without reading the body, then closes the connection: a client still sending it would
 * otherwise keep it open, waiting for the body to be read.
 */
function refuse(res: ServerResponse, status: 401 | 503): void {
  res.writeHead(status, { connection: 'close', ...(status === 503 ? { 'retry-after': '1' } : {}) });
  res.end(() => res.socket?.destroy());
}
