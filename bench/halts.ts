/**
 * Verified halts (product.md §11): platform calls per pass with 1,000 live cards in 10 teams,
 * against the same 1,000 live cards with a game day running in their channel and attacks halted
 * through Faultline's one halt, whose halts are being verified. Both stacks halt the same number
 * of attacks, so the card refresh does the same work in each (the halted ones leave the active
 * list); the difference per pass should be one executions read per halt not yet verified, and
 * nothing else. A few halted attacks have a target that ignores halts, so their reads go on past
 * the minute, when they are shown with Halt again.
 */
import { halt } from '../src/attacks/halt.ts';
import type { Who } from '../src/attacks/events.ts';
import { keys } from '../src/store/keys.ts';
import { Stack } from '../test/e2e/harness.ts';
import { countCalls, type PassCalls } from './guardCalls.ts';
import { ownerWithTeams, postCards, startAttacks } from './poll.ts';
import { printTable, type SummaryRow } from './table.ts';

const teamCount = 10;
const cardsPerTeam = 100;
const haltedCount = 20;
/** Of the halted attacks, those with a target that keeps running. */
const stuckCount = 5;
const channel = 'C0GENERAL';
const personId = 'U0BENCHPOLL';

/** The moments measured, on the clock after the halts: each a pass of every background job. */
const moments = [
  { label: 'just after the halts', advanceMs: 1_000 },
  { label: 'targets stopped (5 s)', advanceMs: 5_000 },
  { label: 'nothing changed', advanceMs: 1_000 },
  { label: 'a minute on: stuck ones shown', advanceMs: 60_000 },
  { label: 'nothing changed', advanceMs: 1_000 },
] as const;

interface Run {
  passes: PassCalls[];
  /** Halts still being verified before each pass. */
  unverified: number[];
  stuckShown: number;
}

/**
 * One stack: 1,000 live cards, then `haltedCount` attacks halted, through the one halt (and so
 * verified) with a game day running when `verified`, else straight on the platform as something
 * outside Faultline would; then the passes.
 */
async function run(verified: boolean): Promise<Run> {
  const stack = await Stack.start();
  try {
    const teams = await ownerWithTeams(stack, teamCount);
    const person: Who = { workspaceId: stack.fake.teamId, userId: personId, userName: personId };
    if (verified) {
      const started = await stack.deps.gameDays.start(channel, 'Bench game day', personId, teams[0]!);
      if (started.outcome !== 'started') throw new Error(`the game day did not start: ${started.outcome}`);
    }
    const attacks = startAttacks(stack, teams, cardsPerTeam);
    await postCards(stack, attacks);
    // Past the start-up stages, and a first pass brings every card to Running.
    stack.advanceClock(10_000);
    await stack.poll();

    const login = (await stack.deps.sessions.get(person))!;
    const halted = attacks.filter((_, index) => index % (attacks.length / haltedCount) === 0).slice(0, haltedCount);
    for (const [index, { guid, team }] of halted.entries()) {
      const attack = stack.sim.state.attacks.get(guid)!;
      if (index < stuckCount) stack.sim.ignoreHalts(attack.targets[0]!);
      const api = stack.deps.platform.as({ header: login.session.header, teamId: team.id });
      if (verified)
        await halt(
          stack.deps,
          api,
          { guid, kind: 'attack', teamId: team.id },
          { by: person, platformUser: login.session.identifier, cause: 'person', reason: 'bench' },
        );
      else await api.attacks.halt(guid);
      if (index < stuckCount) stack.sim.ignoreHalts(attack.targets[0]!, false);
    }

    const result: Run = { passes: [], unverified: [], stuckShown: 0 };
    for (const moment of moments) {
      stack.advanceClock(moment.advanceMs);
      let pending = 0;
      for await (const _ of stack.deps.store.entries(keys.haltCheck.prefix)) pending++;
      result.unverified.push(pending);
      const mark = stack.sim.requests.length;
      await stack.poll();
      result.passes.push(countCalls(stack.sim.requests.slice(mark)));
    }
    for (const { guid } of halted) if ((await stack.deps.cards.get(guid))?.haltCheck?.stuck) result.stuckShown++;
    return result;
  } finally {
    await stack.stop();
  }
}

export async function haltsBenchmark(): Promise<SummaryRow[]> {
  const alone = await run(false);
  const withChecks = await run(true);
  const rows = moments.map((moment, index) => {
    const a = alone.passes[index]!;
    const b = withChecks.passes[index]!;
    return { moment: moment.label, a, b, unverified: withChecks.unverified[index]! };
  });
  printTable(
    `Platform calls per pass · ${teamCount * cardsPerTeam} live cards in ${teamCount} teams, ${haltedCount} halted (${stuckCount} with a target that runs on) · alone, then with a game day and the halts verified`,
    [
      'pass',
      'alone: total',
      'with: list pages',
      'single GETs',
      'executions reads',
      'other',
      'total',
      'halts unverified',
      'extra calls',
    ],
    rows.map(({ moment, a, b, unverified }) => [
      moment,
      String(a.total),
      String(b.listPages),
      String(b.singleGets),
      String(b.executionReads),
      String(b.other),
      String(b.total),
      String(unverified),
      String(b.total - a.total),
    ]),
  );
  const extraBeyondReads = rows.map(({ a, b }) => b.total - b.executionReads - a.total);
  const readsOverUnverified = rows.map(({ b, unverified }) => b.executionReads - unverified);
  return [
    {
      benchmark: 'halts',
      figure: `calls per pass beyond ${teamCount * cardsPerTeam} live cards alone, executions reads aside, most`,
      value: Math.max(...extraBeyondReads),
      unit: 'calls',
      target: '0',
      met: extraBeyondReads.every((extra) => extra === 0),
    },
    {
      benchmark: 'halts',
      figure: 'executions reads per pass beyond one per halt being verified, most',
      value: Math.max(...readsOverUnverified),
      unit: 'calls',
      target: '0',
      met: readsOverUnverified.every((extra) => extra === 0),
      detail: `reads per pass ${rows.map((row) => row.b.executionReads).join(', ')}`,
    },
    {
      benchmark: 'halts',
      figure: 'halted attacks shown with Halt again a minute on',
      value: withChecks.stuckShown,
      unit: '',
      target: String(stuckCount),
      met: withChecks.stuckShown === stuckCount,
    },
  ];
}
