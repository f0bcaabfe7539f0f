/**
 * A Slack app under load for the ack benchmark, in a process of its own so that neither the load
 * client nor the stand-ins for Slack and the platform share its event loop. `bare` is a Bolt app
 * whose listeners only ack; `faultline` is the bot as production builds it (createBot, startBot).
 *
 * The parent sends a TargetSpec and gets `{ port }`; then each `'sample'` is answered with a
 * Sample of the time since the previous one, a ProfileOrder with `{ started: true }` or the CPU
 * profile taken since the start, a CardsOrder with `{ saved }`, a PollOrder with `{ started: true }`
 * or the pass's PollTiming, and `'stop'` with a TargetReport before exiting.
 */
import { randomBytes } from 'node:crypto';
import { subscribe } from 'node:diagnostics_channel';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Session, type Profiler } from 'node:inspector/promises';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { Writable } from 'node:stream';
import { App, HTTPReceiver, LogLevel } from '@slack/bolt';
import type { CardRecord } from '../src/attacks/cards.ts';
import { startBot } from '../src/app.ts';
import { type Bot, createBot } from '../src/bootstrap.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { backgroundJobs } from '../src/jobs/backgroundJobs.ts';
import type { Scheduler } from '../src/jobs/scheduler.ts';
import type { PollReport } from '../src/attacks/poller.ts';
import { ATTACK_BUILDER_VIEW } from '../src/views/attacks/builderFields.ts';
import { HALT_ATTACK } from '../src/views/attacks/attackCard.ts';
import { LIST_NEXT_PAGE } from '../src/views/attacks/attackList.ts';

export interface TargetSpec {
  /** `bare-reply`: a bare Bolt app that acks, then posts a fixed message to the response_url. */
  kind: 'bare' | 'bare-reply' | 'faultline';
  /** Faultline's store (default memory://) and session key (default a random one): replicas share both. */
  storeUrl?: string;
  sessionKey?: string;
  signingSecret: string;
  botToken: string;
  slackApiUrl: string;
  /** Its certificate is trusted through NODE_EXTRA_CA_CERTS, as production trusts a private CA. */
  platformUrl: string;
}

/** The app's process between two samples. */
export interface Sample {
  /** The whole process: every thread (GC helpers, the compiler, libuv's pool) with the main one. */
  cpuMs: number;
  /** The main thread alone, where the app's JavaScript runs. */
  mainThreadCpuMs: number;
  /** How late the event loop ran timers at worst, in ms: what a request arriving then waited at least. */
  loopDelayMaxMs: number;
  /** Garbage collection: the longest pause and all pauses together, in ms. */
  gcMaxMs: number;
  gcTotalMs: number;
  /** Absent when the process could not read it (out of file descriptors, say). */
  rssBytes?: number;
  /** Connections the platform client opened (TLS, one per call it could not put on an idle one). */
  platformConnections: number;
}

/** Starts the V8 sampling profiler (a sample every `intervalUs`), or stops it and returns its profile. */
export type ProfileOrder = { profile: 'start'; intervalUs: number } | { profile: 'stop' };

/** Faultline: live cards to save in its store, as a start from Slack saves them. */
export interface CardsOrder {
  cards: CardRecord[];
}

/** Faultline: starts a poll pass, or waits for the one started and says how long it took. */
export type PollOrder = { poll: 'start' } | { poll: 'wait' };

export interface PollTiming {
  /** ms since the epoch (performance.timeOrigin based), comparable with the load client's `at`. */
  startedAt: number;
  endedAt: number;
  cards: number;
}

export interface TargetReport {
  errorLogs: number;
  warnLogs: number;
  /** The first few error messages, to say what went wrong. */
  errors: string[];
  rssBytes?: number;
  /** Heap still in use after a full garbage collection, with no work in flight. */
  heapAfterGcBytes: number;
  /** What V8 keeps for its heap, used or not, and memory outside it (Buffers, WebAssembly, native objects V8 knows of). */
  heapTotalBytes: number;
  externalBytes: number;
}

interface Running {
  port: number;
  stop(): Promise<void>;
  /** Faultline as built, and its background jobs; absent for a bare Bolt app. */
  built?: Bot;
  jobs?: Scheduler;
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
  const app = new App({
    token: spec.botToken,
    receiver,
    logLevel: LogLevel.ERROR,
    clientOptions: { slackApiUrl: spec.slackApiUrl },
  });
  app.command('/chaos', async ({ ack, respond }) => {
    await ack();
    if (spec.kind === 'bare-reply') await respond({ response_type: 'ephemeral', text: 'Faultline is here.' });
  });
  for (const actionId of [LIST_NEXT_PAGE, HALT_ATTACK]) {
    app.action(actionId, async ({ ack }) => {
      await ack();
    });
  }
  app.view(ATTACK_BUILDER_VIEW, async ({ ack }) => {
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
    SESSION_KEY: spec.sessionKey ?? randomBytes(32).toString('base64'),
    STORE_URL: spec.storeUrl ?? 'memory://',
    LOG_LEVEL: 'info',
  });
  // The production wiring, the platform client's own connection pool included; only the log
  // destination differs.
  const built = createBot(config, { logger: createLogger(config.logLevel, logSink) });
  const bot = await startBot(built, { port: 0, jobs: backgroundJobs(built.services) });
  return { port: bot.port, stop: () => bot.stop(), built, jobs: bot.jobs };
}

let pass: { startedAt: number; running: Promise<{ cards: number }> } | undefined;

/** The pass as the scheduler runs it: its pieces give way to Slack's deliveries. */
async function poll(jobs: Scheduler, order: PollOrder): Promise<{ started: true } | PollTiming> {
  if (order.poll === 'start') {
    const running = jobs.runNow('refresh-cards').then((done) => done.get('refresh-cards') as PollReport);
    pass = { startedAt: performance.timeOrigin + performance.now(), running };
    return { started: true };
  }
  if (!pass) throw new Error('No poll pass was started');
  const { cards } = await pass.running;
  return { startedAt: pass.startedAt, endedAt: performance.timeOrigin + performance.now(), cards };
}

const loopDelay = monitorEventLoopDelay({ resolution: 5 });
let cpuMark = process.cpuUsage();
let threadCpuMark = process.threadCpuUsage();
// The undici package carries the platform client (HTTPS) and the response_url replies (plain HTTP
// to the fake Slack); only the first count here.
let platformConnections = 0;
subscribe('undici:client:connected', (message) => {
  if ((message as { connectParams?: { protocol?: string } }).connectParams?.protocol === 'https:')
    platformConnections++;
});
const gc = { maxMs: 0, totalMs: 0 };
new PerformanceObserver((entries) => {
  for (const entry of entries.getEntries()) {
    gc.maxMs = Math.max(gc.maxMs, entry.duration);
    gc.totalMs += entry.duration;
  }
}).observe({ entryTypes: ['gc'] });

function residentSetBytes(): number | undefined {
  try {
    return process.memoryUsage.rss();
  } catch {
    return undefined;
  }
}

function sample(): Sample {
  const cpu = process.cpuUsage(cpuMark);
  const threadCpu = process.threadCpuUsage(threadCpuMark);
  cpuMark = process.cpuUsage();
  threadCpuMark = process.threadCpuUsage();
  const result = {
    cpuMs: (cpu.user + cpu.system) / 1000,
    mainThreadCpuMs: (threadCpu.user + threadCpu.system) / 1000,
    loopDelayMaxMs: loopDelay.max / 1e6,
    gcMaxMs: gc.maxMs,
    gcTotalMs: gc.totalMs,
    rssBytes: residentSetBytes(),
    platformConnections,
  };
  loopDelay.reset();
  platformConnections = 0;
  Object.assign(gc, { maxMs: 0, totalMs: 0 });
  return result;
}

// The inspector's profiler, in this process: only what the app does is sampled, not the load
// client, the fake Slack or the simulator.
let inspector: Session | undefined;

async function profile(order: ProfileOrder): Promise<{ started: true } | Profiler.Profile> {
  if (order.profile === 'start') {
    if (!inspector) {
      inspector = new Session();
      inspector.connect();
    }
    await inspector.post('Profiler.enable');
    await inspector.post('Profiler.setSamplingInterval', { interval: order.intervalUs });
    await inspector.post('Profiler.start');
    return { started: true };
  }
  if (!inspector) throw new Error('The profiler was not started');
  const { profile: taken } = await inspector.post('Profiler.stop');
  await inspector.post('Profiler.disable');
  return taken;
}

process.once('message', (spec: TargetSpec) => {
  void (spec.kind === 'faultline' ? startFaultline(spec) : startBare(spec)).then((running) => {
    loopDelay.enable();
    process.on('message', (message) => {
      if (message === 'sample') {
        process.send?.(sample());
        return;
      }
      if (typeof message === 'object' && message !== null && 'profile' in message) {
        void profile(message as ProfileOrder).then((answer) => process.send?.(answer));
        return;
      }
      if (typeof message === 'object' && message !== null && 'cards' in message && running.built) {
        const { cards } = message as CardsOrder;
        void Promise.all(cards.map((card) => running.built!.services.attacks.cards.savePosted(card))).then(() =>
          process.send?.({ saved: cards.length }),
        );
        return;
      }
      if (typeof message === 'object' && message !== null && 'poll' in message && running.jobs) {
        void poll(running.jobs, message as PollOrder).then((answer) => process.send?.(answer));
        return;
      }
      void running.stop().finally(() => {
        loopDelay.disable();
        globalThis.gc?.();
        const report: TargetReport = {
          ...logCounts,
          rssBytes: residentSetBytes(),
          heapAfterGcBytes: process.memoryUsage().heapUsed,
          heapTotalBytes: process.memoryUsage().heapTotal,
          externalBytes: process.memoryUsage().external,
        };
        process.send?.(report, () => process.disconnect());
      });
    });
    process.send?.({ port: running.port });
  });
});
