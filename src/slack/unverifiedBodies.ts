import type { IncomingMessage, RequestListener, ServerOptions, ServerResponse } from 'node:http';
import { BlockList } from 'node:net';
import { clientAddress } from '../login/clientAddress.ts';

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

/**
 * Bytes held, across every connection, for bodies whose signature is not checked yet; one client
 * holds a quarter of it at most, the most Bolt reads of one body (a test makes the budget smaller).
 */
export const unverifiedLimits = { budget: 16 * 1024 * 1024 };

const signaturePattern = /^v0=[0-9a-f]{64}$/;
const timestampPattern = /^\d{1,12}$/;

/** A body being read: its client's address, and the bytes it has sent so far. */
interface Body {
  readonly req: IncomingMessage;
  readonly address: string;
  /** Set at its first byte: a body that has sent nothing holds nothing. */
  sender?: Sender;
  bytes: number;
  done: boolean;
}

/** One client address's bodies that hold bytes, oldest first, and their bytes. */
interface Sender {
  readonly address: string;
  readonly bodies: Set<Body>;
  bytes: number;
}

/**
 * What reaches Slack's endpoint before Bolt reads a body: a request without Slack's signature
 * headers, or with a stale timestamp, is refused at once, unread. The rest are read, and the bytes
 * each body has sent so far (not what it declares) count against one budget for all connections
 * and a quarter of it per client address. Past either, the oldest body of that client, or of all,
 * is dropped: one sent whole, as Slack sends each, is the newest and always gets in. A body stops
 * counting once read whole, or answered. Bolt still checks the signature itself.
 */
export class UnverifiedBodies {
  /** Bodies that have sent bytes, oldest first. */
  readonly #held = new Set<Body>();
  readonly #senders = new Map<string, Sender>();
  #total = 0;
  readonly #bodyLimit: number;
  readonly #proxies: BlockList;
  readonly #now: () => number;

  constructor(options: { bodyLimit?: number; proxies?: BlockList; now?: () => number } = {}) {
    this.#bodyLimit = options.bodyLimit ?? slackBodyLimit;
    this.#proxies = options.proxies ?? new BlockList();
    this.#now = options.now ?? Date.now;
  }

  /** Bytes held now. */
  get held(): number {
    return this.#total;
  }

  /** Bolt's request listener, behind these checks for POSTs to `endpoint`. */
  guard(endpoint: string, listener: RequestListener): RequestListener {
    return (req, res) => {
      if (req.method !== 'POST' || URL.parse(req.url ?? '', 'http://localhost')?.pathname !== endpoint)
        return listener(req, res);
      if (!signedHeaders(req, this.#now())) return refuse(res);
      listener(req, res);
      // Bolt has started reading the body (it listens for its data before returning), so counting
      // it here takes nothing from Bolt. A body declared over the limit Bolt refuses, unread.
      const declared = req.headers['content-length'];
      if (declared === undefined || Number(declared) <= this.#bodyLimit) this.#count(req, res);
    };
  }

  #count(req: IncomingMessage, res: ServerResponse): void {
    const address = clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for'], this.#proxies);
    const body: Body = { req, address, bytes: 0, done: false };
    req.on('data', (chunk: Buffer) => this.#grew(body, chunk.length));
    req.once('end', () => this.#release(body));
    res.once('close', () => this.#release(body));
  }

  #grew(body: Body, bytes: number): void {
    if (body.done) return;
    let sender = body.sender;
    if (!sender) {
      sender = this.#senders.get(body.address) ?? { address: body.address, bodies: new Set(), bytes: 0 };
      this.#senders.set(body.address, sender);
      sender.bodies.add(body);
      this.#held.add(body);
      body.sender = sender;
    }
    body.bytes += bytes;
    sender.bytes += bytes;
    this.#total += bytes;
    const share = unverifiedLimits.budget / 4;
    while (sender.bytes > share) this.#drop(first(sender.bodies));
    while (this.#total > unverifiedLimits.budget) this.#drop(first(this.#held));
  }

  #drop(body: Body): void {
    this.#release(body);
    body.req.socket.destroy();
  }

  #release(body: Body): void {
    if (body.done) return;
    body.done = true;
    const { sender } = body;
    if (!sender) return;
    sender.bodies.delete(body);
    this.#held.delete(body);
    sender.bytes -= body.bytes;
    this.#total -= body.bytes;
    if (sender.bodies.size === 0) this.#senders.delete(sender.address);
  }
}

/** Whether a request carries Slack's signature headers, well formed, with a timestamp inside the window. */
export function signedHeaders(req: IncomingMessage, nowMs: number): boolean {
  const signature = req.headers['x-slack-signature'];
  const timestamp = req.headers['x-slack-request-timestamp'];
  return (
    typeof signature === 'string' &&
    signaturePattern.test(signature) &&
    typeof timestamp === 'string' &&
    timestampPattern.test(timestamp) &&
    Math.floor(nowMs / 1000) - Number(timestamp) <= signatureWindowSeconds
  );
}

function first<T>(set: Set<T>): T {
  return set.values().next().value!;
}

/**
 * Answers without reading the body, then closes the connection: a client still sending it would
 * otherwise keep it open, waiting for the body to be read.
 */
export function refuse(res: ServerResponse): void {
  res.writeHead(401, { connection: 'close' });
  res.end(() => res.socket?.destroy());
}
