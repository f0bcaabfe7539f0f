import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, HTTPReceiver } from '@slack/bolt';
import type { Deps } from './deps.ts';
import { boltLogger } from './logger.ts';
import { listeners } from './listeners.ts';
import { createMetrics } from './metrics.ts';
import { SlackAdapter } from './slack/adapter.ts';
import { slackClientOptions } from './bootstrap.ts';

export interface RunningBot {
  /** The HTTP port actually bound (useful with PORT=0 in tests). */
  port: number;
  /** Stops taking work, finishes what is in flight, closes the store and the platform client. */
  stop(): Promise<void>;
}

/** Builds the Bolt app in Socket Mode or HTTP mode, registers every listener, and starts it. */
export async function startBot(deps: Deps, options: { port?: number } = {}): Promise<RunningBot> {
  const { config, logger } = deps;
  const metrics = createMetrics();
  const adapter = new SlackAdapter(deps, metrics);
  const port = options.port ?? config.port;

  const customRoutes = [
    { path: '/healthz', method: 'GET', handler: (_req: IncomingMessage, res: ServerResponse) => reply(res, 200, 'ok\n') },
    {
      path: '/readyz',
      method: 'GET',
      handler: (_req: IncomingMessage, res: ServerResponse) => {
        void deps.store.ping().then((ok) => reply(res, ok ? 200 : 503, ok ? 'ready\n' : 'store unreachable\n'));
      },
    },
    {
      path: '/metrics',
      method: 'GET',
      handler: (_req: IncomingMessage, res: ServerResponse) => {
        void metrics.registry.metrics().then((text) => reply(res, 200, text, metrics.registry.contentType));
      },
    },
  ];
  const slackLogger = boltLogger(logger);
  const clientOptions = slackClientOptions(config);

  let app: InstanceType<typeof App>;
  let server: Server | undefined;
  if (config.slack.socketMode) {
    app = new App({
      token: config.slack.botToken,
      appToken: config.slack.appToken!,
      socketMode: true,
      logger: slackLogger,
      clientOptions,
      customRoutes,
      installerOptions: { port },
    });
  } else {
    const receiver = new HTTPReceiver({
      signingSecret: config.slack.signingSecret!,
      endpoints: '/slack/events',
      customRoutes,
      logger: slackLogger,
    });
    app = new App({ token: config.slack.botToken, receiver, logger: slackLogger, clientOptions });
  }
  app.error(async (error) => {
    logger.error({ err: error }, 'unhandled error in a Slack listener');
  });
  adapter.register(app, listeners);

  const started = (await app.start(port)) as unknown;
  server = started instanceof Object && 'address' in started ? (started as Server) : undefined;
  const bound = (server?.address() as AddressInfo | null)?.port ?? port;
  deps.poller.start();
  logger.info({ mode: config.slack.socketMode ? 'socket' : 'http', port: bound }, 'Faultline is running');

  let stopping: Promise<void> | undefined;
  return {
    port: bound,
    stop: () =>
      (stopping ??= (async () => {
        logger.info('stopping: finishing work in flight');
        const stopped = app.stop().catch((error: unknown) => logger.warn({ err: error }, 'receiver did not stop cleanly'));
        server?.closeIdleConnections();
        await adapter.drain();
        await deps.poller.stop();
        await deps.slack.flush();
        await stopped;
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
