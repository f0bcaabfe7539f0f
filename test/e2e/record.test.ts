import { describe, expect, it } from 'vitest';
import { Stack, stackForFile, trackerEnv } from './harness.ts';

/**
 * What happens to an attack is recorded once, and shows everywhere it belongs: on its card, in
 * its thread, in the game day's timeline, in the audit log and in the metrics.
 */

const read = Stack.read;
const where = 'C0RECORD';
let stack: Stack;
stackForFile({ env: { ATTACK_CHANNELS: where, ...trackerEnv } }, (started) => (stack = started));

let n = 0;
const nextPerson = () => `U0RECORD${++n}`;
const users = () => stack.sim.seed.users;
const audits = (event: string) => stack.logs.filter((l) => l['audit'] === event);

/** The value of one series of the attack events counter, 0 when it has not been counted. */
async function counted(event: string, cause = ''): Promise<number> {
  const metric = await stack.built.metrics.registry.getSingleMetric('faultline_attack_events_total')!.get();
  return metric.values.find((v) => v.labels['event'] === event && (v.labels['cause'] ?? '') === cause)?.value ?? 0;
}

describe('what happens to an attack', () => {
  it('shows a start, a note, a ticket, a halt and the end on the card, its thread, the timeline, the audit log and the metrics', async () => {
    const lead = nextPerson();
    const person = await stack.login(lead, users().owner, { team: 'Platform' });
    expect(read(await stack.ask(lead, 'gameday start Record drill', { channel: where }))).toContain('started');
    const gameDay = stack.fake
      .channel(where)
      .messages()
      .find((m) => read(m).includes('Game day: Record drill'))!;
    const timeline = () => stack.fake.channel(where).thread(gameDay.ts).map(read).join('\n');
    const before = {
      started: await counted('started'),
      note: await counted('note'),
      ticket: await counted('ticket'),
      halted: await counted('halted', 'person'),
      ended: await counted('ended'),
    };

    const { attack, card } = await stack.startAttack(lead, 'attack cpu -l 300 -c 1', where);
    const thread = () => stack.fake.channel(where).thread(card.ts).map(read).join('\n');
    await stack.ask(lead, `note ${attack.guid} p99 doubled`, { channel: where });
    await person
      .channel(where)
      .messages()
      .find((m) => m.ts === card.ts)!
      .click('File ticket');
    const ticket = await stack.fileOpenTicket(lead);
    await stack.fake.waitFor(() => person.modal()?.title === 'Ticket filed', 'the filed confirmation');
    await stack.ask(lead, `halt ${attack.guid}`, { channel: where });
    stack.advanceClock(60_000);
    await stack.poll();

    const shown = read(
      stack.fake
        .channel(where)
        .messages()
        .find((m) => m.ts === card.ts),
    );
    expect(shown).toContain('p99 doubled');
    expect(shown).toContain('User Halted');
    expect(thread()).toContain(`noted: p99 doubled`);
    expect(thread()).toMatch(new RegExp(`<@${lead}> filed .*${ticket.key}`));
    expect(thread()).toContain(`<@${lead}> halted this attack`);
    const named = `cpu ${attack.guid}`;
    expect(timeline()).toContain(`<@${lead}> started ${named}`);
    expect(timeline()).toContain(`<@${lead}> on the ${named} attack: p99 doubled`);
    expect(timeline()).toMatch(new RegExp(`<@${lead}> filed .*${ticket.key}.* for the ${named} attack`));
    expect(timeline()).toContain(`<@${lead}> halted the ${named} attack`);
    for (const event of ['attack_started', 'note_added', 'ticket_filed', 'attack_halted'])
      expect(audits(event).filter((l) => l['attack'] === attack.guid)).toHaveLength(1);
    expect({
      started: await counted('started'),
      note: await counted('note'),
      ticket: await counted('ticket'),
      halted: await counted('halted', 'person'),
      ended: await counted('ended'),
    }).toEqual({
      started: before.started + 1,
      note: before.note + 1,
      ticket: before.ticket + 1,
      halted: before.halted + 1,
      ended: before.ended + 1,
    });
  });
});
