/**
 * A Slack app under load for the ack benchmark, in a process of its own so that neither the load
 * client nor the stand-ins for Slack and the platform share its event loop. `bare` is a Bolt app
 * whose listeners only ack; `faultline` is the bot as production builds it (createDeps, startBot).
 *
 * The parent sends a TargetSpec and gets `{ port }`; then each `'sample'` is answered with a
 * Sample of the time since the previous one, and `'stop'` with a TargetReport before exiting.
 */
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Writable } from 'node:stream';
import { App, HTTPReceiver, LogLevel } from '@slack/bolt';
import { Agent } from 'undici';
import { startBot } from '../src/app.ts';
import { createDeps } from '../src/bootstrap.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { LIST_NEXT_PAGE } from '../src/views/attackList.ts';

export interface TargetSpec {
  kind: 'bare' | 'faultline';
  signingSecret: string;
  botToken: string;
  slackApiUrl: string;
  platformUrl: string;
  /** PEM of the platform's certificate (the simulator's, self-signed). */
  platformCa: string;
}

/** The app's process between two samples. */
export interface Sample {
  cpuMs: number;
  /** How late the event loop ran timers, in ms: what any request arriving then waited at least. */
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
  rssBytes: number;
}

export interface TargetReport {
  errorLogs: number;
  warnLogs: number;
  /** The first few error messages, to say what went wrong. */
  errors: string[];
  rssBytes: number;
  /** Heap still in use after a full garbage collection, with no work in flight. */
  heapAfterGcBytes: number;
}

interface Running {
  port: number;
  stop(): Promise<void>;
}

const logCounts = { errorLogs: 0, warnLogs: 0, errors: [] as string[] };

/** Production logs JSON lines at info; here they are counted instead of written anywhere. */
const logSink = new Writable({
  write(chunk, _encoding, done) {
    for (const line of String(chunk).split('\n')) {
      if (line.includes('"level":"warn"')) logCounts.warnLogs++;
      if (line.includes('"level":"error"') || line.includes('"level":"fatal"')) {
        logCounts.errorLogs++;
        if (logCounts.errors.length < 3) logCounts.errors.push(String((JSON.parse(line) as { msg?: unknown }).msg));
      }
    }
    done();
  },
});

async function startBare(spec: TargetSpec): Promise<Running> {
  const receiver = new HTTPReceiver({ signingSecret: spec.signingSecret, endpoints: '/slack/events' });
  const app = new App({ token: spec.botToken, receiver, logLevel: LogLevel.ERROR, clientOptions: { slackApiUrl: spec.slackApiUrl } });
  app.command('/chaos', async ({ ack }) => {
    await ack();
  });
  app.action(LIST_NEXT_PAGE, async ({ ack }) => {
    await ack();
  });
  const server = (await app.start(0)) as Server;
  return { port: (server.address() as AddressInfo).port, stop: () => app.stop() as Promise<void> };
}

async function startFaultline(spec: TargetSpec): Promise<Running> {
  const config = loadConfig({
    SLACK_BOT_TOKEN: spec.botToken,
    SLACK_SIGNING_SECRET: spec.signingSecret,
    SLACK_API_URL: spec.slackApiUrl,
    PLATFORM_API_URL: spec.platformUrl,
    SESSION_KEY: randomBytes(32).toString('base64'),
    STORE_URL: 'memory://',
    LOG_LEVEL: 'info',
  });
  // Trusting the simulator's certificate is the only departure from the production wiring.
  const agent = new Agent({ connect: { ca: spec.platformCa } });
  const deps = createDeps(config, { logger: createLogger(config.logLevel, logSink), dispatcher: agent });
  const bot = await startBot(deps, { port: 0 });
  return {
    port: bot.port,
    stop: async () => {
      await bot.stop();
      await agent.close();
    },
  };
}

const loopDelay = monitorEventLoopDelay({ resolution: 5 });
let cpuMark = process.cpuUsage();

function sample(): Sample {
  const cpu = process.cpuUsage(cpuMark);
  cpuMark = process.cpuUsage();
  const result = { cpuMs: (cpu.user + cpu.system) / 1000, loopDelayP99Ms: loopDelay.percentile(99) / 1e6, loopDelayMaxMs: loopDelay.max / 1e6, rssBytes: process.memoryUsage.rss() };
  loopDelay.reset();
  return result;
}

process.once('message', (spec: TargetSpec) => {
  void (spec.kind === 'bare' ? startBare(spec) : startFaultline(spec)).then((running) => {
    loopDelay.enable();
    process.on('message', (message) => {
      if (message === 'sample') {
        process.send?.(sample());
        return;
      }
      void running.stop().finally(() => {
        loopDelay.disable();
        globalThis.gc?.();
        const report: TargetReport = { ...logCounts, rssBytes: process.memoryUsage.rss(), heapAfterGcBytes: process.memoryUsage().heapUsed };
        process.send?.(report, () => process.disconnect());
      });
    });
    process.send?.({ port: running.port });
  });
});
