import { beforeEach, describe, expect, it } from 'vitest';
import type { Simulator } from '@faultline/platform-sim';
import { CardStore } from '../../src/attacks/cards.ts';
import type { PlatformClient, ScopedPlatform } from '../../src/client/index.ts';
import { emptyEvents } from '../../src/gamedays/gamedayReads.ts';
import type { GameDayAttack, GameDayRecord } from '../../src/gamedays/gamedayRecord.ts';
import { readTeam } from '../../src/gamedays/reportTeam.ts';
import { createLogger } from '../../src/logger.ts';
import { createKeyValueStore } from '../../src/store/keyValue.ts';
import { startedCard } from '../support/cards.ts';
import { platformForFile } from '../support/simulatedPlatform.ts';

const channel = 'C0DRILL';

let sim: Simulator;
let platform: PlatformClient;
let parts: { cards: CardStore; logger: ReturnType<typeof createLogger> };
let window: { start: string; end: string };

platformForFile((backend) => ({ sim, platform } = backend));

beforeEach(() => {
  parts = { cards: new CardStore(createKeyValueStore('memory://')), logger: createLogger('silent') };
  window = { start: new Date(sim.clock.now() - 1000).toISOString(), end: '' };
});

const platformTeam = () => ({ id: sim.seed.teams.platform.id, name: 'Platform', watched: false });

/** The owner's platform, scoped to `teamId`. */
async function ownerIn(teamId: string): Promise<ScopedPlatform> {
  const { email, password } = sim.seed.users.owner;
  const session = await platform.auth.login({ email, password });
  return platform.as({ header: session.header, teamId });
}

/** An attack started from the channel, as its game day keeps it. */
const fromChannel = (guid: string, teamId = sim.seed.teams.platform.id): GameDayAttack => ({
  guid,
  type: 'cpu',
  args: ['-l', '30'],
  targetWords: '1 host tagged role=web',
  startedBy: 'U0NORA',
  teamId,
  teamName: 'Platform',
});

const dayWith = (attacks: GameDayAttack[], halts: GameDayRecord['halts'] = []): GameDayRecord => ({
  channel,
  ts: '1.0',
  title: 'Failover drill',
  facilitator: 'U0NORA',
  startedAt: window.start,
  ...emptyEvents(),
  attacks,
  halts,
});

/** Ends the window now, as the game day's end does. */
const windowNow = () => ({ ...window, end: new Date(sim.clock.now() + 1000).toISOString() });

describe("one team's section of the report", () => {
  it('without a session holds the attacks started in the channel, as the channel told them, and says why no more', async () => {
    const chat = fromChannel('a-chat');
    const other = fromChannel('a-other-team', sim.seed.teams.search.id);
    await parts.cards.saveStarted(
      startedCard({
        guid: 'a-chat',
        teamId: chat.teamId,
        teamName: 'Platform',
        channel,
        ts: '2.0',
        startedBy: { workspaceId: 'T0', userId: 'U0NORA', userName: 'nora' },
        stage: 'Stopped',
        lifecycle: 'Complete',
        haltedBy: [{ userId: 'U0BEN', at: '' }],
      }),
    );
    const halts = [
      { guid: 'a-chat', by: 'U0OMAR', at: '', scope: 'attack' as const },
      { guid: 'a-chat', by: 'U0BEN', at: '', scope: 'attack' as const },
      { by: 'U0ALL', at: '', scope: 'all' as const },
    ];
    const { team, failure } = await readTeam(
      parts,
      dayWith([chat, other], halts),
      undefined,
      platformTeam(),
      windowNow(),
    );
    expect(failure).toBeUndefined();
    expect(team).toMatchObject({ name: 'Platform', problem: { kind: 'no session' }, more: false, watched: false });
    expect(team.attacks).toEqual([
      expect.objectContaining({
        guid: 'a-chat',
        type: 'cpu',
        args: ['-l', '30'],
        target: { words: '1 host tagged role=web' },
        stage: 'Stopped',
        lifecycle: 'Complete',
        chat,
        haltedBy: ['U0BEN', 'U0OMAR'],
        executions: [],
        tickets: [],
        executionsProblem: { kind: 'no session' },
        ticketsProblem: { kind: 'no session' },
      }),
    ]);
  });

  it('with a session holds every attack of the window, oldest first, wherever it was started', async () => {
    const api = await ownerIn(sim.seed.teams.platform.id);
    const direct = sim.createAttackDirectly(sim.seed.teams.platform.id, {
      type: 'memory',
      args: ['-l', '60', '-p', '10'],
      createUser: 'oncall@acme.test',
    });
    const chatGuid = sim.createAttackDirectly(sim.seed.teams.platform.id, { type: 'cpu', args: ['-l', '30'] });
    const chat = fromChannel(chatGuid);
    const { team } = await readTeam(parts, dayWith([chat]), api, { ...platformTeam(), watched: true }, windowNow());
    expect(team).toMatchObject({ problem: undefined, more: false, noTracker: false, watched: true });
    expect(team.attacks.map((a) => a.guid)).toEqual([direct, chatGuid]);
    const [platformMade, chatMade] = team.attacks;
    expect(platformMade).toMatchObject({
      type: 'memory',
      args: ['-l', '60', '-p', '10'],
      createdBy: 'oncall@acme.test',
      createSource: 'WebApp',
      chat: undefined,
      target: { platform: expect.objectContaining({ total_clients: expect.any(Number) }) },
      tickets: [],
      executionsProblem: undefined,
      ticketsProblem: undefined,
    });
    expect(platformMade!.executions.length).toBeGreaterThan(0);
    // What the channel said of its target wins over the platform's record of it.
    expect(chatMade).toMatchObject({ chat, target: { words: '1 host tagged role=web' } });
  });

  it('of a team without a tracker says so, with no ticket problem on its attacks', async () => {
    const payments = sim.seed.teams.payments.id;
    const api = await ownerIn(payments);
    for (let i = 0; i < 3; i++) sim.createAttackDirectly(payments);
    const { team } = await readTeam(
      parts,
      dayWith([]),
      api,
      { id: payments, name: 'Payments', watched: true },
      windowNow(),
    );
    expect(team).toMatchObject({ noTracker: true, problem: undefined });
    expect(team.attacks).toHaveLength(3);
    expect(team.attacks.every((a) => a.ticketsProblem === undefined && a.tickets.length === 0)).toBe(true);
  });

  it('when the platform fails to list the window, still holds the channel’s attacks and says what failed', async () => {
    const api = await ownerIn(sim.seed.teams.platform.id);
    sim.createAttackDirectly(sim.seed.teams.platform.id);
    const chat = fromChannel('a-chat');
    sim.faults.inject({ kind: 'status', status: 500, path: '/attacks/range', times: Infinity });
    const { team, failure } = await readTeam(parts, dayWith([chat]), api, platformTeam(), windowNow());
    expect(failure).toBeDefined();
    expect(team.problem).toMatchObject({ kind: 'failed', team: 'Platform', error: failure });
    expect(team.attacks.map((a) => a.guid)).toEqual(['a-chat']);
    // The executions of an attack the platform does not know are a failure of their own.
    expect(team.attacks[0]!.executionsProblem).toMatchObject({ kind: 'failed', subject: 'attack a-chat' });
  });
});
