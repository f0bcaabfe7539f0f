import type { AddressInfo } from 'node:net';
import { App, type Authorize } from '@slack/bolt';
import { WebClient } from '@slack/web-api';
import { type Bot, slackClientOptions } from './bootstrap.ts';
import { boltLogger, type Logger } from './logger.ts';
import { listeners } from './listeners.ts';
import { Probes } from './probes.ts';
import { SlackAdapter } from './slack/adapter.ts';
import { respondTo } from './slack/replies.ts';
import { publishHome } from './commands/home.ts';
import { loginRoutes } from './commands/login/page.ts';
import { rememberUnsent } from './attacks/poller.ts';
import { Scheduler, type Job } from './jobs/scheduler.ts';
import { slackReceiver } from './slack/receiver.ts';

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

  const { receiver, listen } = slackReceiver(config, { routes, logger: slackLogger, port, host: options.host });
  const app = new App({
    authorize: botAuthorization(
      new WebClient(undefined, { ...clientOptions, logger: slackLogger }),
      config.slack.botToken,
      logger,
    ),
    receiver,
    logger: slackLogger,
    clientOptions,
  });
  app.error(async (error) => {
    logger.error({ err: error }, 'unhandled error in a Slack listener');
  });
  adapter.register(app, listeners);

  const server = await listen(app);
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

/**
 * Bolt's authorization for our one bot token. Bolt's own checks the token with auth.test in its
 * constructor and keeps the answer for good, a failure included: a Slack unreachable at start
 * left a rejected promise nobody awaited and failed every later request. Here the check is kept
 * once it answers and asked again after a failure; it starts now, so the first request finds it done.
 */
function botAuthorization(client: WebClient, token: string, logger: Logger): Authorize<boolean> {
  let checked: Promise<{ botId?: string; botUserId?: string }> | undefined;
  const check = () =>
    (checked ??= client.auth.test({ token }).then(
      (answer) => ({
        ...(answer.bot_id ? { botId: answer.bot_id } : {}),
        ...(answer.user_id ? { botUserId: answer.user_id } : {}),
      }),
      (error: unknown) => {
        checked = undefined;
        throw error;
      },
    ));
  check().catch((error: unknown) =>
    logger.warn({ err: error }, 'Slack did not confirm the bot token yet; asked again with the next request'),
  );
  return async () => ({ botToken: token, ...(await check()) });
}
