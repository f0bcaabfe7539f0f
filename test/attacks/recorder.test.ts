/**
 * The attacks' recorder alone, on the in-memory store: what each event changes (the card, through
 * one CardStore.update; the game day's timeline; what waited for an attack's end), and that the
 * projection is handed the card as saved, after the change.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CardRecord, CardStore } from '../../src/attacks/cards.ts';
import type { AttackEvent, AttackProjection, Recorded } from '../../src/attacks/events.ts';
import type { HaltProgress } from '../../src/attacks/haltChecks.ts';
import { AttackRecorder } from '../../src/attacks/recorder.ts';
import type { GameDayEvent } from '../../src/gamedays/gamedayRecord.ts';
import { createLogger } from '../../src/logger.ts';
import { createMetrics } from '../../src/metrics.ts';
import { createKeyValueStore, type KeyValueStore } from '../../src/store/keyValue.ts';
import { startedCard } from '../support/cards.ts';

const at = '2026-11-20T18:01:00.000Z';
const alice = { workspaceId: 'W1', userId: 'U1', userName: 'alice' };
const bob = { workspaceId: 'W1', userId: 'U2', userName: 'bob' };
const card = startedCard({
  guid: 'g1',
  teamId: 't1',
  teamName: 'Platform',
  channel: 'C1',
  ts: '1.000',
  startedBy: alice,
});
const halting = { stage: 'Halting', stage_lifecycle: 'Halting' };

let store: KeyValueStore;
let cards: CardStore;
let timeline: [string, GameDayEvent][];
let followed: string[];
let shown: { event: AttackEvent; recorded: Recorded; stored: CardRecord | undefined }[];
let events: AttackRecorder;
let showFails: boolean;

beforeEach(async () => {
  store = createKeyValueStore('memory://');
  cards = new CardStore(store);
  await cards.savePosted(card);
  [timeline, followed, shown, showFails] = [[], [], [], false];
  const projection: AttackProjection = {
    targetWords: (target, team) => `${target.kind} in ${team}`,
    refusal: (error) => ({ reason: String(error), unconfirmed: false }),
    ruleText: () => 'a rule',
    postCard: async (posted) => {
      expect(await cards.get(posted.guid)).toBeUndefined();
      return { channel: posted.channel, ts: '9.000' };
    },
    haltStuck: async () => [],
    show: async (event, recorded) => {
      shown.push({ event, recorded, stored: recorded.card && (await cards.get(recorded.card.guid)) });
      if (showFails) throw new Error('Slack is down');
    },
  };
  events = new AttackRecorder({
    cards,
    gameDays: {
      record: async (channel, event) => void timeline.push([channel, event]),
      attackFinished: async (c) => void followed.push(`game day ${c.guid}`),
    },
    workflowSteps: { attackFinished: async (c) => void followed.push(`step ${c.guid}`) },
    store,
    logger: createLogger('silent'),
    metrics: createMetrics(),
    now: () => Date.parse(at),
    projection,
  });
});
afterEach(() => store.close());

const halted = (
  by: typeof alice,
  cause: 'person' | 'presence' | 'guard',
): Extract<AttackEvent, { kind: 'halted' }> => ({
  kind: 'halted',
  guid: 'g1',
  attackKind: 'attack',
  teamId: 't1',
  result: 'halted',
  state: halting,
  by,
  platformUser: undefined,
  cause,
  reason: undefined,
  scope: 'attack',
});
const progress = (stuck: boolean): HaltProgress => ({
  haltedAt: at,
  stopped: stuck ? 1 : 2,
  total: 2,
  running: stuck ? ['web-1'] : [],
  verified: !stuck,
  stuck,
});
const checked = (p: HaltProgress): Extract<AttackEvent, { kind: 'halt checked' }> => ({
  kind: 'halt checked',
  guid: 'g1',
  attackKind: 'attack',
  teamId: 't1',
  by: bob,
  cause: 'person',
  progress: p,
  news: p.verified ? 'verified' : 'stuck',
});
/** The last thing shown, and that it was the card as the store holds it. */
const lastShown = () => {
  const last = shown.at(-1)!;
  expect(last.recorded.card).toEqual(last.stored);
  return last.recorded;
};

describe('the attacks recorder', () => {
  it('names a person among the halters once, with the halting stage and one timeline entry', async () => {
    const saved = await events.record(halted(bob, 'person'));
    expect(saved).toMatchObject({ stage: 'Halting', haltedBy: [{ userId: 'U2', at }] });
    expect(lastShown()).toMatchObject({ changed: true, before: { haltedBy: [] }, card: saved });
    expect(timeline).toEqual([['C1', { kind: 'halt', halt: { guid: 'g1', by: 'U2', at, scope: 'attack' } }]]);

    await events.record(halted(bob, 'person'));
    expect((await cards.get('g1'))!.haltedBy).toHaveLength(1);
    expect(timeline).toHaveLength(1);
    expect(lastShown()).toMatchObject({ before: { haltedBy: [{ userId: 'U2' }] } });
  });

  it('marks whom a presence check asked, and a guard’s halt only with its stage', async () => {
    await events.record(halted(bob, 'presence'));
    expect(await cards.get('g1')).toMatchObject({ stage: 'Halting', unwatched: { askedOf: 'U2', at }, haltedBy: [] });
    await cards.update('g1', (c) => ({ ...c, stage: 'Running', lifecycle: 'Active' }));
    await events.record(halted(alice, 'guard'));
    expect(await cards.get('g1')).toMatchObject({ stage: 'Halting', haltedBy: [] });
    expect(lastShown().changed).toBe(true);
    expect(timeline).toEqual([]);
  });

  it('keeps what a halt check read, and changes nothing when it reads the same again', async () => {
    await events.record(checked(progress(true)));
    expect((await cards.get('g1'))!.haltCheck).toEqual(progress(true));
    expect(lastShown().changed).toBe(true);
    await events.record({ ...checked(progress(true)), news: 'progress' });
    expect(lastShown().changed).toBe(false);
    await events.record(checked(progress(false)));
    expect(lastShown()).toMatchObject({ changed: true, before: { haltCheck: { stuck: true } } });
  });

  it('saves a note’s stage and a ticket’s count, and puts both in the timeline', async () => {
    await events.record({
      kind: 'note',
      guid: 'g1',
      teamId: 't1',
      by: bob,
      platformUser: undefined,
      text: 'hi',
      state: halting,
    });
    expect((await cards.get('g1'))!.stage).toBe('Halting');
    await events.record({
      kind: 'ticket',
      by: bob,
      platformUser: undefined,
      teamId: 't1',
      ticket: { key: 'OPS-1' },
      attack: 'g1',
      gameDay: undefined,
      card: 'g1',
      gameDayChannel: 'C1',
    });
    expect(lastShown().card!.ticketCount).toBe(1);
    expect(timeline.map(([channel, e]) => [channel, e.kind])).toEqual([
      ['C1', 'note'],
      ['C1', 'ticket'],
    ]);
  });

  it('posts a started card before saving it, with its target in words, and puts it in the timeline', async () => {
    const { targetWords: _, ...fresh } = { ...card, guid: 'g2', ts: '' };
    const request = { type: 'cpu', args: [], target: { kind: 'all' } } as never;
    const saved = await events.record({ kind: 'started', card: fresh, by: alice, platformUser: undefined, request });
    expect(await cards.get('g2')).toMatchObject({ ts: '9.000', targetWords: 'all in Platform' });
    expect(saved!.ts).toBe('9.000');
    expect(timeline).toMatchObject([
      ['C1', { kind: 'attack', attack: { guid: 'g2', targetWords: 'all in Platform' } }],
    ]);
  });

  it('follows an ending once, after showing it, even when showing it fails', async () => {
    showFails = true;
    const over = { stage: 'Finished', stage_lifecycle: 'Complete', end_time: at };
    await events.record({ ...halted(bob, 'guard'), state: over });
    expect(shown).toHaveLength(1);
    expect(followed).toEqual(['game day g1', 'step g1']);
    await events.record({ ...halted(bob, 'guard'), state: over });
    expect(followed).toHaveLength(2);
  });

  it('records a fired guard in the game days of the attacks it acted on and those it guards', async () => {
    const trip = { ...card, channel: 'C2' };
    const guard = { key: 'k', name: 'cpu', state: 'Alert', at, owner: alice };
    await events.record({
      kind: 'guard fired',
      guard,
      halted: [trip],
      notHalted: [],
      gameDays: ['C3'],
      already: false,
    });
    expect(timeline.map(([channel]) => channel)).toEqual(['C2', 'C3']);
    await events.record({ kind: 'guard fired', guard, halted: [trip], notHalted: [], gameDays: ['C3'], already: true });
    expect(timeline.map(([channel]) => channel)).toEqual(['C2', 'C3', 'C2']);
  });
});
