import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, HTTPReceiver } from '@slack/bolt';
import type { Bot } from './bootstrap.ts';
import { boltLogger } from './logger.ts';
import { listeners } from './listeners.ts';
import { Probes } from './probes.ts';
import { SlackAdapter } from './slack/adapter.ts';
import { SocketModeRoutesReceiver } from './slack/socketModeReceiver.ts';
import { respondTo } from './slack/replies.ts';
import { slackClientOptions } from './bootstrap.ts';
import { publishHome } from './commands/home.ts';
import { loginRoutes } from './commands/login/page.ts';
import { rememberUnsent } from './attacks/poller.ts';
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
export async function startBot(bot: Bot, options: StartOptions): Promise<RunningBot> {
  const { services, config, metrics, store, platform } = bot;
  const { logger } = services;
  const adapter = new SlackAdapter(services, { store, metrics }, { replies: respondTo });
  const port = options.port ?? config.port;
  const opsPort = options.opsPort ?? config.opsPort;
  const probes = new Probes({ ping: () => store.ping(), metrics });
  // /metrics has no authentication: with an operations port it is served there only, and without
  // one on the public port only when METRICS_PUBLIC says so.
  const routes = [
    ...probes.routes({ metrics: opsPort === undefined && config.metricsPublic }),
    ...(config.login.mode !== 'modal' ? loginRoutes(services, (actor) => publishHome(actor, services)) : []),
    // Slackbot's tools: the MCP SDK is loaded only when they are on.
    ...(config.mcpEnabled
      ? (await import('./slack/mcp.ts')).mcpRoutes(adapter, listeners.tools ?? [], {
          store,
          signingSecret: config.slack.signingSecret,
        })
      : []),
  ];
  const slackLogger = boltLogger(logger);
  const clientOptions = slackClientOptions(config, options.slackTimeoutMs);

  let app: App;
  let socketMode: SocketModeRoutesReceiver | undefined;
  if (config.slack.socketMode) {
    // The socket client keeps its own, patient retry budget for apps.connections.open: with
    // the short one of our Web API calls it would give up reconnecting after a brief outage.
    socketMode = new SocketModeRoutesReceiver({
      appToken: config.slack.appToken!,
      logger: slackLogger,
      customRoutes: routes,
      port,
      host: options.host,
      installerOptions: { clientOptions: { slackApiUrl: config.slack.apiUrl } },
    });
    app = new App({ token: config.slack.botToken, receiver: socketMode, logger: slackLogger, clientOptions });
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

  // In Socket Mode app.start() resolves with the socket's apps.connections.open answer.
  const started = (await (socketMode
    ? app.start()
    : app.start({ port, host: options.host }, httpServerOptions))) as unknown;
  const server = socketMode?.server ?? (started as Server);
  const opsServer = opsPort === undefined ? undefined : await probes.serve(opsPort, options.host);
  const bound = (server.address() as AddressInfo).port;
  const opsBound = opsServer ? (opsServer.address() as AddressInfo).port : undefined;
  const jobs = new Scheduler({ jobs: options.jobs, store, logger });
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
        probes.stopping = true;
        // Slack's requests are still taken while the work in flight finishes: each new one is
        // answered "Faultline is restarting" rather than refused a connection or dropped.
        await adapter.drain();
        await jobs.stop();
        const unsent = await services.slack.flush({ withinMs: options.flushWithinMs ?? flushWithinMs });
        if (unsent.length) {
          logger.warn({ messages: unsent.length }, 'card updates left for the next replica');
          await rememberUnsent({ store, logger }, unsent);
        }
        const stopped = app
          .stop()
          .catch((error: unknown) => logger.warn({ err: error }, 'receiver did not stop cleanly'));
        // Bolt's receiver closes its server too; closing lets idle connections go at once.
        const closed = opsServer && new Promise((resolve) => opsServer.close(resolve));
        // Requests that came in on open connections while the listeners closed.
        await adapter.drain();
        await Promise.all([stopped, closed]);
        await platform.close();
        await store.close();
        logger.info('stopped');
      })()),
  };
}
