import { describe, expect, it } from 'vitest';
import { type Stack, stackForFile } from './harness.ts';
import { startedCard } from '../support/cards.ts';
import type { PollReport } from '../../src/attacks/poller.ts';

let stack: Stack;
stackForFile({}, (started) => (stack = started));

const channel = 'C0GENERAL';
const cardCount = 200;

/** Live cards for attacks the simulator runs, posted in the channel and saved as a start does. */
async function liveCards(personId: string): Promise<void> {
  const team = stack.sim.seed.teams.platform;
  const guids = stack.sim.addAttacks(team.id, cardCount, { createUser: stack.sim.seed.users.solo.email });
  for (const guid of guids) {
    const posted = await stack.built.services.slack.post(channel, { text: `card ${guid}` });
    const card = startedCard({
      guid,
      teamId: team.id,
      teamName: team.name,
      channel,
      ts: posted.ts,
      startedBy: { workspaceId: stack.fake.teamId, userId: personId, userName: personId },
      startedByPlatform: stack.sim.seed.users.solo.email,
    });
    await stack.built.services.attacks.cards.savePosted(card);
  }
}

describe('a poll pass over many cards', () => {
  it('lets a slash command that arrives meanwhile be answered before the pass ends', async () => {
    const id = 'U0DURINGPOLL';
    await stack.login(id, stack.sim.seed.users.solo);
    await liveCards(id);
    // Past the simulator's start-up stages: every card has changed and is redrawn by the pass.
    stack.advanceClock(10_000);

    // Cards the pass has redrawn so far, and how many it had when the command was answered.
    let redrawn = 0;
    let redrawnWhenAnswered: number | undefined;
    let command: Promise<unknown> | undefined;
    const { events } = stack.built;
    const record = events.record.bind(events);
    // The command goes out as the pass starts redrawing cards, the store answering without I/O.
    events.record = async (event) => {
      command ??= stack
        .person(id)
        .command('help')
        .then((answer) => {
          expect(answer.status).toBe(200);
          redrawnWhenAnswered = redrawn;
        });
      const shown = await record(event);
      if (event.kind === 'changed') redrawn++;
      return shown;
    };
    try {
      // The pass as the scheduler runs it, which hands it the breath it takes between cards.
      const report = (await stack.bot.jobs.runNow('refresh-cards')).get('refresh-cards') as PollReport;
      expect(report.updated).toBe(cardCount);
      await command;
    } finally {
      events.record = record;
    }
    // Answered while the pass was still redrawing cards, not once it had redrawn them all.
    expect(redrawnWhenAnswered).toBeLessThan(cardCount);
    await stack.built.services.slack.flush();
  });
});
