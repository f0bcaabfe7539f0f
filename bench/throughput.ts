/**
 * Slash commands per second one replica can take: the highest rate at which the p99 from sending
 * a `/chaos list` to its reply reaching Slack stays under 1 s, with the platform answering every
 * call in 50 ms (the simulator's latency fault). For Faultline, for a bare Bolt app that answers
 * each command with a fixed message, and for two Faultline replicas on one Redis behind a round
 * robin. Each rate runs for a few seconds; a reply that never comes counts as over the limit.
 *
 * The replies go to a response_url served here, which notes when each arrives; the load client
 * (its own process) notes when each command left, on the same clock (performance.timeOrigin).
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { DeliveryCapture, logIn, signingSecret, startBackends, TargetProcess } from './ack.ts';
import type { TargetSpec } from './ack-target.ts';
import { ChildLink } from './child.ts';
import type { Delivery, LoadResult } from './load.ts';
import type { LoadOrder } from './load-client.ts';
import { distribution } from './stats.ts';
import { formatMs, printTable, type SummaryRow } from './table.ts';

/** Rates tried in turn, up to the first whose p99 is over the limit; past the last, the figure is "at least". */
const rates = [50, 100, 200, 400, 600, 800, 1_000, 1_300, 1_600, 2_000];
const secondsPerRate = 4;
const limitMs = 1_000;
const platformLatencyMs = 50;
const channel = 'C0GENERAL';
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export async function throughputBenchmark(): Promise<SummaryRow[]> {
  const backends = await startBackends();
  const { sim, fake, caFile } = backends;
  const arrived = new Map<number, number>();
  const sink = createServer((request, response) => {
    const id = Number(request.url?.split('/').pop());
    request.resume().on('end', () => {
      arrived.set(id, performance.timeOrigin + performance.now());
      response.writeHead(200).end('ok');
    });
  });
  sink.listen(0, '127.0.0.1');
  await once(sink, 'listening');
  const sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}/r/`;
  const client = new ChildLink(new URL('./load-client.ts', import.meta.url));
  const processes: TargetProcess[] = [];
  const base = backends.spec;
  const start = async (spec: Omit<TargetSpec, keyof typeof base>) => {
    const app = await TargetProcess.start({ ...base, ...spec }, caFile);
    processes.push(app);
    return app;
  };
  let nextId = 0;
  try {
    const sessionKey = randomBytes(32).toString('base64');
    const storeUrl = `${redisUrl.replace(/\/$/, '')}`;
    const single = await start({ kind: 'faultline', storeUrl, sessionKey });
    const twin = await start({ kind: 'faultline', storeUrl, sessionKey });
    const bare = await start({ kind: 'bare-reply' });
    // A logged-in person and a page of active attacks, through the first replica (the session is in Redis).
    fake.setBotUrl(single.url);
    const person = await logIn(fake, sim, 'U0BENCHTHRU');
    sim.addAttacks(sim.seed.teams.platform.id, 30);
    const capture = await DeliveryCapture.start(fake, single.url);
    const [template] = await capture.take(() => person.command('list', { channel })).finally(() => capture.close());
    if (!template) throw new Error('No list command captured');
    const deliveries = (count: number): { ids: number[]; deliveries: Delivery[] } => {
      const ids = Array.from({ length: count }, () => nextId++);
      return {
        ids,
        deliveries: ids.map((id) => {
          const form = new URLSearchParams(template.body);
          form.set('response_url', `${sinkUrl}${id}`);
          return { ...template, body: form.toString() };
        }),
      };
    };
    sim.faults.inject({ kind: 'latency', ms: platformLatencyMs, times: Infinity });

    const step = async (urls: string[], rate: number) => {
      const { ids, deliveries: batch } = deliveries(rate * secondsPerRate);
      const result = await client.request<LoadResult>({
        url: urls[0]!,
        urls,
        signingSecret,
        deliveries: batch,
        shape: { concurrency: 1_000, ratePerSecond: rate },
      } satisfies LoadOrder);
      // Replies still on their way after the last command: up to the limit and a little more.
      const until = performance.now() + limitMs + 2_000;
      while (ids.some((id) => !arrived.has(id)) && performance.now() < until)
        await new Promise((resolve) => setTimeout(resolve, 50));
      const latencies = ids.map((id, i) => {
        const sent = result.timings[i]?.at;
        const came = arrived.get(id);
        return sent !== undefined && came !== undefined && result.timings[i]!.status === 200
          ? came - sent
          : Number.POSITIVE_INFINITY;
      });
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      return {
        rate,
        achieved: batch.length / result.seconds,
        p50: distribution(latencies).p50,
        p99: distribution(latencies).p99,
        missing: latencies.filter((ms) => !Number.isFinite(ms)).length,
      };
    };

    const apps: { name: string; urls: string[] }[] = [
      { name: 'bare Bolt, fixed reply', urls: [bare.url] },
      { name: 'Faultline, 1 replica (Redis)', urls: [single.url] },
      { name: 'Faultline, 2 replicas (one Redis, round robin)', urls: [single.url, twin.url] },
    ];
    const rows: string[][] = [];
    const best: Record<string, number> = {};
    for (const app of apps) {
      best[app.name] = 0;
      for (const rate of rates) {
        const figures = await step(app.urls, rate);
        const under = figures.p99 < limitMs;
        rows.push([
          app.name,
          `${rate}/s`,
          `${Math.round(figures.achieved)}/s`,
          formatMs(figures.p50),
          Number.isFinite(figures.p99) ? formatMs(figures.p99) : 'no reply',
          String(figures.missing),
          under ? 'under 1 s' : 'over',
        ]);
        if (!under) break;
        best[app.name] = rate;
      }
    }
    sim.faults.clear();
    printTable(
      `Command to reply at Slack, by rate (${secondsPerRate} s each, platform answering in ${platformLatencyMs} ms); a rate past the first one over 1 s is not tried`,
      ['app', 'rate', 'achieved', 'p50', 'p99', 'missing', 'p99 < 1 s'],
      rows,
    );
    // Under the limit at every rate tried: the replica takes at least that much.
    const highest = (name: string) => `${best[name] === rates.at(-1) ? '≥ ' : ''}${best[name]}/s`;
    printTable(
      'Highest rate with p99 under 1 s (of the rates tried)',
      ['app', 'commands/s'],
      apps.map((app) => [app.name, highest(app.name)]),
    );
    return apps.map((app) => ({
      benchmark: 'throughput',
      figure: `${app.name}: commands/s with p99 to reply < 1 s`,
      value: best[app.name] ?? 0,
      unit: '/s',
      ...(best[app.name] === rates.at(-1) ? { detail: 'or more: the highest rate tried' } : {}),
    }));
  } finally {
    sim.faults.clear();
    await client.stop('stop');
    await Promise.all(processes.map((each) => each.stop()));
    sink.closeAllConnections();
    sink.close();
    await backends.stop();
  }
}
