/**
 * Memory with 1,000 live cards through a few poll passes. The stack shares one process (bot,
 * simulator, fake Slack), so each step is measured after a full collection and shown as the
 * growth it caused: the simulator's attacks, then the fake Slack's messages with the bot's cards,
 * then what polling adds. A pass that keeps adding heap would show as growth on unchanged passes.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Stack } from '../test/e2e/harness.ts';
import { ownerWithTeams, postCards, startAttacks } from './poll.ts';
import { formatBytes, printTable, type SummaryRow } from './table.ts';

const teamCount = 10;
const cardsPerTeam = 100;
const unchangedPasses = 3;
/** Heap that moves less than this over unchanged passes is noise, not growth. */
const flatWithinBytes = 1024 ** 2;
const mib = (bytes: number) => bytes / 1024 ** 2;

/** A full garbage collection, so that heap figures are what is still referenced. */
function collectGarbage(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

export async function memoryBenchmark(): Promise<SummaryRow[]> {
  const gc = collectGarbage();
  const stack = await Stack.start();
  try {
    const steps: { step: string; heap: number; rss: number }[] = [];
    const measure = (step: string) => {
      // The harness keeps every log line for its tests; that is not the bot's memory.
      stack.logs.length = 0;
      gc();
      steps.push({ step, heap: process.memoryUsage().heapUsed, rss: process.memoryUsage.rss() });
    };

    const teams = await ownerWithTeams(stack, teamCount);
    measure('stack started, owner logged in');
    const attacks = startAttacks(stack, teams, cardsPerTeam);
    measure(`${attacks.length} attacks in the simulator`);
    await postCards(stack, attacks);
    measure(`${attacks.length} cards posted (fake Slack) and saved (bot)`);
    stack.advanceClock(10_000);
    await stack.poll();
    measure('poll pass 1: every card updated');
    for (let pass = 2; pass <= unchangedPasses + 1; pass++) {
      await stack.poll();
      measure(`poll pass ${pass}: nothing changed`);
    }

    let cardBytes = 0;
    for (const { guid } of attacks)
      cardBytes += JSON.stringify(await stack.built.services.attacks.cards.get(guid)).length;

    printTable(
      `Memory of the whole stack (bot, simulator, fake Slack in one process) after a full GC · ${teams.length} teams`,
      ['step', 'heap used', 'growth', 'RSS'],
      steps.map((entry, index) => [
        entry.step,
        formatBytes(entry.heap),
        index ? signed(entry.heap - steps[index - 1]!.heap) : '',
        formatBytes(entry.rss),
      ]),
    );
    console.log(
      `The bot's ${attacks.length} card records are ${formatBytes(cardBytes)} as JSON (${formatBytes(cardBytes / attacks.length)} each).`,
    );

    const afterCards = steps[2]!;
    const afterFirstPass = steps[3]!;
    const last = steps.at(-1)!;
    const unchangedGrowth = last.heap - afterFirstPass.heap;
    return [
      {
        benchmark: 'memory',
        figure: `heap growth: ${attacks.length} cards posted and saved`,
        value: mib(afterCards.heap - steps[1]!.heap),
        unit: 'MiB',
      },
      {
        benchmark: 'memory',
        figure: 'heap growth: first poll pass',
        value: mib(afterFirstPass.heap - afterCards.heap),
        unit: 'MiB',
      },
      {
        benchmark: 'memory',
        figure: `heap growth over ${unchangedPasses} unchanged passes`,
        value: mib(unchangedGrowth),
        unit: 'MiB',
        target: `≈ 0 (within ±${mib(flatWithinBytes)} MiB)`,
        met: Math.abs(unchangedGrowth) <= flatWithinBytes,
      },
      { benchmark: 'memory', figure: 'whole-stack heap at the end', value: mib(last.heap), unit: 'MiB' },
      { benchmark: 'memory', figure: 'whole-stack RSS at the end', value: mib(last.rss), unit: 'MiB' },
    ];
  } finally {
    await stack.stop();
  }
}

function signed(bytes: number): string {
  return `${bytes < 0 ? '−' : '+'}${formatBytes(Math.abs(bytes))}`;
}
