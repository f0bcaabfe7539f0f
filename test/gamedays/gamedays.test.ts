/**
 * The GameDays service alone, on the in-memory store with a recording board in place of Slack:
 * one game day per channel, its events kept one key each, and what its end keeps and stops.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { CardStore } from '../../src/attacks/cards.ts';
import type { GameDayAttack, GameDayEvent } from '../../src/gamedays/gamedayRecord.ts';
import type { GameDays } from '../../src/gamedays/gamedays.ts';
import type { Guard, GuardStore } from '../../src/guardrails/guards.ts';
import { createKeyValueStore, type KeyValueStore } from '../../src/store/keyValue.ts';
import { keys } from '../../src/store/keys.ts';
import { startedCard } from '../support/cards.ts';
import { gameDaysOn, recordingBoard } from './setup.ts';

const channel = 'C0DRILL';
const team = { id: 'team-platform', name: 'Platform' };

let store: KeyValueStore;
let gameDays: GameDays;
let cards: CardStore;
let guards: GuardStore;
let seen: string[];
let now: number;

beforeEach(async () => {
  await store?.close();
  store = createKeyValueStore('memory://');
  seen = [];
  now = Date.parse('2030-01-01T10:00:00Z');
  ({ gameDays, cards, guards } = gameDaysOn(store, { seen, channel, now: () => now }));
});

const start = (title = 'Failover drill') => gameDays.start(channel, title, 'U0FACIL', team);

const attack = (guid: string): GameDayAttack => ({
  guid,
  type: 'cpu',
  args: ['-l', '30'],
  targetWords: 'every active client',
  startedBy: 'U0ANA',
  teamId: team.id,
  teamName: team.name,
});

const note = (text: string): GameDayEvent => ({ kind: 'note', note: { guid: 'g-1', by: 'U0ANA', text, at: '' } });

const guard: Guard = {
  spec: { kind: 'b', alert: 'CheckoutErrorRate', uri: 'https://alerts.example' },
  owner: { workspaceId: 'T0', userId: 'U0ANA', userName: 'ana' } as Guard['owner'],
};

describe('GameDays.start', () => {
  it('posts the card and keeps the game day as the channel’s running one', async () => {
    const started = await start();
    expect(started.outcome).toBe('started');
    expect(started.record).toMatchObject({
      channel,
      ts: '1.0',
      title: 'Failover drill',
      facilitator: 'U0FACIL',
      teamId: team.id,
      startedAt: '2030-01-01T10:00:00.000Z',
      attacks: [],
      halts: [],
    });
    expect(started.record!.plan).toBeUndefined();
    expect(seen).toEqual(['card posted']);
    expect(await gameDays.running(channel)).toEqual(started.record);
    expect((await gameDays.allRunning()).map((day) => day.id)).toEqual([started.record!.id]);
  });

  it('starts one per channel: a second start finds it running, and one under way is not doubled', async () => {
    const first = await start();
    expect(await start('Another')).toEqual({ outcome: 'running', record: first.record });
    expect(await gameDays.start('C0OTHER', 'Elsewhere', 'U0FACIL', team)).toMatchObject({ outcome: 'started' });

    // Another replica is starting one in this channel right now.
    await store.claim(keys.gameDayStart.key('C0THIRD'), keys.gameDayStart.ttlMs, 'another replica');
    expect(await gameDays.start('C0THIRD', 'Drill', 'U0FACIL', team)).toEqual({ outcome: 'starting' });
    expect(await gameDays.running('C0THIRD')).toBeUndefined();
    expect(seen).toEqual(['card posted', 'card posted']);
  });

  it('adopts the plan drafted in the channel, on its card from the start', async () => {
    await gameDays.plans.change({ channel }, (plan) => {
      plan.auto = { by: { workspaceId: 'T0', userId: 'U0ANA', userName: 'ana' }, since: '' };
    });
    const { record } = await start();
    expect(record!.plan?.auto).toMatchObject({ by: { userId: 'U0ANA' } });
    expect((await gameDays.plans.get({ gameDayId: record!.id })).auto).toBeDefined();
    expect((await gameDays.plans.get({ channel })).auto).toBeUndefined();
  });
});

describe('GameDays.record', () => {
  it('adds nothing, and shows nothing, without a game day running in the channel', async () => {
    await gameDays.record(channel, note('nobody hears this'));
    expect(seen).toEqual([]);
    await start();
    expect((await gameDays.running(channel))!.notes).toEqual([]);
  });

  it('keeps each event, tells it in the thread and redraws the card, in the order they came', async () => {
    await start();
    await gameDays.record(channel, { kind: 'attack', attack: attack('a-1') });
    now += 1000;
    await gameDays.record(channel, note('latency rose'));
    await gameDays.record(channel, { kind: 'halt', halt: { guid: 'a-1', by: 'U0BEN', at: '', scope: 'attack' } });
    const day = (await gameDays.running(channel))!;
    expect(day.attacks.map((a) => a.guid)).toEqual(['a-1']);
    expect(day.notes.map((n) => n.text)).toEqual(['latency rose']);
    expect(day.halts.map((h) => h.by)).toEqual(['U0BEN']);
    expect(seen).toEqual(['card posted', 'told attack', 'card', 'told note', 'card', 'told halt', 'card']);
    // The attack is known as the game day's, for when it ends: its card is found by its guid.
    expect(await store.get(keys.gameDayAttack.key('a-1'))).toEqual({ channel, ts: day.ts });
  });

  it('loses none of the events added at the same moment', async () => {
    await start();
    await Promise.all(['one', 'two', 'three'].map((text) => gameDays.record(channel, note(text))));
    expect((await gameDays.running(channel))!.notes.map((n) => n.text).sort()).toEqual(['one', 'three', 'two']);
  });

  it('pauses the automatic mode when a guard of the game day fires, keeping the first reason', async () => {
    const { record } = await start();
    await gameDays.plans.change({ gameDayId: record!.id }, (plan) => {
      plan.auto = { by: { workspaceId: 'T0', userId: 'U0ANA', userName: 'ana' }, since: '' };
    });
    const trip = (guard: string, at: string): GameDayEvent => ({
      kind: 'guard',
      trip: { key: guard, guard, state: 'firing', at, owner: 'U0ANA', halted: [], notHalted: [] },
    });
    await gameDays.record(channel, trip('CheckoutErrorRate', '2030-01-01T10:01:00.000Z'));
    await gameDays.record(channel, trip('Latency', '2030-01-01T10:02:00.000Z'));
    const plan = await gameDays.plans.get({ gameDayId: record!.id });
    expect(plan.paused).toEqual({ why: 'guard', detail: 'CheckoutErrorRate', at: '2030-01-01T10:01:00.000Z' });
    expect((await gameDays.running(channel))!.trips).toHaveLength(2);
  });

  it('never fails the action that caused it when the thread cannot be told', async () => {
    ({ gameDays } = gameDaysOn(store, {
      seen,
      channel,
      now: () => now,
      board: { ...recordingBoard(seen, channel), tell: () => Promise.reject(new Error('Slack is down')) },
    }));
    await start();
    await expect(gameDays.record(channel, note('kept anyway'))).resolves.toBeUndefined();
    expect((await gameDays.running(channel))!.notes.map((n) => n.text)).toEqual(['kept anyway']);
  });
});

describe('GameDays.end', () => {
  it('ends the running game day once: kept as ended, the card redrawn, the channel free again', async () => {
    const { record } = await start();
    await gameDays.record(channel, note('before the end'));
    now += 60_000;
    const ended = await gameDays.end(channel, { watchedTeams: ['team-search'] });
    expect(ended).toMatchObject({
      id: record!.id,
      endedAt: '2030-01-01T10:01:00.000Z',
      watchedTeams: ['team-search'],
      notes: [{ text: 'before the end' }],
    });
    expect(seen.at(-1)).toBe('card');
    expect(await gameDays.end(channel)).toBeUndefined();
    expect(await gameDays.running(channel)).toBeUndefined();
    expect((await gameDays.ended(channel)).record).toEqual(ended);
    expect(await gameDays.byCard(channel, ended!.ts)).toEqual(ended);
    // An event after the end is no longer the game day's.
    await gameDays.record(channel, note('after the end'));
    expect((await gameDays.ended(channel)).record!.notes).toHaveLength(1);
    expect((await start('The next one')).outcome).toBe('started');
  });

  it('leaves its guards on its attacks that still run, and only on those', async () => {
    const { record } = await start();
    await guards.addToGameDay(record!.id, [guard]);
    const card = (guid: string, fields: object) =>
      cards.saveStarted(
        startedCard({
          guid,
          teamId: team.id,
          teamName: team.name,
          channel,
          ts: '5.0',
          startedBy: guard.owner,
          ...fields,
        }),
      );
    await card('running-1', { createdAt: '2030-01-01T10:00:30.000Z' });
    await card('before-it', { createdAt: '2030-01-01T09:00:00.000Z' });
    await card('elsewhere', { createdAt: '2030-01-01T10:00:30.000Z', channel: 'C0OTHER' });
    await card('over', { createdAt: '2030-01-01T10:00:30.000Z', lifecycle: 'Complete', stage: 'Successful' });
    await gameDays.end(channel);
    expect(await guards.forAttack('running-1')).toEqual([guard]);
    for (const guid of ['before-it', 'elsewhere', 'over']) expect(await guards.forAttack(guid), guid).toEqual([]);
  });
});
