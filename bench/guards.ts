/**
 * Guards (product.md §10): with 100 guarded attacks under several guards, how long from a
 * monitor turning `Alert` to the halt reaching the platform (target: one poll interval plus 1 s),
 * and how the platform calls of a poll pass grow as guards grow and as attacks grow (guard reads
 * should follow the guards, never the attacks).
 *
 * The halt timing runs the bot's own guard job on its timer at BENCH_GUARD_POLL_SECONDS (default 2,
 * so the run stays short; the figure is read against it); the call counts run passes by hand.
 */
import type { Guard, GuardSpec } from '../src/guardrails/guards.ts';
import { Stack } from '../test/e2e/harness.ts';
import { countCalls, growth, type PassCalls } from './guardCalls.ts';
import { postCards, type Team } from './poll.ts';
import { formatMs, printTable, type SummaryRow } from './table.ts';

const personId = 'U0BENCHGUARD';
const attackCount = 100;
const guardCount = 5;
const trials = guardCount;
const pollSeconds = Number(process.env.BENCH_GUARD_POLL_SECONDS || 2);

/** A stack whose owner is logged in on Platform, with `guards` monitors reading OK and `attacks` live cards, each guarded by one of them in turn. */
async function guardedStack(attacks: number, guards: number, env: Record<string, string> = {}) {
  const stack = await Stack.start({ env });
  const { sim } = stack;
  const owner = sim.seed.users.owner;
  await stack.login(personId, owner, { team: sim.seed.teams.platform.name });
  const team: Team = sim.seed.teams.platform;
  const { integrationName, domain, monitors: seeded } = sim.seed.monitoring.a;
  const monitorIds = seeded.map((monitor) => monitor.id).slice(0, guards);
  for (const id of monitorIds) sim.setMonitorState(id, 'OK');
  while (monitorIds.length < guards)
    monitorIds.push(sim.addMonitor({ name: `bench monitor ${monitorIds.length + 1}` }));

  const guids = sim.addAttacks(team.id, attacks, { createUser: owner.email });
  await postCards(
    stack,
    guids.map((guid) => ({ guid, team })),
  );
  const guardOwner = { workspaceId: stack.fake.teamId, userId: personId, userName: personId };
  const covered = new Map<number, string[]>(monitorIds.map((id) => [id, []]));
  for (const [index, guid] of guids.entries()) {
    const monitorId = monitorIds[index % monitorIds.length]!;
    const spec: GuardSpec = { kind: 'a', monitorId: String(monitorId), integration: integrationName, domain };
    const guard: Guard = { spec, owner: guardOwner };
    await stack.built.services.guardrails.guards.setForAttack((await stack.built.services.attacks.cards.get(guid))!, [
      guard,
    ]);
    covered.get(monitorId)!.push(guid);
  }
  return { stack, monitorIds, covered };
}

interface CallsRow {
  axis: 'guards' | 'attacks';
  guards: number;
  attacks: number;
  calls: PassCalls;
}

/** Platform calls of one pass that changes nothing, after a first pass has brought the cards up to date. */
async function callsPerPass(attacks: number, guards: number, axis: CallsRow['axis']): Promise<CallsRow> {
  const { stack } = await guardedStack(attacks, guards);
  try {
    stack.advanceClock(10_000);
    await stack.poll();
    const mark = stack.sim.requests.length;
    await stack.poll();
    return { axis, guards, attacks, calls: countCalls(stack.sim.requests.slice(mark)) };
  } finally {
    await stack.stop();
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface HaltTiming {
  monitorId: number;
  covered: number;
  firstMs: number;
  lastMs: number;
}

/**
 * Turns each guard's monitor to Alert in turn, at a random moment of the poll interval, and
 * waits for the halts of the attacks it covers to reach the simulator; the bot polls on its own timer.
 */
async function haltTimings(): Promise<HaltTiming[]> {
  const { stack, monitorIds, covered } = await guardedStack(attackCount, guardCount, {
    POLL_SECONDS: String(pollSeconds),
  });
  const { sim } = stack;
  const intervalMs = pollSeconds * 1000;
  try {
    const timings: HaltTiming[] = [];
    for (const monitorId of monitorIds.slice(0, trials)) {
      const guids = new Set(covered.get(monitorId)!);
      await sleep(Math.random() * intervalMs);
      const mark = sim.requests.length;
      const turnedAt = sim.clock.now();
      sim.setMonitorState(monitorId, 'Alert');
      const deadline = performance.now() + 5 * intervalMs + 10_000;
      let halts: number[] = [];
      while (performance.now() < deadline) {
        halts = sim.requests
          .slice(mark)
          .filter(
            (request) =>
              request.method === 'POST' &&
              guids.has(request.path.split('/')[2] ?? '') &&
              request.path.endsWith('/halt'),
          )
          .map((request) => request.at);
        if (halts.length >= guids.size) break;
        await sleep(10);
      }
      if (halts.length < guids.size)
        throw new Error(
          `only ${halts.length} of the ${guids.size} attacks guarded by monitor ${monitorId} were halted`,
        );
      timings.push({
        monitorId,
        covered: guids.size,
        firstMs: Math.min(...halts) - turnedAt,
        lastMs: Math.max(...halts) - turnedAt,
      });
    }
    return timings;
  } finally {
    await stack.stop();
  }
}

export async function guardsBenchmark(): Promise<SummaryRow[]> {
  if (!Number.isInteger(pollSeconds) || pollSeconds < 1)
    throw new Error('BENCH_GUARD_POLL_SECONDS must be a whole number of seconds, at least 1');
  const timings = await haltTimings();
  const targetMs = pollSeconds * 1000 + 1000;
  printTable(
    `Halt after a monitor turns Alert · ${attackCount} attacks under ${guardCount} guards · POLL_SECONDS=${pollSeconds} (target ≤ ${formatMs(targetMs)})`,
    ['monitor', 'attacks it guards', 'to first halt', 'to last halt', 'within target'],
    timings.map((t) => [
      String(t.monitorId),
      String(t.covered),
      formatMs(t.firstMs),
      formatMs(t.lastMs),
      t.lastMs <= targetMs ? 'yes' : 'NO',
    ]),
  );

  const rows: CallsRow[] = [];
  for (const guards of [1, 5, 20]) rows.push(await callsPerPass(attackCount, guards, 'guards'));
  for (const attacks of [10, 100, 1000]) rows.push(await callsPerPass(attacks, guardCount, 'attacks'));
  printTable(
    'Platform calls per poll pass (nothing changed) · one team',
    ['growing', 'guards', 'attacks', 'guard reads', 'list pages', 'single GETs', 'halts', 'other', 'total'],
    rows.map((row) => [
      row.axis,
      String(row.guards),
      String(row.attacks),
      String(row.calls.guardReads),
      String(row.calls.listPages),
      String(row.calls.singleGets),
      String(row.calls.halts),
      String(row.calls.other),
      String(row.calls.total),
    ]),
  );
  const byGuards = rows.filter((row) => row.axis === 'guards');
  const byAttacks = rows.filter((row) => row.axis === 'attacks');
  const withGuards = growth(byGuards.map((row) => ({ size: row.guards, calls: row.calls.guardReads })));
  const withAttacks = growth(byAttacks.map((row) => ({ size: row.attacks, calls: row.calls.guardReads })));
  console.log(
    `Guard reads grow as guards^${withGuards.toFixed(2)} and as attacks^${withAttacks.toFixed(2)} (1 = in step, 0 = flat).`,
  );

  const worstFirst = Math.max(...timings.map((t) => t.firstMs));
  const worstLast = Math.max(...timings.map((t) => t.lastMs));
  const fewestAttacksCalls = byAttacks[0]?.calls.total ?? Number.NaN;
  return [
    {
      benchmark: 'guards',
      figure: `Alert → first halt at the platform, worst of ${timings.length} (POLL_SECONDS=${pollSeconds})`,
      value: worstFirst,
      unit: 'ms',
      target: `≤ ${formatMs(targetMs)}`,
      met: worstFirst <= targetMs,
    },
    {
      benchmark: 'guards',
      figure: `Alert → last of ${timings[0]?.covered ?? 0} halts, worst of ${timings.length}`,
      value: worstLast,
      unit: 'ms',
      target: `≤ ${formatMs(targetMs)}`,
      met: worstLast <= targetMs,
    },
    ...[...byGuards, ...byAttacks].map((row) => ({
      benchmark: 'guards',
      figure: `guard reads per pass, ${row.guards} guards, ${row.attacks} attacks`,
      value: row.calls.guardReads,
      unit: 'calls',
      target: `${row.guards} (one per guard)`,
      met: row.calls.guardReads === row.guards,
    })),
    ...byAttacks.map((row) => ({
      benchmark: 'guards',
      figure: `platform calls per pass, ${row.guards} guards, ${row.attacks} attacks`,
      value: row.calls.total,
      unit: 'calls',
      target: `${fewestAttacksCalls} (flat as attacks grow)`,
      met: row.calls.total === fewestAttacksCalls,
    })),
  ];
}
