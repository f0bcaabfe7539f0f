import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CardRecord } from '../../src/attacks/cards.ts';
import { keys } from '../../src/store/keys.ts';
import { dropRedisKeys } from '../support/redisKeys.ts';
import { Stack, stackForFile } from './harness.ts';

/**
 * The card refresher (the poll pass) and the halt check (verify-halts) both change a card, and on
 * a store shared by replicas they run at the same time. Here the poll pass is held at its first
 * access to the card (after its read returns, or before its atomic update) while a whole halt
 * check runs: what the halt check saved must still show once the poll pass has saved its news.
 */
const read = Stack.read;
const channel = 'C0GENERAL';
const hosts = ['platform-web-1', 'platform-web-2', 'platform-db-1'];

/** Runs a poll pass and, while it holds its card in hand, a whole verify-halts pass; then shows the cards. */
async function pollRacingHaltCheck(stack: Stack, guid: string): Promise<void> {
  const store = stack.built.store as unknown as Record<string, (key: string, ...rest: unknown[]) => Promise<unknown>>;
  const cardKey = keys.card.key(guid);
  const original = { get: store['get']!, update: store['update'] };
  let arrived!: () => void;
  const reached = new Promise<void>((resolve) => (arrived = resolve));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let held = false;
  const holds = (key: string) => key === cardKey && !held && (held = true);
  store['get'] = async (key, ...rest) => {
    const value = await original.get.call(store, key, ...rest);
    if (holds(key)) {
      arrived();
      await released;
    }
    return value;
  };
  if (original.update)
    store['update'] = async (key, ...rest) => {
      if (holds(key)) {
        arrived();
        await released;
      }
      return original.update!.call(store, key, ...rest);
    };
  try {
    const pass = stack.built.services.attacks.refreshCards();
    const first = await Promise.race([reached.then(() => 'held' as const), pass.then(() => 'finished' as const)]);
    expect(first, 'the poll pass never touched the card').toBe('held');
    expect(await stack.built.services.attacks.verifyHalts()).toBe(1);
    release();
    await pass;
  } finally {
    Object.assign(store, original.update ? original : { get: original.get });
    release();
  }
  await stack.built.services.slack.flush();
}

function racesOn(storeUrl: string) {
  let stack: Stack;
  stackForFile({ storeUrl }, (started) => (stack = started));
  afterAll(async () => {
    if (storeUrl.startsWith('redis')) await dropRedisKeys(storeUrl, stack.storeNamespace);
  });
  const cardOf = (guid: string) => stack.cardIn(channel, guid)!;
  const stored = async (guid: string) => (await stack.built.services.attacks.cards.get(guid)) as CardRecord;

  async function haltedAttack(id: string) {
    await stack.login(id, stack.sim.seed.users.owner, { team: 'Platform' });
    const started = await stack.startAttack(id, `attack cpu -l 600 --target-hosts ${hosts.join(',')}`, channel);
    stack.advanceClock(10_000);
    return started;
  }

  it('keeps "Halt verified: 3 of 3 targets stopped" when the poll pass saves the attack\'s end at the same time', async () => {
    const id = `U0RACE${storeUrl.slice(0, 3).toUpperCase()}1`;
    const { attack, card } = await haltedAttack(id);
    await card.click('Halt');
    await stack.replySaying(id, channel, 'Halt requested');
    await stack.poll();
    expect(read(cardOf(attack.guid))).toContain('Halt sent: 0 of 3 targets stopped so far');

    // The targets stop and the attack ends: both jobs have news for the card.
    stack.advanceClock(5_000);
    await pollRacingHaltCheck(stack, attack.guid);

    expect((await stored(attack.guid)).haltCheck).toMatchObject({ verified: true, stopped: 3, total: 3 });
    expect(read(cardOf(attack.guid))).toContain('Halt verified: 3 of 3 targets stopped');
    expect(read(cardOf(attack.guid))).not.toContain('so far');
  });

  it('takes Halt again off a card whose second halt was verified while the poll pass saved it', async () => {
    const id = `U0RACE${storeUrl.slice(0, 3).toUpperCase()}2`;
    const { attack, card } = await haltedAttack(id);
    const deaf = hosts[1]!;
    stack.sim.ignoreHalts(deaf);
    await card.click('Halt');
    // The halt runs after the click's ack: its check begins before the clock moves on.
    await stack.replySaying(id, channel, 'Halt requested');
    stack.advanceClock(5_000);
    await stack.poll();
    stack.advanceClock(60_000);
    await stack.poll();
    expect(
      cardOf(attack.guid)
        .buttons()
        .map((b) => b.text),
    ).toContain('Halt again');

    stack.sim.ignoreHalts(deaf, false);
    await stack.person(id).channel(id).messages()[0]!.click('Halt again');
    await stack.fake.waitFor(
      () => stack.sim.state.attacks.get(attack.guid)!.timeline.holdouts?.get(1) !== undefined,
      'the second halt reaching the target',
    );
    stack.advanceClock(5_000);
    await pollRacingHaltCheck(stack, attack.guid);

    expect((await stored(attack.guid)).haltCheck).toMatchObject({ verified: true, stuck: false });
    expect(
      cardOf(attack.guid)
        .buttons()
        .map((b) => b.text),
    ).not.toContain('Halt again');
    expect(read(cardOf(attack.guid))).toContain('Halt verified: 3 of 3 targets stopped');
  });
}

describe('the poll pass and the halt check, on the memory store', () => {
  racesOn('memory://');
});

describe('the poll pass and the halt check, on SQLite', () => {
  racesOn(`sqlite://${join(mkdtempSync(join(tmpdir(), 'faultline-writers-')), 'bot.db')}`);
});

const redisUrl = process.env.REDIS_URL;
describe.skipIf(!redisUrl)('the poll pass and the halt check, on Redis', () => {
  racesOn(redisUrl!);
});
