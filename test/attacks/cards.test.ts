/**
 * A card takes the platform's state through one function, and an attack's life only moves
 * forward: a halt's answer read before the attack ended never redraws the ended card as halting.
 */
import { describe, expect, it } from 'vitest';
import { type CardRecord, CardStore } from '../../src/attacks/cards.ts';
import { withState, isLive } from '../../src/attacks/lifecycle.ts';
import { createKeyValueStore } from '../../src/store/keyValue.ts';
import { turnsDuring } from '../support/turns.ts';

const card: CardRecord = {
  guid: 'a1',
  kind: 'kubernetes',
  teamId: 'team',
  teamName: 'Platform',
  channel: 'C1',
  ts: '1.000',
  type: 'cpu',
  args: [],
  targetWords: 'every client',
  startedBy: { workspaceId: 'T1', userId: 'U1', userName: 'alice' },
  startedByPlatform: 'alice@acme.test',
  stage: 'Running',
  lifecycle: 'Active',
  totalClients: 1,
  createdAt: '2026-11-20T18:00:00.000Z',
  startTime: '2026-11-20T18:00:01.000Z',
  endTime: undefined,
  lengthSeconds: 300,
  annotations: {},
  haltedBy: [],
};
const ended = { stage: 'UserHalted', stage_lifecycle: 'Complete', end_time: '2026-11-20T18:01:00.000Z' };

describe('a card taking the platform’s state', () => {
  it('moves from running to halting to finished', () => {
    const halting = withState(card, { stage: 'Halting', stage_lifecycle: 'Halting' });
    expect([halting.changed, halting.card.lifecycle]).toEqual([true, 'Halting']);
    const done = withState(halting.card, ended);
    expect([done.changed, done.card.stage, isLive(done.card)]).toEqual([true, 'UserHalted', false]);
  });

  it('keeps a finished attack finished when an older read says it is still halting or running', () => {
    const done = withState(card, ended).card;
    for (const late of [
      { stage: 'Halting', stage_lifecycle: 'Halting' },
      { stage: 'Running', stage_lifecycle: 'Active', total_clients: 1 },
    ]) {
      const next = withState(done, late);
      expect(next.changed).toBe(false);
      expect([next.card.stage, next.card.lifecycle, next.card.endTime]).toEqual([
        'UserHalted',
        'Complete',
        ended.end_time,
      ]);
    }
  });

  it('keeps a halting attack halting when an older read says it is running', () => {
    const halting = withState(card, { stage: 'Halting', stage_lifecycle: 'Halting' }).card;
    const next = withState(halting, { stage: 'Running', stage_lifecycle: 'Active' });
    expect([next.changed, next.card.lifecycle]).toEqual([false, 'Halting']);
  });
});

describe('the card store', () => {
  it("reads thousands of cards in batches and lists thousands of live ones, letting other work run between them at a job's breathe", async () => {
    const store = createKeyValueStore('memory://', 'cards-test');
    const cards = new CardStore(store);
    const guids = Array.from({ length: 1_200 }, (_, i) => `a${i}`);
    for (const guid of guids) await cards.savePosted({ ...card, guid });
    let breaths = 0;
    const breathe = () => {
      breaths++;
      return new Promise<void>((turn) => setImmediate(turn));
    };
    const { result: found, turns } = await turnsDuring(() => cards.getMany([...guids, 'missing'], breathe));
    expect(found.map((c) => c?.guid)).toEqual([...guids, undefined]);
    expect([breaths, turns > 0]).toEqual([2, true]);

    breaths = 0;
    const listed = await turnsDuring(() => cards.liveCardsByTeam(breathe));
    expect(listed.result.get('team')).toHaveLength(1_200);
    expect([breaths, listed.turns > 0]).toEqual([2, true]);
    // A person's read takes no breath: the adapter already let the deliveries go first.
    expect(await cards.getMany(guids)).toHaveLength(1_200);
    await store.close();
  });
});
