import { describe, expect, it } from 'vitest';
import { Stack, stackForFile } from './harness.ts';

/**
 * Halt receipts: every verified halt keeps, target by target, when the halt was sent, when the
 * platform accepted it, and when each target's execution ended. The simulator's stop delays make
 * the targets stop at different times; its stages last two seconds, so a halted target stops four
 * seconds after the halt, plus its delay.
 */
const read = Stack.read;
const channel = 'C0GENERAL';
let stack: Stack;
stackForFile({ env: { HALT_SLO_SECONDS: '90' } }, (started) => (stack = started));

const hosts = ['platform-web-1', 'platform-web-2', 'platform-db-1'];
const cardOf = (guid: string) => stack.cardIn(channel, guid)!;

async function haltedWithDelays(id: string, deaf?: string) {
  await stack.login(id, stack.sim.seed.users.owner, { team: 'Platform' });
  return haltWithDelays(id, deaf);
}

async function haltWithDelays(id: string, deaf?: string) {
  const { attack, card } = await stack.startAttack(id, `attack cpu -l 600 --target-hosts ${hosts.join(',')}`, channel);
  stack.advanceClock(10_000);
  stack.sim.delayStop('platform-web-2', 1_000);
  stack.sim.delayStop('platform-db-1', 2_200);
  if (deaf) stack.sim.ignoreHalts(deaf);
  await card.click('Halt');
  await stack.fake.waitFor(
    () =>
      stack
        .person(id)
        .ephemerals(channel)
        .find((m) => read(m).includes('Halt requested')),
    'the reply to the halt',
  );
  return attack;
}

describe('halt receipts', () => {
  it('times each target from the halt to its stop, and the card names the slowest', async () => {
    const id = 'U0RECEIPT1';
    const attack = await haltedWithDelays(id);
    stack.advanceClock(5_000);
    await stack.poll();
    expect(read(cardOf(attack.guid))).toContain('Halt sent: 2 of 3 targets stopped so far');

    stack.advanceClock(5_000);
    await stack.poll();
    expect(read(cardOf(attack.guid))).toContain(
      'Halt verified: 3 of 3 targets stopped in 6.2 s (slowest platform-db-1)',
    );
    const check = (await stack.deps.cards.get(attack.guid))!.haltCheck!;
    // Accepted when the platform's answer arrived, after it was sent.
    expect(Date.parse(check.acceptedAt!)).toBeGreaterThanOrEqual(Date.parse(check.haltedAt));
    expect(check.stops?.map((stop) => stop.target)).toEqual(['platform-db-1', 'platform-web-2', 'platform-web-1']);

    // `show` carries each target's time.
    const shown = read(await stack.ask(id, `show ${attack.guid}`, { channel }));
    expect(shown).toContain('platform-db-1 6.2 s, platform-web-2 5.0 s, platform-web-1 4.0 s');
  });

  it('lists the last halts with their times, the median and the slowest', async () => {
    const id = 'U0RECEIPT2';
    const attack = await haltedWithDelays(id);
    stack.advanceClock(10_000);
    await stack.poll();

    const listed = read(await stack.ask(id, 'halts', { channel }));
    expect(listed).toContain('Last halts of team Platform');
    expect(listed).toContain(`${attack.guid.slice(0, 8)} cpu`);
    expect(listed).toMatch(
      /3 of 3 targets stopped · accepted in \d+\.\d s · median 5\.0 s · slowest 6\.2 s \(platform-db-1\)/,
    );
  });

  it('escalates a target still running past HALT_SLO_SECONDS, not before', async () => {
    const id = 'U0RECEIPT3';
    const attack = await haltedWithDelays(id, 'platform-web-1');
    stack.advanceClock(65_000);
    await stack.poll();
    expect(read(cardOf(attack.guid))).toContain('Halt sent: 2 of 3 targets stopped so far');

    stack.advanceClock(30_000);
    await stack.poll();
    expect(read(cardOf(attack.guid))).toContain('still running 90 s after the halt: platform-web-1');
    stack.sim.ignoreHalts('platform-web-1', false);
  });

  it("carries each target's time into the game-day summary and the report", async () => {
    const id = 'U0RECEIPT4';
    await stack.login(id, stack.sim.seed.users.owner, { team: 'Platform' });
    expect(read(await stack.ask(id, 'gameday start Receipt drill', { channel }))).toContain('started');
    const attack = await haltWithDelays(id);
    stack.advanceClock(10_000);
    await stack.poll();
    const filesBefore = stack.fake.files().length;
    expect(read(await stack.ask(id, 'gameday end', { channel }))).toContain('ended');

    const summary = stack.fake
      .channel(channel)
      .messages()
      .find((m) => read(m).includes('Game day summary: Receipt drill'))!;
    expect(read(summary)).toContain('halt verified: platform-db-1 6.2 s, platform-web-2 5.0 s, platform-web-1 4.0 s');
    const file = await stack.fake.waitFor(() => stack.fake.files().slice(filesBefore)[0], 'the report file');
    const section = file.text.split(/\n(?=#{2,3} )/).find((part) => part.includes(attack.guid)) ?? '';
    expect(section).toMatch(
      /- \*\*Halt:\*\* verified; sent .+ UTC, accepted .+ UTC; 3 of 3 targets stopped; median 5\.0 s, slowest 6\.2 s \(`platform-db-1`\)/,
    );
    expect(section).toMatch(/- `platform-db-1`: stopped .+ UTC \(6\.2 s after the halt\)/);
  });
});
