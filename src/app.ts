import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { App, HTTPReceiver, SocketModeReceiver } from '@slack/bolt';
import type { Deps } from './deps.ts';
import { boltLogger } from './logger.ts';
import { listeners } from './listeners.ts';
import { createMetrics, type Metrics } from './metrics.ts';
import { SlackAdapter } from './slack/adapter.ts';
import { slackClientOptions } from './bootstrap.ts';
import { publishHome } from './commands/home.ts';
import { loginRoutes } from './login/handler.ts';

export interface RunningBot {
  /** The HTTP port actually bound (useful with PORT=0 in tests). */
  port: number;
  /** Stops taking work, finishes what is in flight, closes the store and the platform client. */
  stop(): Promise<void>;
}

type Route = { path: string; method: string; handler: (req: IncomingMessage, res: ServerResponse) => void };

/** /healthz (process up), /readyz (store reachable), /metrics (Prometheus text). */
function operationsRoutes(deps: Deps, metrics: Metrics): Route[] {
  return [
    { path: '/healthz', method: 'GET', handler: (_req, res) => reply(res, 200, 'ok\n') },
    {
      path: '/readyz',
      method: 'GET',
      handler: (_req, res) => {
        void deps.store.ping().then((ok) => reply(res, ok ? 200 : 503, ok ? 'ready\n' : 'store unreachable\n'));
      },
    },
    {
      path: '/metrics',
      method: 'GET',
      handler: (_req, res) => {
        void metrics.registry.metrics().then((text) => reply(res, 200, text, metrics.registry.contentType));
      },
    },
  ];
}

/** `/login/:token` style: a `:name` segment matches any one non-empty segment, as in Bolt's custom routes. */
function routeMatches(pattern: string, path: string): boolean {
  const want = pattern.split('/');
  const got = path.split('/');
  return want.length === got.length && want.every((segment, i) => (segment.startsWith(':') ? got[i] !== '' : segment === got[i]));
}

/** Socket Mode has no HTTP endpoint of its own; the operations routes get a small server on PORT. */
async function serveRoutes(routes: Route[], port: number): Promise<Server> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const route = routes.find((r) => routeMatches(r.path, path) && r.method === req.method);
    if (route) route.handler(req, res);
    else reply(res, 404, 'not found\n');
  });
  server.listen(port);
  await once(server, 'listening');
  return server;
}

/** Builds the Bolt app in Socket Mode or HTTP mode, registers every listener, and starts it. */
export async function startBot(deps: Deps, options: { port?: number } = {}): Promise<RunningBot> {
  const { config, logger } = deps;
  const metrics = createMetrics();
  const adapter = new SlackAdapter(deps, metrics);
  const port = options.port ?? config.port;
  const routes = [...operationsRoutes(deps, metrics), ...(config.login.mode !== 'modal' ? loginRoutes(deps, (actor) => publishHome(actor, deps)) : [])];
  const slackLogger = boltLogger(logger);
  const clientOptions = slackClientOptions(config);

  let app: App;
  let server: Server;
  if (config.slack.socketMode) {
    // The socket client keeps its own, patient retry budget for apps.connections.open: with
    // the short one of our Web API calls it would give up reconnecting after a brief outage.
    const receiver = new SocketModeReceiver({ appToken: config.slack.appToken!, logger: slackLogger, installerOptions: { clientOptions: { slackApiUrl: config.slack.apiUrl } } });
    app = new App({ token: config.slack.botToken, receiver, logger: slackLogger, clientOptions });
    server = await serveRoutes(routes, port);
  } else {
    const receiver = new HTTPReceiver({ signingSecret: config.slack.signingSecret!, endpoints: '/slack/events', customRoutes: routes, logger: slackLogger });
    app = new App({ token: config.slack.botToken, receiver, logger: slackLogger, clientOptions });
  }
  app.error(async (error) => {
    logger.error({ err: error }, 'unhandled error in a Slack listener');
  });
  adapter.register(app, listeners);

  const started = (await app.start(port)) as unknown;
  if (!config.slack.socketMode) server = started as Server;
  const bound = (server!.address() as AddressInfo).port;
  deps.poller.start();
  logger.info({ mode: config.slack.socketMode ? 'socket' : 'http', port: bound }, 'Faultline is running');

  let stopping: Promise<void> | undefined;
  return {
    port: bound,
    stop: () =>
      (stopping ??= (async () => {
        logger.info('stopping: finishing work in flight');
        const stopped = app.stop().catch((error: unknown) => logger.warn({ err: error }, 'receiver did not stop cleanly'));
        const closed = config.slack.socketMode ? new Promise((resolve) => server.close(resolve)) : Promise.resolve();
        server.closeIdleConnections();
        await adapter.drain();
        await deps.poller.stop();
        await deps.slack.flush();
        await Promise.all([stopped, closed]);
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
