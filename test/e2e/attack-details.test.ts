import { describe, expect, it } from 'vitest';
import { Stack, stackForFile, trackerEnv } from './harness.ts';

/**
 * Details on an attack card, end to end: the execution on each target, and how many tickets the
 * attack has, read when Details is opened.
 */

const read = Stack.read;
const where = 'C0DETAILS';
let stack: Stack;
stackForFile({ env: trackerEnv }, (started) => (stack = started));

const startedAttack = (personId: string, text: string) => stack.startAttack(personId, text, where);
const fileOpenTicket = (personId: string) => stack.fileOpenTicket(personId);
let n = 0;
const nextPerson = () => `U0DETAILS${++n}`;
const users = () => stack.sim.seed.users;

describe('Details on an attack card', () => {
  it('shows the execution on each target and how many tickets the attack has', async () => {
    const lead = nextPerson();
    const person = await stack.login(lead, users().owner, { team: 'Platform' });
    const { attack, card } = await startedAttack(lead, 'attack cpu -l 300 --target-tags role=web');
    await person
      .channel(where)
      .messages()
      .find((m) => m.ts === card.ts)!
      .click('File ticket');
    await fileOpenTicket(lead);
    stack.advanceClock(10_000);

    const before = person.ephemerals(where).length;
    await person
      .channel(where)
      .messages()
      .find((m) => m.ts === card.ts)!
      .click('Details');
    const details = read(
      await stack.fake.waitFor(
        () => person.ephemerals(where).length > before && person.ephemerals(where).at(-1),
        'the details',
      ),
    );
    expect(details).toContain(attack.guid);
    expect(details).toMatch(/Executions \(2\)/);
    expect(details).toMatch(/platform-web-1 :[a-z_]+: Running/);
    expect(details).toMatch(/platform-web-2 :[a-z_]+: Running/);
    expect(details).toContain('1 ticket filed for this attack.');
    expect(stack.sim.requests.some((r) => r.path === '/tracker/issues/count')).toBe(true);
  });

  it('says briefly that a team without a tracker integration has no tickets', async () => {
    const lead = nextPerson();
    const person = await stack.login(lead, users().owner, { team: 'Payments' });
    const { card } = await startedAttack(lead, 'attack cpu -l 300');
    const before = person.ephemerals(where).length;
    await person
      .channel(where)
      .messages()
      .find((m) => m.ts === card.ts)!
      .click('Details');
    const details = read(
      await stack.fake.waitFor(
        () => person.ephemerals(where).length > before && person.ephemerals(where).at(-1),
        'the details',
      ),
    );
    expect(details).toContain('No tickets: the team has no tracker integration.');
    expect(details).toMatch(/payments-web-1/);
  });
});
