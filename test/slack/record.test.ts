/**
 * The attacks' recorder changes a card through CardStore.update, then the Slack projection waits
 * on Slack (a ticket's thread line, a guard's). An end the card refresh saves meanwhile stays:
 * a card only moves forward in its attack's life, and an ending is followed once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type CardRecord, CardStore } from '../../src/attacks/cards.ts';
import { type AttackEvent, recordState } from '../../src/attacks/events.ts';
import { isLive } from '../../src/attacks/lifecycle.ts';
import { AttackRecorder } from '../../src/attacks/recorder.ts';
import { createLogger } from '../../src/logger.ts';
import { createMetrics } from '../../src/metrics.ts';
import { SlackAttackProjection } from '../../src/slack/record.ts';
import { createKeyValueStore, type KeyValueStore } from '../../src/store/keyValue.ts';

let store: KeyValueStore;
afterEach(() => store?.close());

const card: CardRecord = {
  guid: 'g1',
  kind: 'attack',
  teamId: 't1',
  teamName: 'Platform',
  channel: 'C1',
  ts: '1.000',
  type: 'cpu',
  args: [],
  targetWords: 'every client',
  startedBy: { workspaceId: 'W1', userId: 'U1', userName: 'alice' },
  startedByPlatform: undefined,
  stage: 'Running',
  lifecycle: 'Active',
  totalClients: 1,
  createdAt: '2026-11-20T18:00:00.000Z',
  startTime: undefined,
  endTime: undefined,
  lengthSeconds: 60,
  annotations: {},
  haltedBy: [],
};
const bob = { workspaceId: 'W1', userId: 'U2', userName: 'bob' };
const ended = { stage: 'Finished', stage_lifecycle: 'Complete', end_time: '2026-11-20T18:01:00.000Z' };

/** A recorder whose thread lines wait until released, as a slow Slack answers; it counts endings followed. */
async function recorder() {
  store = createKeyValueStore('memory://');
  const cards = new CardStore(store);
  await cards.savePosted(card);
  const held: (() => void)[] = [];
  const followed: string[] = [];
  const metrics = createMetrics();
  const logger = createLogger('silent');
  const messenger = {
    post: async (channel: string) => {
      await new Promise<void>((resolve) => held.push(resolve));
      return { channel, ts: '2.000' };
    },
    update: () => undefined,
  };
  const events = new AttackRecorder({
    cards,
    projection: new SlackAttackProjection({ messenger, logger, appUrl: undefined, command: '/chaos' }),
    gameDays: { record: async () => undefined, attackFinished: async (c: CardRecord) => void followed.push(c.guid) },
    workflowSteps: { attackFinished: async () => undefined },
    store,
    logger,
    metrics,
    now: () => Date.parse('2026-11-20T18:01:00.000Z'),
  });
  const posting = async () => {
    while (!held.length) await new Promise((resolve) => setImmediate(resolve));
  };
  return { cards, events, held, followed, metrics, posting };
}

const slowEvents: [string, AttackEvent][] = [
  [
    'a ticket',
    {
      kind: 'ticket',
      by: bob,
      platformUser: undefined,
      teamId: 't1',
      ticket: { key: 'OPS-1' },
      attack: 'g1',
      gameDay: undefined,
      card: 'g1',
      gameDayChannel: undefined,
    } as AttackEvent,
  ],
  [
    'a guard’s halt',
    {
      kind: 'halted',
      guid: 'g1',
      attackKind: 'attack',
      teamId: 't1',
      result: 'halted',
      state: { stage: 'Halting', stage_lifecycle: 'Halting' },
      by: bob,
      platformUser: undefined,
      cause: 'guard',
      reason: 'guard cpu fired',
      scope: 'attack',
      guard: { key: 'a:1', name: 'cpu', state: 'Alert', at: '2026-11-20T18:00:30.000Z' },
    },
  ],
];

describe('the recorder and a card the refresh ended meanwhile', () => {
  it.each(slowEvents)('keeps the attack ended when %s finishes after the refresh saw the end', async (_, event) => {
    const { cards, events, held, followed, metrics, posting } = await recorder();
    const slow = events.record(event);
    await posting();
    // Meanwhile the card refresh sees the attack end.
    await recordState(cards, events, 'g1', ended);
    expect(isLive((await cards.get('g1'))!)).toBe(false);
    for (const release of held.splice(0)) release();
    await slow;

    const after = (await cards.get('g1'))!;
    expect([after.lifecycle, after.stage, after.endTime]).toEqual(['Complete', 'Finished', ended.end_time]);
    expect([...(await cards.liveByTeam()).keys()]).toEqual([]);
    // The next refresh finds nothing new: the ending was followed once and counted once.
    await recordState(cards, events, 'g1', ended);
    expect(followed).toEqual(['g1']);
    const counted = await metrics.registry.getSingleMetricAsString('faultline_attack_events_total');
    expect(counted).toMatch(/event="ended"[^\n]* 1$/m);
  });
});
