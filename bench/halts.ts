/**
 * Verified halts and planned game days (product.md §11): platform calls per pass with 1,000 live
 * cards in 10 teams, against the same 1,000 live cards with a game day running in their channel,
 * its plan of 20 steps (some ended with their hypotheses answered, one counting down, some
 * running one of the live attacks, the rest planned, several with guards of their own, in
 * automatic mode), and attacks halted through Faultline's one halt, whose halts are being
 * verified. Both stacks halt the same number of attacks, so the card refresh does the same work
 * in each (the halted ones leave the active list); the difference per pass should be one
 * executions read per halt not yet verified, and nothing else: the plan costs no platform call.
 * A few halted attacks have a target that ignores halts, so their reads go on past the minute,
 * when they are shown with Halt again. Every other halt ends with its receipt (each target's
 * stop time, from the same executions reads): the receipts cost no platform call of their own.
 */
import { halt } from '../src/attacks/halt.ts';
import type { HaltReceipt } from '../src/attacks/haltChecks.ts';
import type { Who } from '../src/attacks/events.ts';
import type { AttackRequest } from '../src/attacks/request.ts';
import type { GameDayRecord } from '../src/gamedays/gamedayRecord.ts';
import type { HypothesisAnswer, StepRef, StepState } from '../src/gamedays/plan.ts';
import { stepRequest } from '../src/gamedays/planChanges.ts';
import type { GuardSpec } from '../src/guardrails/guards.ts';
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

/**
 * The game day's plan, in order: steps whose attacks have ended and whose hypotheses were
 * answered, one counting down (delayed past the passes measured, so it does not start during
 * them), steps running live attacks (a plan runs one at a time; more here give the pass more to
 * look at), one of which is halted with the others, and steps still planned.
 */
const plan = { ended: 5, countingDown: 1, running: 4, planned: 10 } as const;
const stepCount = plan.ended + plan.countingDown + plan.running + plan.planned;
const answers: HypothesisAnswer[] = ['held', 'not held', 'unsure'];

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
  /** Verified halts kept with a receipt naming every target's stop. */
  receipts: number;
  /** The plan's steps by state, before the passes measured and after them. */
  planBefore?: string;
  planAfter?: string;
}

type Day = GameDayRecord & { id: string };

/**
 * A step's attack linked to it, as a step's start does: the step runs first (its countdown
 * reached zero), then takes the attack it created.
 */
async function linkStep(stack: Stack, ref: StepRef, guid: string): Promise<void> {
  const days = stack.built.services.gamedays.days;
  await days.plans.change({ gameDayId: ref.gameDayId }, (plan) => {
    const step = plan.steps.find((s) => s.id === ref.stepId);
    if (step) step.state = 'running';
  });
  await days.stepStarted(ref, guid);
}

/** Each step's attack: five minutes of CPU on the web hosts. */
const stepAttack: AttackRequest = {
  type: 'cpu',
  args: ['-l', '300'],
  target: { kind: 'tags', tags: { role: 'web' } },
  team: undefined,
  yes: false,
  lengthSeconds: 300,
};

/** The plan's steps by state, and how many were answered. */
async function stepStates(stack: Stack, day: Day): Promise<{ shown: string; count: (state: StepState) => number }> {
  const { steps } = await stack.built.services.gamedays.days.plans.get({ gameDayId: day.id });
  const counts = new Map<StepState, number>();
  for (const step of steps) counts.set(step.state, (counts.get(step.state) ?? 0) + 1);
  const answered = steps.filter((step) => step.answer).length;
  return {
    shown: `${steps.length} steps: ${[...counts].map(([state, count]) => `${count} ${state}`).join(', ')}; ${answered} answered`,
    count: (state) => counts.get(state) ?? 0,
  };
}

/**
 * Plans `stepCount` steps for the game day (every third with a guard of its own) and starts the
 * ones to end: short attacks of their own, with cards, which end in the first pass.
 */
async function planGameDay(stack: Stack, day: Day, person: Who, team: { id: string; name: string }): Promise<void> {
  const { sim } = stack;
  const { gamedays } = stack.built.services;
  const monitor = sim.seed.monitoring.a;
  const guard: GuardSpec = {
    kind: 'a',
    monitorId: String(monitor.monitors[0]!.id),
    integration: monitor.integrationName,
    domain: monitor.domain,
  };
  const owner = { gameDayId: day.id };
  for (let index = 0; index < stepCount; index++)
    await gamedays.addStep(
      owner,
      {
        source: { kind: 'typed' },
        request: stepRequest(stepAttack, index % 3 === 0 ? [guard] : []),
        teamId: team.id,
        teamName: team.name,
        hypothesis: `checkout stays under ${500 + index * 10} ms p99 (step ${index + 1})`,
        addedBy: person.userId,
        guards: index % 3 === 0 ? [guard] : undefined,
      },
      person,
    );
  const steps = (await gamedays.days.plans.get(owner)).steps;
  const ref = (index: number) => ({ channel: day.channel, gameDayId: day.id, stepId: steps[index]!.id });

  // The ended steps: short attacks of their own that end before the passes measured.
  const short = sim.addAttacks(team.id, plan.ended, { lengthSeconds: 1, createUser: sim.seed.users.owner.email });
  await postCards(
    stack,
    short.map((guid) => ({ guid, team })),
  );
  for (const [index, guid] of short.entries()) await linkStep(stack, ref(index), guid);
}

/**
 * Answers the ended steps, counts the next one down (delayed past the passes), links the running
 * ones to the live attacks `running`, and turns the automatic mode on.
 */
async function carryOnPlan(stack: Stack, day: Day, person: Who, running: string[]): Promise<void> {
  const { gamedays } = stack.built.services;
  const actor = { ...person, channelId: day.channel };
  const owner = { gameDayId: day.id };
  const steps = (await gamedays.days.plans.get(owner)).steps;
  const ref = (index: number) => ({ channel: day.channel, gameDayId: day.id, stepId: steps[index]!.id });
  for (let index = 0; index < plan.ended; index++) {
    const answered = await gamedays.answer(actor, ref(index), answers[index % answers.length]!, 'p99 peaked at 310 ms');
    if (answered.kind !== 'done') throw new Error(`step ${index + 1} could not be answered: ${answered.kind}`);
  }
  const counting = await gamedays.countDown(day, person, steps[plan.ended]!.id);
  if (counting.kind !== 'counting down') throw new Error(`step ${plan.ended + 1} did not count down: ${counting.kind}`);
  await gamedays.countdown(actor, ref(plan.ended), 'delay');
  for (const [offset, guid] of running.entries())
    await linkStep(stack, ref(plan.ended + plan.countingDown + offset), guid);
  await gamedays.setAutomatic(day, person, true);
}

/**
 * One stack: 1,000 live cards, then `haltedCount` attacks halted, through the one halt (and so
 * verified) with a game day and its plan running when `verified`, else straight on the platform
 * as something outside Faultline would; then the passes.
 */
async function run(verified: boolean): Promise<Run> {
  const stack = await Stack.start();
  try {
    const teams = await ownerWithTeams(stack, teamCount);
    const person: Who = { workspaceId: stack.fake.teamId, userId: personId, userName: personId };
    let day: Day | undefined;
    if (verified) {
      const started = await stack.built.services.gamedays.days.start(channel, 'Bench game day', personId, teams[0]!);
      if (started.outcome !== 'started' || !started.record)
        throw new Error(`the game day did not start: ${started.outcome}`);
      day = started.record;
    }
    const attacks = startAttacks(stack, teams, cardsPerTeam);
    await postCards(stack, attacks);
    const halted = attacks.filter((_, index) => index % (attacks.length / haltedCount) === 0).slice(0, haltedCount);
    // The running steps' attacks: one to be halted (and verified), the others left running.
    const running = [
      halted[stuckCount]!.guid,
      ...attacks
        .filter((attack) => !halted.includes(attack))
        .slice(0, plan.running - 1)
        .map((a) => a.guid),
    ];
    if (day) await planGameDay(stack, day, person, teams[0]!);
    // Past the start-up stages, and a first pass brings every card to Running (and the ended steps' attacks to their end).
    stack.advanceClock(10_000);
    await stack.poll();
    if (day) await carryOnPlan(stack, day, person, running);

    const login = (await stack.built.sessions.get(person))!;
    for (const [index, { guid, team }] of halted.entries()) {
      const attack = stack.sim.state.attacks.get(guid)!;
      if (index < stuckCount) stack.sim.ignoreHalts(attack.targets[0]!);
      const api = stack.built.platform.as({ header: login.session.header, teamId: team.id });
      if (verified)
        await halt(
          {
            events: stack.built.events,
            store: stack.built.store,
            logger: stack.built.services.logger,
            clock: { now: () => stack.built.services.login.now() },
          },
          api,
          { guid, kind: 'attack', teamId: team.id },
          { by: person, platformUser: login.session.identifier, cause: 'person', reason: 'bench' },
        );
      else await api.attacks.halt(guid);
      if (index < stuckCount) stack.sim.ignoreHalts(attack.targets[0]!, false);
    }

    const result: Run = { passes: [], unverified: [], stuckShown: 0, receipts: 0 };
    if (day) {
      const states = await stepStates(stack, day);
      const expected = { ended: plan.ended, 'counting down': plan.countingDown, running: plan.running };
      for (const [state, count] of Object.entries(expected) as [StepState, number][])
        if (states.count(state) !== count) throw new Error(`the plan is not as measured: ${states.shown}`);
      result.planBefore = states.shown;
    }
    for (const moment of moments) {
      stack.advanceClock(moment.advanceMs);
      let pending = 0;
      for await (const _ of stack.built.store.entries(keys.haltCheck.prefix)) pending++;
      result.unverified.push(pending);
      const mark = stack.sim.requests.length;
      await stack.poll();
      result.passes.push(countCalls(stack.sim.requests.slice(mark)));
    }
    for (const { guid } of halted)
      if ((await stack.built.services.attacks.cards.get(guid))?.haltCheck?.stuck) result.stuckShown++;
    for await (const [, receipt] of stack.built.store.entries<HaltReceipt>(keys.haltReceipt.prefix))
      if (receipt.stops.length === receipt.total && receipt.total > 0) result.receipts++;
    if (day) result.planAfter = (await stepStates(stack, day)).shown;
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
    `Platform calls per pass · ${teamCount * cardsPerTeam} live cards in ${teamCount} teams, ${haltedCount} halted (${stuckCount} with a target that runs on) · alone, then with a game day of ${stepCount} steps and the halts verified`,
    [
      'pass',
      'alone: total',
      'game day: list pages',
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
  console.log(`The game day's plan before the passes: ${withChecks.planBefore}; after them: ${withChecks.planAfter}.`);
  const extraBeyondReads = rows.map(({ a, b }) => b.total - b.executionReads - a.total);
  const readsOverUnverified = rows.map(({ b, unverified }) => b.executionReads - unverified);
  return [
    {
      benchmark: 'halts',
      figure: `calls per pass with a ${stepCount}-step game day beyond ${teamCount * cardsPerTeam} live cards alone, executions reads aside, most`,
      value: Math.max(...extraBeyondReads),
      unit: 'calls',
      target: '0',
      met: extraBeyondReads.every((extra) => extra === 0),
      detail: `alone ${rows.map((row) => row.a.total).join(', ')}; with the game day ${rows.map((row) => row.b.total).join(', ')}`,
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
    {
      benchmark: 'halts',
      figure: "verified halts kept with a receipt of every target's stop (no platform call beyond the reads above)",
      value: withChecks.receipts,
      unit: '',
      target: String(haltedCount - stuckCount),
      met: withChecks.receipts === haltedCount - stuckCount,
    },
  ];
}
