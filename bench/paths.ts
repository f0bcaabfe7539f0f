/**
 * How many of Faultline's own files a flow runs: what a person has to read to follow it. V8's
 * precise coverage is taken around the flow alone (the bot already warm), and a file counts when
 * any of its functions ran. The logger, the metrics, the error classes and the store engine are
 * left out: they serve every flow alike.
 */
import { Session } from 'node:inspector/promises';
import { Stack } from '../test/e2e/harness.ts';
import { printTable, type SummaryRow } from './table.ts';

const channel = 'C0GENERAL';
const personId = 'U0PATHS01';
const src = new URL('../src/', import.meta.url).href;
/** Shared by every flow: not what a person reads to follow one. */
const leftOut = new Set([
  'logger.ts',
  'metrics.ts',
  'errors.ts',
  'client/errors.ts',
  'store/keyValue.ts',
  'store/sqliteStore.ts',
  'store/redisStore.ts',
  'store/memoryStore.ts',
]);

/** The files under src/ whose code ran while `flow` did. */
async function filesRun(flow: () => Promise<void>): Promise<string[]> {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
    // Taking the coverage resets its counts: what comes after is the flow's alone.
    await session.post('Profiler.takePreciseCoverage');
    await flow();
    const { result } = await session.post('Profiler.takePreciseCoverage');
    await session.post('Profiler.stopPreciseCoverage');
    return result
      .filter((script) => script.url.startsWith(src) && script.functions.some((f) => (f.ranges[0]?.count ?? 0) > 0))
      .map((script) => script.url.slice(src.length))
      .filter((file) => !leftOut.has(file))
      .sort();
  } finally {
    session.disconnect();
  }
}

export async function pathsBenchmark(): Promise<SummaryRow[]> {
  const stack = await Stack.start();
  try {
    await stack.login(personId, stack.sim.seed.users.owner, { team: 'Platform' });
    const person = stack.person(personId);
    const cardOf = (guid: string) =>
      stack.fake.waitFor(
        () =>
          person
            .channel(channel)
            .messages()
            .find((m) => m.text().includes(guid)),
        'the attack card',
      );
    const latest = () => [...stack.sim.state.attacks.values()].at(-1)!;
    const startCommand = 'attack cpu -l 300 --target-tags role=web --yes';
    // Once before measuring, so that first-time work (catalogues, caches) is not counted.
    await stack.ask(personId, startCommand, { channel });
    await cardOf(latest().guid);

    const before = latest().guid;
    const start = await filesRun(async () => {
      await stack.ask(personId, startCommand, { channel });
      await stack.fake.waitFor(() => latest().guid !== before && latest(), 'the new attack');
      await cardOf(latest().guid);
    });

    const attack = latest();
    const card = await cardOf(attack.guid);
    const halt = await filesRun(async () => {
      await card.click('Halt');
      await stack.fake.waitFor(() => stack.sim.state.attacks.get(attack.guid)?.halt, 'the halt');
      await stack.fake.waitFor(
        () =>
          person
            .channel(channel)
            .messages()
            .find(
              (m) => m.ts === card.ts && Stack.read(m).includes('alt') && !m.buttons().some((b) => b.text === 'Halt'),
            ),
        'the halted card',
      );
    });

    const flows = [
      { figure: 'files run by a Halt click', files: halt, target: 12 },
      { figure: 'files run by /chaos attack … --yes', files: start, target: 20 },
    ];
    for (const { figure, files } of flows)
      printTable(
        `${figure}: ${files.length}`,
        ['file'],
        files.map((f) => [f]),
      );
    return flows.map(({ figure, files, target }) => ({
      benchmark: 'paths',
      figure,
      value: files.length,
      unit: '',
      target: `≤ ${target}`,
      met: files.length <= target,
    }));
  } finally {
    await stack.stop();
  }
}
