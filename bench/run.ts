/**
 * Faultline's benchmarks (product.md §9). They print figures and never fail on a timing; the run
 * fails only when a benchmark cannot be carried out.
 *
 *   node bench/run.ts                        every benchmark, then a summary
 *   node bench/run.ts ack list               only those
 *   node bench/run.ts --json out.json ack    the summary also as JSON records (bench/summary.ts)
 */
import { cpus, platform, arch } from 'node:os';
import { parseArgs } from 'node:util';
import { ackBenchmark } from './ack.ts';
import { cardsBenchmark } from './cards.ts';
import { guardsBenchmark } from './guards.ts';
import { haltsBenchmark } from './halts.ts';
import { listBenchmark } from './list.ts';
import { pathsBenchmark } from './paths.ts';
import { memoryBenchmark } from './memory.ts';
import { pollBenchmark } from './poll.ts';
import { profileBenchmark } from './profile.ts';
import { storeBenchmark } from './store.ts';
import { throughputBenchmark } from './throughput.ts';
import { printSummary, writeSummaryJson } from './summary.ts';
import { printTable, type SummaryRow } from './table.ts';

// Memory first: it reads the process's resident size, which earlier benchmarks would leave raised.
const benchmarks: Record<string, { about: string; run: () => Promise<SummaryRow[]> }> = {
  memory: { about: 'memory with 1,000 live cards through a few poll passes', run: memoryBenchmark },
  poll: { about: 'platform calls and chat.update per poll pass with 1,000 live cards in 10 teams', run: pollBenchmark },
  list: { about: '`list` over 10,000 active attacks, against reading them all', run: listBenchmark },
  store: {
    about: 'a poll pass and an App Home open with 10,000 live and 100,000 finished cards, on SQLite and Redis',
    run: storeBenchmark,
  },
  ack: {
    about:
      'ack time of commands, buttons and modal submissions against a bare Bolt app, with a slow and a hanging platform',
    run: ackBenchmark,
  },
  throughput: {
    about:
      'slash commands per second with p99 command-to-reply under 1 s, platform at 50 ms: Faultline, bare Bolt, two replicas on one Redis',
    run: throughputBenchmark,
  },
  cards: {
    about:
      "time until 1,000 changing cards, 50 of them finished, show it under chat.update's 50 a minute: priority against arrival order",
    run: cardsBenchmark,
  },
  guards: {
    about:
      'from a monitor turning Alert to the halt with 100 guarded attacks, and platform calls per pass as guards and attacks grow',
    run: guardsBenchmark,
  },
  halts: {
    about:
      'platform calls per pass with 1,000 live cards, alone and with a 20-step game day and 20 halts being verified (5 with a target that runs on)',
    run: haltsBenchmark,
  },
  paths: {
    about:
      "how many of Faultline's files a Halt click and `/chaos attack … --yes` run (V8 coverage), against the layout's targets",
    run: pathsBenchmark,
  },
  profile: {
    about:
      'CPU per request by phase (signature, session, parsing, platform, Block Kit, Slack reply, logging, metrics) from a CPU profile, against a bare Bolt app',
    run: profileBenchmark,
  },
};

const { values: options, positionals: asked } = parseArgs({
  options: { json: { type: 'string' } },
  allowPositionals: true,
});
const unknown = asked.filter((name) => !(name in benchmarks));
if (unknown.length) {
  console.error(`No benchmark ${unknown.join(', ')}. Benchmarks:`);
  for (const [name, { about }] of Object.entries(benchmarks)) console.error(`  ${name.padEnd(7)} ${about}`);
  process.exit(2);
}

const cpu = cpus();
console.log(
  `Faultline benchmarks · node ${process.version} · ${platform()}/${arch()} · ${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}`,
);

const summary: SummaryRow[] = [];
const durations: string[][] = [];
for (const name of asked.length ? asked : Object.keys(benchmarks)) {
  const started = performance.now();
  console.log(`\n=== ${name}: ${benchmarks[name]!.about}`);
  try {
    summary.push(...(await benchmarks[name]!.run()));
    durations.push([name, `${((performance.now() - started) / 1000).toFixed(1)} s`, 'done']);
  } catch (error) {
    process.exitCode = 1;
    console.error(`${name} could not be carried out:`, error);
    durations.push([name, `${((performance.now() - started) / 1000).toFixed(1)} s`, 'FAILED']);
  }
}

printSummary(summary);
if (options.json) {
  await writeSummaryJson(options.json, summary);
  console.log(`\nThe summary's ${summary.length} figures are in ${options.json}.`);
}
printTable('Benchmarks run', ['benchmark', 'took', 'outcome'], durations);
