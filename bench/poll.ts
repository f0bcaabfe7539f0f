/**
 * Platform calls per poll pass with 1,000 live cards across 10 teams: the poller should read one
 * active list (all its pages) per team, fetch one by one only the attacks that left it, and
 * update only the cards that changed.
 */
import type { RecordedRequest } from '@faultline/platform-sim';
import { Stack } from '../test/e2e/harness.ts';
import { formatMs, printTable, type SummaryRow } from './table.ts';
import { startedCard } from '../test/support/cards.ts';

const teamCount = 10;
const cardsPerTeam = 100;
const finishedCount = 25;
/** Active attacks without cards added to one team: more than two pages of the poller's 1,000. */
const extraActive = 2_500;
const channel = 'C0GENERAL';
const personId = 'U0BENCHPOLL';

export interface Team {
  id: string;
  name: string;
}

/**
 * Gives the demo owner `count` teams in all, each with a host so that attacks have a target,
 * and logs them in. The seeded company has three teams; the rest are added.
 */
export async function ownerWithTeams(stack: Stack, count: number): Promise<Team[]> {
  const { sim } = stack;
  const owner = sim.seed.users.owner;
  const added = sim.addTeams(owner.email, count - 3);
  added.forEach((teamId, index) =>
    sim.state.hosts.push({ id: `bench-host-${index + 1}`, teamId, tags: { role: 'web' } }),
  );
  await stack.login(personId, owner, { team: sim.seed.teams.platform.name });
  return [
    sim.seed.teams.platform,
    sim.seed.teams.payments,
    sim.seed.teams.search,
    ...added.map((id) => ({ id, name: sim.state.teams.get(id)!.name })),
  ];
}

/** Starts `perTeam` attacks in each team; their guids with their teams. */
export function startAttacks(stack: Stack, teams: Team[], perTeam: number): { guid: string; team: Team }[] {
  return teams.flatMap((team) =>
    stack.sim
      .addAttacks(team.id, perTeam, { createUser: stack.sim.seed.users.owner.email })
      .map((guid) => ({ guid, team })),
  );
}

/** Posts a live card for each attack and saves it, as the end-to-end tests do. */
export async function postCards(stack: Stack, attacks: { guid: string; team: Team }[]): Promise<void> {
  for (const { guid, team } of attacks) {
    const posted = await stack.built.services.slack.post(channel, { text: `card ${guid}` });
    await stack.built.services.attacks.cards.savePosted(
      startedCard({
        guid,
        teamId: team.id,
        teamName: team.name,
        channel,
        ts: posted.ts,
        startedBy: { workspaceId: stack.fake.teamId, userId: personId, userName: personId },
        startedByPlatform: stack.sim.seed.users.owner.email,
      }),
    );
  }
}

const listPath = '/attacks/active/paged';
const isSingleGet = (request: RecordedRequest) =>
  request.method === 'GET' && /^\/attacks\/[^/]+$/.test(request.path) && request.path !== '/attacks/active';

interface Pass {
  name: string;
  teams: number;
  cards: number;
  listCalls: number;
  listCallsPerTeam: number[];
  singleGets: number;
  otherCalls: number;
  updates: number;
  ms: number;
}

async function measuredPass(stack: Stack, name: string, teams: Team[]): Promise<Pass> {
  const mark = stack.sim.requests.length;
  const updatesBefore = stack.fake.callsTo('chat.update').length;
  const started = performance.now();
  const report = await stack.poll();
  const ms = performance.now() - started;
  const requests = stack.sim.requests.slice(mark);
  const lists = requests.filter((request) => request.path === listPath);
  return {
    name,
    teams: report.teams,
    cards: report.cards,
    listCalls: lists.length,
    listCallsPerTeam: teams.map((team) => lists.filter((request) => request.teamId === team.id).length),
    singleGets: requests.filter(isSingleGet).length,
    otherCalls: requests.filter((request) => request.path !== listPath && !isSingleGet(request)).length,
    updates: stack.fake.callsTo('chat.update').length - updatesBefore,
    ms,
  };
}

export async function pollBenchmark(): Promise<SummaryRow[]> {
  const stack = await Stack.start();
  try {
    const teams = await ownerWithTeams(stack, teamCount);
    const attacks = startAttacks(stack, teams, cardsPerTeam);
    const posting = performance.now();
    await postCards(stack, attacks);
    const postingMs = performance.now() - posting;
    const guids = attacks.map((attack) => attack.guid);

    // Past the simulator's start-up stages: every card goes from Pending to Running.
    stack.advanceClock(10_000);
    const passes = [await measuredPass(stack, 'first: every card changed', teams)];
    passes.push(await measuredPass(stack, 'again: nothing changed', teams));

    // Halt a few attacks in several teams and let the halts complete: they leave the active list.
    const login = await stack.built.sessions.get({ workspaceId: stack.fake.teamId, userId: personId });
    const finished = guids.filter((_, index) => index % cardsPerTeam < finishedCount / 5 && index < 5 * cardsPerTeam);
    for (const guid of finished) {
      const teamId = stack.sim.state.attacks.get(guid)!.teamId;
      await stack.built.platform.as({ header: login!.session.header, teamId }).attacks.halt(guid);
    }
    stack.advanceClock(30_000);
    passes.push(await measuredPass(stack, `after ${finished.length} finished in 5 teams`, teams));
    passes.push(await measuredPass(stack, 'again: nothing changed', teams));

    stack.sim.addAttacks(teams[0]!.id, extraActive, { createUser: stack.sim.seed.users.owner.email });
    passes.push(await measuredPass(stack, `with ${extraActive} more active in ${teams[0]!.name}, no cards`, teams));

    printTable(
      `Poll passes · ${teams.length} teams, ${guids.length} live cards posted in ${formatMs(postingMs)} · platform calls per pass`,
      [
        'pass',
        'teams',
        'live cards',
        'list pages',
        'per team',
        'single GETs',
        'other calls',
        'chat.update',
        'pass time',
      ],
      passes.map((pass) => [
        pass.name,
        String(pass.teams),
        String(pass.cards),
        String(pass.listCalls),
        spread(pass.listCallsPerTeam),
        String(pass.singleGets),
        String(pass.otherCalls),
        String(pass.updates),
        formatMs(pass.ms),
      ]),
    );
    const [first, unchanged, afterFinish, , bigTeam] = passes as [Pass, Pass, Pass, Pass, Pass];
    const bigTeamPages = bigTeam.listCallsPerTeam[0]!;
    console.log(
      `Per team: one list of at most 1,000 attacks a page; ${teams[0]!.name} with ${cardsPerTeam + extraActive} active attacks took ${bigTeamPages} pages for its ${cardsPerTeam} cards.`,
    );

    const firstCalls = first.listCalls + first.singleGets + first.otherCalls;
    return [
      {
        benchmark: 'poll',
        figure: `platform calls per pass, ${teams.length} teams / ${first.cards} cards`,
        value: firstCalls,
        unit: 'calls',
        target: `${teams.length} (one list per team)`,
        met: firstCalls === teams.length,
      },
      {
        benchmark: 'poll',
        figure: 'list pages per team per pass, most',
        value: Math.max(...first.listCallsPerTeam),
        unit: 'calls',
        target: '1',
        met: Math.max(...first.listCallsPerTeam) === 1,
        detail: `least ${Math.min(...first.listCallsPerTeam)}`,
      },
      {
        benchmark: 'poll',
        figure: `single GETs after ${finished.length} attacks finished`,
        value: afterFinish.singleGets,
        unit: 'calls',
        target: String(finished.length),
        met: afterFinish.singleGets === finished.length,
      },
      {
        benchmark: 'poll',
        figure: 'chat.update on an unchanged pass',
        value: unchanged.updates,
        unit: 'calls',
        target: '0',
        met: unchanged.updates === 0,
      },
      { benchmark: 'poll', figure: `pass time, ${first.cards} cards all changed`, value: first.ms, unit: 'ms' },
      { benchmark: 'poll', figure: `pass time, ${first.cards} cards unchanged`, value: unchanged.ms, unit: 'ms' },
    ];
  } finally {
    await stack.stop();
  }
}

function spread(values: number[]): string {
  const low = Math.min(...values);
  const high = Math.max(...values);
  return low === high ? String(low) : `${low}–${high}`;
}
