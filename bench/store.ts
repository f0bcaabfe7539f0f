/**
 * The store under many cards: a poll pass and an App Home open with up to 10,000 live and
 * 100,000 finished cards stored, on SQLite and on Redis. Listing the live cards (every poll) and
 * the running game days (every App Home open) should cost what they return: the time may grow
 * with live cards, at most linearly, and not with finished ones.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@redis/client';
import type { CardRecord } from '../src/attacks/cards.ts';
import { createKeyValueStore } from '../src/store/keyValue.ts';
import { Stack } from '../test/e2e/harness.ts';
import { hasRedisServer, RedisServer } from '../test/support/redisServer.ts';
import { ownerWithTeams, startAttacks, type Team } from './poll.ts';
import { median } from './stats.ts';
import { formatMs, formatRatio, printTable, type SummaryRow } from './table.ts';
import { startedCard } from '../test/support/cards.ts';

const teamCount = 10;
const channel = 'C0GENERAL';
const personId = 'U0BENCHPOLL';
const runs = 5;
/** Cards written at once: enough to keep Redis busy without a flood of promises. */
const batch = 500;
/** Ten times the finished cards: a time that less than doubles does not grow with them. */
const flatRatio = 2;

interface Stage {
  live: number;
  finished: number;
  /** CardStore.liveByTeam alone: the store's share of a poll pass. */
  liveScanMs: number;
  pollMs: number;
  homeMs: number;
}

function cardRecord(stack: Stack, guid: string, team: Team, ts: string, lifecycle: string): CardRecord {
  return startedCard({
    guid,
    teamId: team.id,
    teamName: team.name,
    channel,
    ts,
    startedBy: { workspaceId: stack.fake.teamId, userId: personId, userName: personId },
    startedByPlatform: stack.sim.seed.users.owner.email,
    stage: lifecycle === 'Complete' ? 'Successful' : 'Pending',
    lifecycle,
  });
}

async function inBatches<T>(items: T[], work: (item: T) => Promise<unknown>): Promise<void> {
  for (let start = 0; start < items.length; start += batch)
    await Promise.all(items.slice(start, start + batch).map(work));
}

/** Live cards for attacks the simulator runs: posted in the channel and saved, as a start does. */
async function addLive(stack: Stack, teams: Team[], perTeam: number): Promise<void> {
  await inBatches(startAttacks(stack, teams, perTeam), async ({ guid, team }) => {
    const posted = await stack.built.services.slack.post(channel, { text: `card ${guid}` });
    await stack.built.services.attacks.cards.savePosted(cardRecord(stack, guid, team, posted.ts, 'Active'));
  });
  // Past the simulator's start-up stages, then one pass that brings every new card up to date.
  stack.advanceClock(10_000);
  await stack.poll();
}

/** Finished cards, as they stay in the store for a month after their attack ended. */
async function addFinished(stack: Stack, teams: Team[], count: number): Promise<void> {
  const guids = Array.from({ length: count }, () => randomUUID());
  await inBatches(guids, (guid) =>
    stack.built.services.attacks.cards.savePosted(
      cardRecord(stack, guid, teams[0]!, `1700000000.${guid.slice(0, 6)}`, 'Complete'),
    ),
  );
}

async function medianMs(work: () => Promise<unknown>): Promise<number> {
  await work();
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    await work();
    times.push(performance.now() - started);
  }
  return median(times);
}

async function measure(stack: Stack, live: number, finished: number): Promise<Stage> {
  const liveScanMs = await medianMs(() => stack.built.services.attacks.cards.liveByTeam());
  const pollMs = await medianMs(async () => {
    const report = await stack.poll();
    if (report.cards !== live) throw new Error(`The poll pass saw ${report.cards} live cards, not ${live}`);
  });
  const homeMs = await medianMs(() => stack.openHome(personId));
  return { live, finished, liveScanMs, pollMs, homeMs };
}

/** 1,000 live with 10,000 then 100,000 finished, then 10,000 live: each growth on its own. */
async function stagesOn(storeUrl: string, storeNamespace: string): Promise<{ stages: Stage[]; fillMs: number }> {
  const stack = await Stack.start({ storeUrl, storeNamespace });
  let fillMs = 0;
  const fill = async (work: () => Promise<void>) => {
    const started = performance.now();
    await work();
    fillMs += performance.now() - started;
  };
  try {
    const teams = await ownerWithTeams(stack, teamCount);
    await stack.ask(personId, 'gameday start Store bench', { channel });
    await fill(() => addLive(stack, teams, 100));
    await fill(() => addFinished(stack, teams, 10_000));
    const stages = [await measure(stack, 1_000, 10_000)];
    await fill(() => addFinished(stack, teams, 90_000));
    stages.push(await measure(stack, 1_000, 100_000));
    await fill(() => addLive(stack, teams, 900));
    stages.push(await measure(stack, 10_000, 100_000));
    return { stages, fillMs };
  } finally {
    await stack.stop();
  }
}

/** REDIS_URL, else a local Redis on the default port, else a redis-server of the bench's own. */
async function redisForBench(): Promise<{ url: string; done: () => Promise<void> } | undefined> {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const probe = createKeyValueStore(url, `faultline-bench-probe-${randomUUID()}`);
  const reachable = await probe.ping();
  await probe.close();
  if (reachable) return { url, done: async () => undefined };
  if (!hasRedisServer) return undefined;
  const server = await RedisServer.start();
  return { url: server.url, done: () => server.remove() };
}

async function dropNamespace(url: string, namespace: string): Promise<void> {
  const client = createClient({ url });
  await client.connect();
  try {
    for await (const keys of client.scanIterator({ MATCH: `${namespace}*`, COUNT: 1_000 }))
      if (keys.length) await client.unlink(keys);
  } finally {
    await client.close();
  }
}

export async function storeBenchmark(): Promise<SummaryRow[]> {
  const results: { kind: string; stages: Stage[]; fillMs: number }[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'faultline-bench-store-'));
  try {
    results.push({ kind: 'SQLite', ...(await stagesOn(`sqlite://${join(dir, 'bench.db')}`, 'faultline')) });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const redis = await redisForBench();
  if (redis) {
    const namespace = `faultline-bench-${randomUUID()}`;
    try {
      results.push({ kind: 'Redis', ...(await stagesOn(redis.url, namespace)) });
    } finally {
      await dropNamespace(redis.url, namespace);
      await redis.done();
    }
  } else {
    console.log('Redis: skipped (no Redis at REDIS_URL or 127.0.0.1:6379, and no redis-server to start)');
  }

  const rows: SummaryRow[] = [];
  for (const { kind, stages, fillMs } of results) {
    printTable(
      `${kind} store · ${teamCount} teams · median of ${runs} · filled in ${formatMs(fillMs)}`,
      ['live cards', 'finished cards', 'live-card listing', 'poll pass', 'App Home open'],
      stages.map((s) => [
        s.live.toLocaleString('en'),
        s.finished.toLocaleString('en'),
        formatMs(s.liveScanMs),
        formatMs(s.pollMs),
        formatMs(s.homeMs),
      ]),
    );
    const [few, manyFinished, manyLive] = stages as [Stage, Stage, Stage];
    console.log(
      `${kind}: 10× finished cards (1,000 live): poll ${formatRatio(manyFinished.pollMs / few.pollMs)}, App Home ${formatRatio(manyFinished.homeMs / few.homeMs)}, listing ${formatRatio(manyFinished.liveScanMs / few.liveScanMs)}; ` +
        `10× live cards: poll ${formatRatio(manyLive.pollMs / manyFinished.pollMs)}, listing ${formatRatio(manyLive.liveScanMs / manyFinished.liveScanMs)}.`,
    );
    rows.push(
      {
        benchmark: 'store',
        figure: `${kind}: poll pass, 10k live + 100k finished`,
        value: manyLive.pollMs,
        unit: 'ms',
      },
      {
        benchmark: 'store',
        figure: `${kind}: App Home, 10k live + 100k finished`,
        value: manyLive.homeMs,
        unit: 'ms',
      },
      {
        benchmark: 'store',
        figure: `${kind}: poll pass growth, 10k → 100k finished`,
        value: manyFinished.pollMs / few.pollMs,
        unit: '×',
        target: `≤ ${flatRatio}× (flat)`,
        met: manyFinished.pollMs / few.pollMs <= flatRatio,
      },
      {
        benchmark: 'store',
        figure: `${kind}: App Home growth, 10k → 100k finished`,
        value: manyFinished.homeMs / few.homeMs,
        unit: '×',
        target: `≤ ${flatRatio}× (flat)`,
        met: manyFinished.homeMs / few.homeMs <= flatRatio,
      },
      {
        benchmark: 'store',
        figure: `${kind}: poll pass growth, 1k → 10k live`,
        value: manyLive.pollMs / manyFinished.pollMs,
        unit: '×',
        target: '≤ 10× (linear)',
        met: manyLive.pollMs / manyFinished.pollMs <= 10,
      },
    );
  }
  return rows;
}
