import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { App, HTTPReceiver, SocketModeReceiver } from '@slack/bolt';
import type { Deps } from './deps.ts';
import { boltLogger, type Logger } from './logger.ts';
import { listeners } from './listeners.ts';
import type { Metrics } from './metrics.ts';
import { SlackAdapter } from './slack/adapter.ts';
import { AckThreadReceiver } from './slack/ackThreadReceiver.ts';
import { forwardedPeerHeader } from './slack/ackThreadProtocol.ts';
import { respondTo } from './slack/replies.ts';
import { slackClientOptions } from './bootstrap.ts';
import { publishHome } from './commands/home.ts';
import { loginRoutes } from './commands/loginPage.ts';
import { rememberUnsent } from './attacks/redraw.ts';
import { Scheduler, type Job } from './jobs/scheduler.ts';

export interface RunningBot {
  /** The HTTP port actually bound (useful with PORT=0 in tests). */
  port: number;
  /** The operations port actually bound, when OPS_PORT is set. */
  opsPort: number | undefined;
  /** The background jobs, started with the bot (a test runs a pass of them by hand with runNow). */
  jobs: Scheduler;
  /** Stops taking work, finishes what is in flight, closes the store and the platform client. */
  stop(): Promise<void>;
}

type Route = { path: string; method: string; handler: (req: IncomingMessage, res: ServerResponse) => void };

interface BotState {
  stopping: boolean;
  /** Slack's endpoint is gone for good (the ack thread could not be started again). */
  endpointDown: boolean;
}

/**
 * /healthz (process up, and Slack's endpoint with it), /readyz (store reachable, and not
 * stopping), /metrics (Prometheus text). `metrics: false` leaves /metrics out, for the public
 * port when an operations port serves it.
 */
function operationsRoutes(
  deps: Deps,
  metrics: Metrics,
  state: BotState,
  options: { metrics: boolean } = { metrics: true },
): Route[] {
  const routes: Route[] = [
    {
      path: '/healthz',
      method: 'GET',
      // A process that can no longer take Slack's requests asks to be restarted.
      handler: (_req, res) => (state.endpointDown ? reply(res, 503, 'Slack endpoint down\n') : reply(res, 200, 'ok\n')),
    },
    {
      path: '/readyz',
      method: 'GET',
      handler: (_req, res) => {
        // A stopping replica says so, so the load balancer sends the next request elsewhere.
        if (state.stopping) return reply(res, 503, 'stopping\n');
        void deps.store.ping().then((ok) => reply(res, ok ? 200 : 503, ok ? 'ready\n' : 'store unreachable\n'));
      },
    },
  ];
  if (options.metrics) {
    routes.push({
      path: '/metrics',
      method: 'GET',
      handler: (_req, res) => {
        void metrics.registry.metrics().then((text) => reply(res, 200, text, metrics.registry.contentType));
      },
    });
  }
  return routes;
}

/** `/login/:token` style: a `:name` segment matches any one non-empty segment, as in Bolt's custom routes. */
function routeMatches(pattern: string, path: string): boolean {
  const want = pattern.split('/');
  const got = path.split('/');
  return (
    want.length === got.length &&
    want.every((segment, i) => (segment.startsWith(':') ? got[i] !== '' : segment === got[i]))
  );
}

/**
 * A small server for routes outside Bolt: the operations port, PORT in Socket Mode, which has no
 * HTTP endpoint of its own, and the loopback port the ack thread passes every other path to (`at`
 * with the process's `peerToken`). There only, the address a request came from is the one the
 * ack thread forwards after the token; without the token it is unknown.
 */
async function serveRoutes(routes: Route[], at: number | { peerToken: string }, logger: Logger): Promise<Server> {
  const server = createServer((req, res) => {
    if (typeof at === 'object') {
      const [token, peer] = String(req.headers[forwardedPeerHeader] ?? '').split(' ');
      delete req.headers[forwardedPeerHeader];
      // The thread opens one connection per request, so the connection's address is this request's.
      Object.defineProperty(req.socket, 'remoteAddress', {
        value: token === at.peerToken && peer ? peer : undefined,
        configurable: true,
      });
    }
    const path = URL.parse(req.url ?? '/', 'http://localhost')?.pathname;
    if (path === undefined) return reply(res, 400, 'bad request\n');
    const route = routes.find((r) => routeMatches(r.path, path) && r.method === req.method);
    if (route) route.handler(req, res);
    else {
      // As Bolt logs a request it has no route for; the logger scrubs login links from the line.
      logger.debug(`no route for ${req.method ?? ''} ${path}`);
      reply(res, 404, 'not found\n');
    }
  });
  if (typeof at === 'object') server.listen(0, '127.0.0.1');
  else server.listen(at);
  await once(server, 'listening');
  return server;
}

export interface StartOptions {
  /** What runs in the background (the table of src/jobs/backgroundJobs.ts). */
  jobs: Job[];
  /** Overrides PORT (0 picks a free one, in tests). */
  port?: number;
  /** Overrides OPS_PORT. */
  opsPort?: number;
  /** Time limit of one Slack Web API request; by default slackRequestTimeoutMs. */
  slackTimeoutMs?: number;
  /** How long the card updates still queued at shutdown may take; the rest go to the next replica. */
  flushWithinMs?: number;
}

/** Card updates queued at shutdown get this long; what is left is redrawn by the next replica. */
const flushWithinMs = 10_000;

/** Bolt's limit for a delivery no listener answered, past Slack's own 3 s. */
const unansweredMs = 3_001;

/** Builds the Bolt app in Socket Mode or HTTP mode, registers every listener, and starts it. */
export async function startBot(deps: Deps, options: StartOptions): Promise<RunningBot> {
  const { config, logger } = deps;
  const metrics = deps.metrics;
  const adapter = new SlackAdapter(deps, metrics, { replies: respondTo });
  const port = options.port ?? config.port;
  const opsPort = options.opsPort ?? config.opsPort;
  const state: BotState = { stopping: false, endpointDown: false };
  // With an operations port, /metrics is served there only: it has no authentication.
  const routes = [
    ...operationsRoutes(deps, metrics, state, { metrics: opsPort === undefined }),
    ...(config.login.mode !== 'modal' ? loginRoutes(deps, (actor) => publishHome(actor, deps)) : []),
  ];
  const slackLogger = boltLogger(logger);
  const clientOptions = slackClientOptions(config, options.slackTimeoutMs);

  let app: App;
  let server: Server | undefined;
  /** Bolt's receiver when Slack's endpoint is on the ack thread. */
  let ackThread: AckThreadReceiver | undefined;
  if (config.slack.socketMode) {
    // The socket client keeps its own, patient retry budget for apps.connections.open: with
    // the short one of our Web API calls it would give up reconnecting after a brief outage.
    const receiver = new SocketModeReceiver({
      appToken: config.slack.appToken!,
      logger: slackLogger,
      installerOptions: { clientOptions: { slackApiUrl: config.slack.apiUrl } },
    });
    app = new App({ token: config.slack.botToken, receiver, logger: slackLogger, clientOptions });
    server = await serveRoutes(routes, port, logger);
  } else if (config.slack.ackThread) {
    // No file: the bot runs on a read-only filesystem. The routes there are public ones anyway,
    // and the token keeps a local client from choosing the address a login limit counts against.
    const peerToken = randomBytes(24).toString('base64url');
    server = await serveRoutes(routes, { peerToken }, logger);
    ackThread = new AckThreadReceiver(
      {
        endpoint: '/slack/events',
        command: config.slack.command,
        signingSecret: config.slack.signingSecret!,
        routesPort: (server.address() as AddressInfo).port,
        peerToken,
        unansweredMs,
        onGiveUp: () => (state.endpointDown = true),
      },
      logger,
    );
    app = new App({ token: config.slack.botToken, receiver: ackThread, logger: slackLogger, clientOptions });
  } else {
    const receiver = new HTTPReceiver({
      signingSecret: config.slack.signingSecret!,
      endpoints: '/slack/events',
      customRoutes: routes,
      logger: slackLogger,
    });
    app = new App({ token: config.slack.botToken, receiver, logger: slackLogger, clientOptions });
  }
  app.error(async (error) => {
    logger.error({ err: error }, 'unhandled error in a Slack listener');
  });
  adapter.register(app, listeners);

  const started = (await app.start(port)) as unknown;
  if (!config.slack.socketMode && !ackThread) server = started as Server;
  const opsServer =
    opsPort === undefined ? undefined : await serveRoutes(operationsRoutes(deps, metrics, state), opsPort, logger);
  const bound = ackThread ? ackThread.port : (server!.address() as AddressInfo).port;
  const opsBound = opsServer ? (opsServer.address() as AddressInfo).port : undefined;
  const jobs = new Scheduler({ jobs: options.jobs, store: deps.store, logger });
  jobs.start();
  logger.info(
    {
      mode: config.slack.socketMode ? 'socket' : 'http',
      port: bound,
      ...(opsBound !== undefined ? { opsPort: opsBound } : {}),
    },
    'Faultline is running',
  );

  let stopping: Promise<void> | undefined;
  return {
    port: bound,
    opsPort: opsBound,
    jobs,
    stop: () =>
      (stopping ??= (async () => {
        logger.info('stopping: finishing work in flight');
        state.stopping = true;
        // Slack's requests are still taken while the work in flight finishes: each new one is
        // answered "Faultline is restarting" rather than refused a connection or dropped.
        await ackThread?.hold();
        await adapter.drain();
        await ackThread?.drain();
        await jobs.stop();
        const unsent = await deps.slack.flush({ withinMs: options.flushWithinMs ?? flushWithinMs });
        if (unsent.length) {
          logger.warn({ messages: unsent.length }, 'card updates left for the next replica');
          await rememberUnsent(deps, unsent);
        }
        const stopped = app
          .stop()
          .catch((error: unknown) => logger.warn({ err: error }, 'receiver did not stop cleanly'));
        // The ack thread passes requests to the routes' port until its own server has closed.
        if (ackThread) await stopped;
        const closed = [
          ...(config.slack.socketMode || ackThread ? [server!] : []),
          ...(opsServer ? [opsServer] : []),
        ].map((s) => new Promise((resolve) => s.close(resolve)));
        server?.closeIdleConnections();
        opsServer?.closeIdleConnections();
        // Requests that came in on open connections while the listeners closed.
        await adapter.drain();
        await Promise.all([stopped, ...closed]);
        await deps.platform.close();
        await deps.store.close();
        logger.info('stopped');
      })()),
  };
}

function reply(res: ServerResponse, status: number, body: string, contentType = 'text/plain; charset=utf-8'): void {
  res.writeHead(status, { 'content-type': contentType });
  res.end(body);
}
