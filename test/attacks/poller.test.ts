/**
 * The poller alone: the in-memory store, stored sessions, the platform client against the
 * simulator over HTTPS, and a recorder in place of the Slack messenger.
 */
import { randomBytes } from 'node:crypto';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { CardStore, type CardRecord } from '../../src/attacks/cards.ts';
import { Poller } from '../../src/attacks/poller.ts';
import { AttackRecorder } from '../../src/attacks/recorder.ts';
import type { PlatformClient } from '../../src/client/index.ts';
import { createLogger } from '../../src/logger.ts';
import type { DemoUser, Simulator } from '@faultline/platform-sim';
import { SessionCipher } from '../../src/store/cipher.ts';
import { createKeyValueStore, type KeyValueStore } from '../../src/store/keyValue.ts';
import { keys } from '../../src/store/keys.ts';
import { SessionStore, type Person } from '../../src/store/sessions.ts';
import type { Message } from '../../src/views/message.ts';
import { createMetrics } from '../../src/metrics.ts';
import type { UpdatePriority } from '../../src/slack/messenger.ts';
import { SlackAttackProjection } from '../../src/slack/record.ts';
import { slackWatchBoard } from '../../src/slack/notices.ts';
import { startedCard } from '../support/cards.ts';
import { platformForFile } from '../support/simulatedPlatform.ts';

let sim: Simulator;
let platform: PlatformClient;
let store: KeyValueStore;
let sessions: SessionStore;
let cards: CardStore;
let updates: { channel: string; ts: string; message: Message; priority?: string | undefined }[];

platformForFile((backend) => ({ sim, platform } = backend));

beforeEach(async () => {
  await store?.close();
  store = createKeyValueStore('memory://');
  sessions = new SessionStore(store, new SessionCipher(randomBytes(32)));
  cards = new CardStore(store);
  updates = [];
});

/** What the poller recorded goes through the real recorder, to the recording messenger and game days. */
let events: AttackRecorder;

function poller(
  options: { logger?: ReturnType<typeof createLogger>; onFinished?: (card: CardRecord) => unknown } = {},
): Poller {
  const logger = options.logger ?? createLogger('silent');
  const messenger = {
    // Worded at once here: the real messenger words an update when its turn to be sent comes.
    update: (channel: string, ts: string, message: Message | (() => Message), priority?: UpdatePriority) =>
      updates.push({ channel, ts, message: typeof message === 'function' ? message() : message, priority }),
    post: () => Promise.reject(new Error('no channel is watched here')),
  };
  events = new AttackRecorder({
    cards,
    projection: new SlackAttackProjection({ messenger, logger, appUrl: undefined, command: '/chaos' }),
    gameDays: {
      record: async () => {},
      attackFinished: async (card: CardRecord) => {
        await options.onFinished?.(card);
      },
    },
    workflowSteps: { attackFinished: async () => {} },
    store,
    logger,
    metrics: createMetrics(),
    now: Date.now,
  });
  return new Poller({
    cards,
    board: slackWatchBoard(messenger, undefined, '/chaos'),
    store,
    sessions,
    platform,
    logger,
    intervalMs: 60_000,
    events,
  });
}

const team = () => sim.seed.teams.platform.id;
const requestsTo = (path: string) => sim.requests.filter((r) => r.path === path);

/** Logs a demo user in at the platform and keeps the session as the bot does. */
async function logIn(slackUser: string, user: DemoUser): Promise<Person> {
  const person = { workspaceId: 'T0POLL', userId: slackUser };
  await sessions.save(person, await platform.auth.login({ email: user.email, password: user.password }));
  return person;
}

/** A card for an attack, as posted when it started. */
async function cardFor(guid: string, startedBy: Person, overrides: Partial<CardRecord> = {}): Promise<CardRecord> {
  const card = startedCard({
    guid,
    teamId: team(),
    teamName: 'Platform',
    channel: 'C0POLL',
    ts: `1700000000.${guid.slice(0, 6)}`,
    startedBy: { ...startedBy, userName: startedBy.userId.toLowerCase() },
    ...overrides,
  });
  await cards.savePosted(card);
  return card;
}

describe('Poller', () => {
  it('updates a card only when what it shows changed', async () => {
    const alice = await logIn('U0ALICE', sim.seed.users.owner);
    const [guid] = sim.addAttacks(team(), 1);
    await cardFor(guid!, alice);
    const polls = poller();

    expect(await polls.pollOnce()).toEqual({ teams: 1, cards: 1, updated: 1, posted: 0 });
    expect(updates.map((u) => u.ts)).toEqual([`1700000000.${guid!.slice(0, 6)}`]);
    expect(updates[0]!.message.text).toContain('cpu attack');
    const shown = (await cards.get(guid!))!;
    expect(shown.totalClients).toBeGreaterThan(0);

    // Nothing moved on the platform: the next pass reads the list again and updates nothing.
    expect(await polls.pollOnce()).toEqual({ teams: 1, cards: 1, updated: 0, posted: 0 });
    expect(updates).toHaveLength(1);
    expect(requestsTo('/attacks/active/paged')).toHaveLength(2);

    sim.clock.advance(60_000);
    expect((await polls.pollOnce()).updated).toBe(1);
    expect((await cards.get(guid!))!.stage).not.toBe(shown.stage);
  });

  it('reads no card that the platform did not change, and changes a changed one in one atomic update', async () => {
    const alice = await logIn('U0ALICE', sim.seed.users.owner);
    for (const guid of sim.addAttacks(team(), 5)) await cardFor(guid, alice);
    const polls = poller();
    expect((await polls.pollOnce()).updated).toBe(5);
    const cardReads = vi.spyOn(store, 'get');
    const cardUpdates = vi.spyOn(store, 'update');
    const ofCards = (calls: [string, ...unknown[]][]) =>
      calls.filter(([key]) => key.startsWith(keys.card.prefix)).length;
    const reads = () => ofCards(cardReads.mock.calls) + ofCards(cardUpdates.mock.calls);

    expect(await polls.pollOnce()).toEqual({ teams: 1, cards: 5, updated: 0, posted: 0 });
    expect(reads()).toBe(0);

    sim.clock.advance(60_000);
    expect((await polls.pollOnce()).updated).toBe(5);
    expect(ofCards(cardReads.mock.calls)).toBe(0);
    expect(ofCards(cardUpdates.mock.calls)).toBe(5);
    expect(updates).toHaveLength(10);
  });

  it('keeps polling a card whose live mark was saved without its state, by reading the card', async () => {
    const alice = await logIn('U0ALICE', sim.seed.users.owner);
    const [guid] = sim.addAttacks(team(), 1);
    await cardFor(guid!, alice);
    await store.set(keys.live.key(team(), guid!), { guid, teamId: team() }, keys.live.ttlMs);

    expect(await poller().pollOnce()).toEqual({ teams: 1, cards: 1, updated: 1, posted: 0 });
    expect((await cards.get(guid!))!.totalClients).toBeGreaterThan(0);
  });

  it('reads every live card of a team from one active list, not one request each', async () => {
    const alice = await logIn('U0ALICE', sim.seed.users.owner);
    for (const guid of sim.addAttacks(team(), 5)) await cardFor(guid, alice);
    expect(await poller().pollOnce()).toEqual({ teams: 1, cards: 5, updated: 5, posted: 0 });
    expect(sim.requests.map((r) => r.path)).toEqual(['/users/auth', '/attacks/active/paged']);
  });

  it('fetches an attack that left the active list once, shows it finished, and stops polling it', async () => {
    const alice = await logIn('U0ALICE', sim.seed.users.owner);
    const [guid] = sim.addAttacks(team(), 1, { lengthSeconds: 10 });
    await cardFor(guid!, alice, { lengthSeconds: 10 });
    sim.clock.advance(10 * 60_000);

    expect((await poller().pollOnce()).updated).toBe(1);
    expect(requestsTo(`/attacks/${guid}`)).toHaveLength(1);
    expect((await cards.get(guid!))!.lifecycle).toBe('Complete');
    expect(await cards.liveByTeam()).toEqual(new Map());
    expect(JSON.stringify(updates.at(-1)!.message.blocks)).not.toContain('attack_halt');

    expect(await poller().pollOnce()).toEqual({ teams: 0, cards: 0, updated: 0, posted: 0 });
  });

  it("queues a finished attack's card ahead of cards that only moved on a stage", async () => {
    const alice = await logIn('U0ALICE', sim.seed.users.owner);
    const [ending] = sim.addAttacks(team(), 1, { lengthSeconds: 10 });
    await cardFor(ending!, alice, { lengthSeconds: 10 });
    const [running] = sim.addAttacks(team(), 1);
    await cardFor(running!, alice);
    sim.clock.advance(10 * 60_000);
    expect((await poller().pollOnce()).updated).toBe(2);
    const [endingCard, runningCard] = [(await cards.get(ending!))!, (await cards.get(running!))!];
    expect(updates.find((u) => u.ts === endingCard.ts)?.priority).toBe('urgent');
    expect(updates.find((u) => u.ts === runningCard.ts)?.priority).toBe('routine');
  });

  it('records the end once, with the saved card, when a card first shows its attack finished', async () => {
    const alice = await logIn('U0ALICE', sim.seed.users.owner);
    const [guid] = sim.addAttacks(team(), 1, { lengthSeconds: 10 });
    await cardFor(guid!, alice, { lengthSeconds: 10 });
    const finished: CardRecord[] = [];
    const polls = poller({ onFinished: async (card) => finished.push(card) });

    await polls.pollOnce();
    expect(finished).toEqual([]);
    sim.clock.advance(10 * 60_000);
    await polls.pollOnce();
    expect(finished.map((card) => [card.guid, card.lifecycle])).toEqual([[guid, 'Complete']]);
    expect(await cards.get(guid!)).toEqual(finished[0]);
    // Showing the finished card again (a ticket, a late halt) is no new end.
    await events.record({ kind: 'changed', card: { ...finished[0]!, ticketCount: 1 } });
    await polls.pollOnce();
    expect(finished).toHaveLength(1);
  });

  it('shows an attack the platform no longer knows as finished', async () => {
    const alice = await logIn('U0ALICE', sim.seed.users.owner);
    await cardFor('00000000-0000-4000-8000-00000000dead', alice, { stage: 'Running' });
    expect((await poller().pollOnce()).updated).toBe(1);
    const card = (await cards.get('00000000-0000-4000-8000-00000000dead'))!;
    expect(card).toMatchObject({ stage: 'Running', lifecycle: 'Complete' });
  });

  it('lets one replica poll a team while its lease lasts; the holder keeps it', async () => {
    const alice = await logIn('U0ALICE', sim.seed.users.owner);
    const [guid] = sim.addAttacks(team(), 1);
    await cardFor(guid!, alice);
    const first = poller();
    const second = poller();

    expect((await first.pollOnce()).teams).toBe(1);
    expect(await second.pollOnce()).toEqual({ teams: 0, cards: 0, updated: 0, posted: 0 });
    expect((await first.pollOnce()).teams).toBe(1);
    expect(requestsTo('/attacks/active/paged')).toHaveLength(2);
  });

  it('hands its teams to another replica as soon as it stops, not when its leases lapse', async () => {
    const alice = await logIn('U0ALICE', sim.seed.users.owner);
    const [guid] = sim.addAttacks(team(), 1);
    await cardFor(guid!, alice);
    const first = poller();
    const second = poller();

    expect((await first.pollOnce()).teams).toBe(1);
    expect((await second.pollOnce()).teams).toBe(0);
    await first.stop();
    expect((await second.pollOnce()).teams).toBe(1);
    // The one that took over keeps the team; a replica that stopped gives back only its own leases.
    await first.stop();
    expect((await poller().pollOnce()).teams).toBe(0);
  });

  it('joins a pass already running rather than starting a second', async () => {
    const alice = await logIn('U0ALICE', sim.seed.users.owner);
    const [guid] = sim.addAttacks(team(), 1);
    await cardFor(guid!, alice);
    const polls = poller();
    const [a, b] = await Promise.all([polls.pollOnce(), polls.pollOnce()]);
    expect(a).toBe(b);
    expect(requestsTo('/attacks/active/paged')).toHaveLength(1);
  });

  it("reads as someone else in the team when the starter's session was revoked, and forgets the dead session", async () => {
    const alice = await logIn('U0ALICE', sim.seed.users.owner);
    const bob = await logIn('U0BOB', sim.seed.users.observer);
    const [guid] = sim.addAttacks(team(), 1);
    await cardFor(guid!, alice);
    sim.expireSession(sim.seed.users.owner.email);

    expect((await poller().pollOnce()).updated).toBe(1);
    expect(await sessions.get(alice)).toBeUndefined();
    expect(await sessions.get(bob)).toBeDefined();
    const reads = requestsTo('/attacks/active/paged');
    expect(reads.map((r) => r.status)).toEqual([401, 200]);
  });

  it('leaves the cards as they are, and says so, when nobody logged in can read the team', async () => {
    const lines: { msg: string }[] = [];
    const logger = createLogger('warn', {
      write: (line: string) => void lines.push(JSON.parse(line) as { msg: string }),
    });
    const alice = await logIn('U0ALICE', sim.seed.users.owner);
    const [guid] = sim.addAttacks(team(), 1);
    await cardFor(guid!, alice);
    await sessions.drop(alice);

    expect(await poller({ logger }).pollOnce()).toEqual({ teams: 1, cards: 1, updated: 0, posted: 0 });
    expect(updates).toEqual([]);
    expect(lines.map((l) => l.msg)).toEqual(['nobody logged in can read the team; its cards stay as they are']);
  });
});
