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
/**
 * A time as the bot says it. The clocks run in real time between the moves of the test, so a
 * time after the halt is checked by its floor (the stages and the delay), never to the tenth.
 */
const t = String.raw`(\d+\.\d) s`;
/** Each target, slowest first, with its time after the halt. */
const eachTarget = new RegExp(`platform-db-1 ${t}, platform-web-2 ${t}, platform-web-1 ${t}`);
const secondsIn = (text: string, pattern: RegExp) => (pattern.exec(text) ?? []).slice(1).map(Number);

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
  await stack.replySaying(id, channel, 'Halt requested');
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
    const verified = new RegExp(`Halt verified: 3 of 3 targets stopped in ${t} \\(slowest platform-db-1\\)`);
    expect(read(cardOf(attack.guid))).toMatch(verified);
    expect(secondsIn(read(cardOf(attack.guid)), verified)[0]).toBeGreaterThanOrEqual(6.2);
    const check = (await stack.built.services.attacks.cards.get(attack.guid))!.haltCheck!;
    // Accepted when the platform's answer arrived, after it was sent.
    expect(Date.parse(check.acceptedAt!)).toBeGreaterThanOrEqual(Date.parse(check.haltedAt));
    // Each target at its execution's end: apart by the simulator's delays, exactly.
    const stopped = Object.fromEntries(check.stops!.map((stop) => [stop.target, Date.parse(stop.at)]));
    expect(check.stops!.map((stop) => stop.target)).toEqual(['platform-db-1', 'platform-web-2', 'platform-web-1']);
    expect(stopped['platform-web-2']! - stopped['platform-web-1']!).toBe(1_000);
    expect(stopped['platform-db-1']! - stopped['platform-web-1']!).toBe(2_200);
    expect(stopped['platform-web-1']! - Date.parse(check.haltedAt)).toBeGreaterThanOrEqual(4_000);

    // `show` carries each target's time.
    const shown = read(await stack.ask(id, `show ${attack.guid}`, { channel }));
    expect(shown).toMatch(eachTarget);
    const [db, web2, web1] = secondsIn(shown, eachTarget);
    expect([db! >= 6.2, web2! >= 5, web1! >= 4]).toEqual([true, true, true]);
  });

  it('lists the last halts with their times, the median and the slowest', async () => {
    const id = 'U0RECEIPT2';
    const attack = await haltedWithDelays(id);
    stack.advanceClock(10_000);
    await stack.poll();

    const listed = read(await stack.ask(id, 'halts', { channel }));
    expect(listed).toContain('Last halts of team Platform');
    expect(listed).toContain(`${attack.guid.slice(0, 8)} cpu`);
    const line = new RegExp(
      `3 of 3 targets stopped · accepted in ${t} · median ${t} · slowest ${t} \\(platform-db-1\\)`,
    );
    expect(listed).toMatch(line);
    const [, median, slowest] = secondsIn(listed, line);
    // The median is web-2's stop, 1.2 s before db-1's (to the tenth, as both are rounded).
    expect(slowest! - median!).toBeCloseTo(1.2, 0);
    expect(median).toBeGreaterThanOrEqual(5);
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
    expect(read(summary)).toMatch(new RegExp(`halt verified: ${eachTarget.source}`));
    const file = await stack.fake.waitFor(() => stack.fake.files().slice(filesBefore)[0], 'the report file');
    const section = file.text.split(/\n(?=#{2,3} )/).find((part) => part.includes(attack.guid)) ?? '';
    expect(section).toMatch(
      new RegExp(
        `- \\*\\*Halt:\\*\\* verified; sent .+ UTC, accepted .+ UTC; 3 of 3 targets stopped; median ${t}, slowest ${t} \\(\`platform-db-1\`\\)`,
      ),
    );
    expect(section).toMatch(new RegExp(`- \`platform-db-1\`: stopped .+ UTC \\(${t} after the halt\\)`));
  });
});
