import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { App, HTTPReceiver, SocketModeReceiver } from '@slack/bolt';
import type { Deps } from './deps.ts';
import { boltLogger, type Logger } from './logger.ts';
import { listeners } from './listeners.ts';
import type { Metrics } from './metrics.ts';
import { SlackAdapter } from './slack/adapter.ts';
import { respondTo } from './slack/replies.ts';
import { slackClientOptions } from './bootstrap.ts';
import { publishHome } from './commands/home.ts';
import { loginRoutes } from './commands/loginPage.ts';
import { rememberUnsent } from './attacks/redraw.ts';
import { Scheduler, type Job } from './jobs/scheduler.ts';
import { httpServerOptions, slackBodyLimit, UnverifiedBodies } from './slack/unverifiedBodies.ts';
import { arrivals } from './eventLoop.ts';
import { trustedProxies } from './login/clientAddress.ts';

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

/**
 * /healthz (process up), /readyz (store reachable, and not stopping), /metrics (Prometheus
 * text). `metrics: false` leaves /metrics out, for the public port when an operations port
 * serves it.
 */
function operationsRoutes(
  deps: Deps,
  metrics: Metrics,
  state: { stopping: boolean },
  options: { metrics: boolean } = { metrics: true },
): Route[] {
  const routes: Route[] = [
    { path: '/healthz', method: 'GET', handler: (_req, res) => reply(res, 200, 'ok\n') },
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
 * The routes where Bolt serves no HTTP: the operations port, and PORT in Socket Mode, which
 * has no HTTP endpoint of its own. In HTTP mode Bolt's receiver serves them on PORT.
 */
async function serveRoutes(routes: Route[], port: number, logger: Logger, host?: string): Promise<Server> {
  const server = createServer(httpServerOptions, (req, res) => {
    // A request line no URL parser reads ("//[", say) is answered, never thrown at the process.
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
  server.listen(port, host);
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
  /** The address to listen on (the local demo's loopback); by default every interface. */
  host?: string;
  /** Time limit of one Slack Web API request; by default slackRequestTimeoutMs. */
  slackTimeoutMs?: number;
  /** How long the card updates still queued at shutdown may take; the rest go to the next replica. */
  flushWithinMs?: number;
}

/** Where Slack sends its requests in HTTP mode. */
const slackEndpoint = '/slack/events';

/** Card updates queued at shutdown get this long; what is left is redrawn by the next replica. */
const flushWithinMs = 10_000;

/** Builds the Bolt app in Socket Mode or HTTP mode, registers every listener, and starts it. */
export async function startBot(deps: Deps, options: StartOptions): Promise<RunningBot> {
  const { config, logger } = deps;
  const metrics = deps.metrics;
  const adapter = new SlackAdapter(deps, metrics, { replies: respondTo });
  const port = options.port ?? config.port;
  const opsPort = options.opsPort ?? config.opsPort;
  const state = { stopping: false };
  // /metrics has no authentication: with an operations port it is served there only, and without
  // one on the public port only when METRICS_PUBLIC says so.
  const routes = [
    ...operationsRoutes(deps, metrics, state, { metrics: opsPort === undefined && config.metricsPublic }),
    ...(config.login.mode !== 'modal' ? loginRoutes(deps, (actor) => publishHome(actor, deps)) : []),
  ];
  const slackLogger = boltLogger(logger);
  const clientOptions = slackClientOptions(config, options.slackTimeoutMs);

  let app: App;
  let server: Server;
  if (config.slack.socketMode) {
    // The socket client keeps its own, patient retry budget for apps.connections.open: with
    // the short one of our Web API calls it would give up reconnecting after a brief outage.
    const receiver = new SocketModeReceiver({
      appToken: config.slack.appToken!,
      logger: slackLogger,
      installerOptions: { clientOptions: { slackApiUrl: config.slack.apiUrl } },
    });
    app = new App({ token: config.slack.botToken, receiver, logger: slackLogger, clientOptions });
    server = await serveRoutes(routes, port, logger, options.host);
  } else {
    const receiver = new HTTPReceiver({
      signingSecret: config.slack.signingSecret!,
      endpoints: slackEndpoint,
      customRoutes: routes,
      logger: slackLogger,
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
    // refused first, and the bodies held until their check share one budget.
    const proxies = trustedProxies(config.login.trustedProxies);
    receiver.requestListener = new UnverifiedBodies({ proxies }).guard(slackEndpoint, receiver.requestListener);
    app = new App({ token: config.slack.botToken, receiver, logger: slackLogger, clientOptions });
  }
  app.error(async (error) => {
    logger.error({ err: error }, 'unhandled error in a Slack listener');
  });
  adapter.register(app, listeners);

  const started = (await (config.slack.socketMode
    ? app.start(port)
    : app.start({ port, host: options.host }, httpServerOptions))) as unknown;
  if (!config.slack.socketMode) server = started as Server;
  const opsServer =
    opsPort === undefined
      ? undefined
      : await serveRoutes(operationsRoutes(deps, metrics, state), opsPort, logger, options.host);
  const bound = (server!.address() as AddressInfo).port;
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
        await adapter.drain();
        await jobs.stop();
        const unsent = await deps.slack.flush({ withinMs: options.flushWithinMs ?? flushWithinMs });
        if (unsent.length) {
          logger.warn({ messages: unsent.length }, 'card updates left for the next replica');
          await rememberUnsent(deps, unsent);
        }
        const stopped = app
          .stop()
          .catch((error: unknown) => logger.warn({ err: error }, 'receiver did not stop cleanly'));
        const closed = [...(config.slack.socketMode ? [server!] : []), ...(opsServer ? [opsServer] : [])].map(
          (s) => new Promise((resolve) => s.close(resolve)),
        );
        server!.closeIdleConnections();
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
