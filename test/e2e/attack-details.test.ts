import { describe, expect, it } from 'vitest';
import { Stack, stackForFile } from './harness.ts';

/**
 * Details on an attack card, end to end: the execution on each target, and how many tickets the
 * attack has, read when Details is opened.
 */

const read = Stack.read;
const where = 'C0DETAILS';
const trackerEnv = { TRACKER_PROJECT_ID: '10001', TRACKER_ISSUE_TYPE_ID: '10004' };
let stack: Stack;
stackForFile({ env: trackerEnv }, (started) => (stack = started));

let n = 0;
const nextPerson = () => `U0DETAILS${++n}`;
const users = () => stack.sim.seed.users;

async function startedAttack(personId: string, text: string) {
  expect(read(await stack.ask(personId, `${text} --yes`, { channel: where }))).toContain('Started');
  const attack = [...stack.sim.state.attacks.values()].at(-1)!;
  const card = await stack.fake.waitFor(() => stack.person(personId).channel(where).messages().find((m) => m.text().includes(attack.guid)), 'the attack card');
  return { attack, card };
}

/** Files a ticket through the form that is open for the person. */
async function fileOpenTicket(personId: string) {
  const person = stack.person(personId);
  const before = stack.sim.state.trackerIssues.length;
  const modal = await stack.fake.waitFor(() => person.modal()?.callbackId === 'ticket' && person.modal(), 'the ticket form');
  await modal.choose('Priority', 'High').choose('Environment', 'Production').submit();
  await stack.fake.waitFor(() => stack.sim.state.trackerIssues.length > before, 'the ticket in the tracker');
}

describe('Details on an attack card', () => {
  it('shows the execution on each target and how many tickets the attack has', async () => {
    const lead = nextPerson();
    const person = await stack.login(lead, users().owner, { team: 'Platform' });
    const { attack, card } = await startedAttack(lead, 'attack cpu -l 300 --target-tags role=web');
    await person.channel(where).messages().find((m) => m.ts === card.ts)!.click('File ticket');
    await fileOpenTicket(lead);
    stack.advanceClock(10_000);

    const before = person.ephemerals(where).length;
    await person.channel(where).messages().find((m) => m.ts === card.ts)!.click('Details');
    const details = read(await stack.fake.waitFor(() => person.ephemerals(where).length > before && person.ephemerals(where).at(-1), 'the details'));
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
    await person.channel(where).messages().find((m) => m.ts === card.ts)!.click('Details');
    const details = read(await stack.fake.waitFor(() => person.ephemerals(where).length > before && person.ephemerals(where).at(-1), 'the details'));
    expect(details).toContain('No tickets: the team has no tracker integration.');
    expect(details).toMatch(/payments-web-1/);
  });
});
