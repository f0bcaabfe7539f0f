import { once } from 'node:events';
import type { IncomingMessage, RequestListener, Server, ServerOptions, ServerResponse } from 'node:http';
import { BlockList } from 'node:net';
import {
  type App,
  type CustomRoute,
  HTTPReceiver,
  type Logger as SlackLogger,
  type Receiver,
  SocketModeReceiver,
  type SocketModeReceiverOptions,
} from '@slack/bolt';
import type { Config } from '../config.ts';
import { arrivals, clientAddress, trustedProxies } from '../http.ts';

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

/** Where Slack sends its requests in HTTP mode. */
const slackEndpoint = '/slack/events';

/** Bolt's receiver, and how it starts listening: it gives back the server of the HTTP routes. */
interface SlackReceiver {
  receiver: Receiver;
  listen(app: App): Promise<Server>;
}

/**
 * The receiver for Slack's requests and the HTTP routes: Socket Mode with an app token, else HTTP,
 * where Slack's endpoint refuses what cannot be Slack's before its body is read (UnverifiedBodies).
 */
export function slackReceiver(
  config: Config,
  options: { routes: CustomRoute[]; logger: SlackLogger; port: number; host?: string | undefined },
): SlackReceiver {
  const { routes: customRoutes, logger, port, host } = options;
  if (config.slack.socketMode) {
    // The socket client keeps its own, patient retry budget for apps.connections.open: with
    // the short one of our Web API calls it would give up reconnecting after a brief outage.
    const receiver = new SocketModeRoutesReceiver({
      appToken: config.slack.appToken!,
      logger,
      customRoutes,
      port,
      host,
      installerOptions: { clientOptions: { slackApiUrl: config.slack.apiUrl } },
    });
    return { receiver, listen: (app) => app.start().then(() => receiver.server) };
  }
  const receiver = new HTTPReceiver({
    signingSecret: config.slack.signingSecret!,
    endpoints: slackEndpoint,
    customRoutes,
    logger,
    bodyLimit: slackBodyLimit,
    // Bolt calls this once a request's signature has verified, before the app sees the event:
    // only such a request is Slack's delivery, for which work that can wait gives way (see
    // Arrivals). Probes, pages and unsigned or forged requests never hold that work back.
    customPropertiesExtractor: () => {
      arrivals.arrived();
      return {};
    },
  });
  // Bolt reads a body before it checks the signature: requests that cannot be Slack's are
  // refused first, and the bodies held until their check share one budget. A client behind a
  // trusted proxy is told apart by X-Forwarded-For, as on the login page, so that one client
  // cannot drop the bodies of another (Slack's among them) by sharing its address.
  const proxies = trustedProxies(config.login.trustedProxies);
  receiver.requestListener = new UnverifiedBodies({ proxies }).guard(slackEndpoint, receiver.requestListener);
  return { receiver, listen: (app) => app.start({ port, host }, httpServerOptions) as Promise<Server> };
}

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
class UnverifiedBodies {
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

/**
 * Bolt's Socket Mode receiver, whose HTTP server for the custom routes keeps what the bot's other
 * servers guarantee. Bolt makes that server in its constructor without options and keeps it
 * private, and its start() listens on every interface without waiting; its request listener is
 * async, so a request line its URL parser cannot read ("//[") would reject unhandled and end the
 * process. Here the server has the bot's time limits, listens on `host` before the socket opens
 * (a port in use fails the start), and such a request is answered 400.
 */
export class SocketModeRoutesReceiver extends SocketModeReceiver {
  /** Bolt's server for the custom routes. */
  readonly server: Server;
  readonly #port: number;
  readonly #host: string | undefined;

  constructor(options: SocketModeReceiverOptions & { customRoutes: CustomRoute[]; port: number; host?: string }) {
    const { port, host, ...bolt } = options;
    super(bolt);
    this.#port = port;
    this.#host = host;
    // The seam: the server Bolt made for the custom routes, and its request listener.
    this.server = (this as unknown as { httpServer: Server }).httpServer;
    // Node reads these when the server starts listening and at each check, not only when it is made.
    Object.assign(this.server, httpServerOptions);
    const [serve] = this.server.listeners('request') as ((
      req: IncomingMessage,
      res: ServerResponse,
    ) => Promise<void>)[];
    this.server.removeAllListeners('request');
    this.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      serve!(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' });
        res.end('bad request\n');
      });
    });
  }

  override async start(): ReturnType<SocketModeReceiver['start']> {
    this.server.listen(this.#port, this.#host);
    await once(this.server, 'listening');
    return this.client.start();
  }

  /** Closes the socket, and the server once its requests are answered. */
  override async stop(): Promise<void> {
    const closed = once(this.server, 'close');
    await super.stop();
    await closed;
  }
}
