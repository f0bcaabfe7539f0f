import { describe, expect, it, vi } from 'vitest';
import { SlackRecorder } from '../support/slackRecorder.ts';
import { Stack, stackForFile } from './harness.ts';

/**
 * No attack left unwatched: an attack that runs longer than PRESENCE_MINUTES (15 here, the
 * default) asks its watcher "Still watching?" by direct message; no answer within five minutes
 * halts it because nobody was watching. A game day's facilitator answers for its attacks.
 */
const read = Stack.read;
const channel = 'C0GENERAL';
let stack: Stack;
stackForFile({}, (started) => (stack = started));

const minutes = (n: number) => n * 60_000;
const cardOf = (guid: string) => stack.cardIn(channel, guid)!;
const threadOf = (guid: string) => stack.threadOf(channel, guid);
const dms = (id: string) => stack.fake.channel(id).messages();

async function longAttack(id: string) {
  await stack.login(id, stack.sim.seed.users.owner, { team: 'Platform' });
  return stack.startAttack(id, 'attack cpu -l 3600', channel);
}

describe('an attack nobody watches', () => {
  it('asks its starter "Still watching?" after 15 minutes, and halts it when nobody answers within 5', async () => {
    const id = 'U0PRESENT1';
    const { attack } = await longAttack(id);
    stack.advanceClock(minutes(14));
    await stack.poll();
    expect(dms(id)).toEqual([]);

    stack.advanceClock(minutes(1) + 1_000);
    await stack.poll();
    const question = dms(id).at(-1)!;
    expect(read(question)).toContain(`Still watching the cpu attack ${attack.guid}`);
    expect(question.buttons().map((b) => b.text)).toEqual(['Still here', 'Halt']);

    // Four minutes on, it still runs.
    stack.advanceClock(minutes(4));
    await stack.poll();
    expect(stack.sim.state.attacks.get(attack.guid)!.halt).toBeUndefined();

    stack.advanceClock(minutes(1));
    await stack.poll();
    expect(stack.sim.state.attacks.get(attack.guid)!.halt).toMatchObject({ reason: 'nobody was watching' });
    expect(read(cardOf(attack.guid))).toContain('Halted: nobody was watching');
    expect(threadOf(attack.guid).some((line) => line.includes('nobody was watching'))).toBe(true);
    // The question is closed: no button left to answer it with.
    const closed = dms(id).find((m) => m.ts === question.ts)!;
    expect(read(closed)).toContain('was halted: nobody was watching');
    expect(closed.buttons()).toEqual([]);
    expect(
      stack.logs.some((l) => l['audit'] === 'attack_halted' && l['by'] === 'presence' && l['attack'] === attack.guid),
    ).toBe(true);
  });

  it('asks its channel to halt it when nobody answered and no session can halt it, once', async () => {
    const id = 'U0PRESENT5';
    const { attack } = await longAttack(id);
    stack.advanceClock(minutes(15) + 1_000);
    await stack.poll();
    expect(read(dms(id).at(-1))).toContain('Still watching');
    expect(read(await stack.ask(id, 'logout', { channel }))).toContain('Logged out');

    stack.advanceClock(minutes(5));
    await stack.poll();
    await stack.poll();
    expect(stack.sim.state.attacks.get(attack.guid)!.halt).toBeUndefined();
    const asked = stack.fake
      .channel(channel)
      .thread(cardOf(attack.guid).ts)
      .filter((m) => read(m).includes('Nobody watches this attack'));
    expect(asked).toHaveLength(1);
    expect(asked[0]!.buttons().map((b) => b.text)).toEqual(['Halt']);
  });
});

describe('the check itself', () => {
  it('reads the whole card only of an attack that has run long enough to be asked about', async () => {
    const { attack } = await longAttack('U0PRESENT9');
    await stack.poll();
    const reads = vi.spyOn(stack.built.services.attacks.cards, 'getMany');
    stack.advanceClock(minutes(14));
    await stack.built.services.attacks.checkPresence();
    expect(reads.mock.calls.flatMap(([guids]) => guids)).not.toContain(attack.guid);

    stack.advanceClock(minutes(1) + 1_000);
    await stack.built.services.attacks.checkPresence();
    expect(reads.mock.calls.flatMap(([guids]) => guids)).toContain(attack.guid);
    reads.mockRestore();
  });
});

describe('an attack someone watches', () => {
  it('runs on when its starter answers Still here, and asks again 15 minutes after the answer', async () => {
    const id = 'U0PRESENT2';
    const { attack } = await longAttack(id);
    stack.advanceClock(minutes(15) + 1_000);
    await stack.poll();
    const question = dms(id).at(-1)!;
    await stack.person(id).channel(id).messages().at(-1)!.click('Still here');
    await stack.fake.waitFor(
      () => read(dms(id).find((m) => m.ts === question.ts)).includes('runs on'),
      'the question answered',
    );
    expect(
      dms(id)
        .find((m) => m.ts === question.ts)!
        .buttons(),
    ).toEqual([]);

    stack.advanceClock(minutes(6));
    await stack.poll();
    expect(stack.sim.state.attacks.get(attack.guid)!.halt).toBeUndefined();
    expect(dms(id)).toHaveLength(1);

    stack.advanceClock(minutes(9) + 1_000);
    await stack.poll();
    expect(dms(id)).toHaveLength(2);
    expect(read(dms(id).at(-1))).toContain(`Still watching the cpu attack ${attack.guid}`);
    expect(read(cardOf(attack.guid))).not.toContain('nobody was watching');
  });

  it("asks a game day's facilitator for its attacks, whose one answer keeps them all running", async () => {
    const facilitator = 'U0PRESENT3';
    const starter = 'U0PRESENT4';
    await stack.login(facilitator, stack.sim.seed.users.owner, { team: 'Platform' });
    expect(read(await stack.ask(facilitator, 'gameday start Checkout resilience', { channel }))).toContain(
      'Game day Checkout resilience started',
    );
    const { attack: first } = await longAttack(starter);
    const { attack: second } = await stack.startAttack(facilitator, 'attack memory -l 3600', channel);
    stack.advanceClock(minutes(15) + 1_000);
    await stack.poll();
    expect(dms(starter)).toEqual([]);
    const questions = dms(facilitator).filter((m) => read(m).includes('Still watching'));
    expect(questions.map(read).join('\n')).toContain(first.guid);
    expect(questions.map(read).join('\n')).toContain(second.guid);

    await stack
      .person(facilitator)
      .channel(facilitator)
      .messages()
      .find((m) => m.ts === questions[0]!.ts)!
      .click('Still here');
    // The answered question is replaced once the answer is recorded; the other was queued for update before.
    await stack.fake.waitFor(
      () => read(dms(facilitator).find((m) => m.ts === questions[0]!.ts)).includes('runs on'),
      'the answered question',
    );
    await stack.built.services.slack.flush();
    expect(questions.every((q) => read(dms(facilitator).find((m) => m.ts === q.ts)).includes('runs on'))).toBe(true);
    stack.advanceClock(minutes(6));
    await stack.poll();
    expect(stack.sim.state.attacks.get(first.guid)!.halt).toBeUndefined();
    expect(stack.sim.state.attacks.get(second.guid)!.halt).toBeUndefined();
  });
});

describe('a Still here sent again', () => {
  it('answers no later question: the attack nobody watches any more is halted all the same', async () => {
    const id = 'U0PRESENT6';
    const { attack } = await longAttack(id);
    const recorder = await SlackRecorder.start(`http://127.0.0.1:${stack.bot.port}/slack/events`);
    stack.fake.setBotUrl(recorder.url);
    try {
      stack.advanceClock(minutes(15) + 1_000);
      await stack.poll();
      await stack.person(id).channel(id).messages().at(-1)!.click('Still here');
      await stack.fake.waitFor(() => read(dms(id).at(-1)).includes('runs on'), 'the answer');
      const [answer] = recorder.find((fields) => (fields.get('payload') ?? '').includes('presence_here'));

      stack.advanceClock(minutes(15) + 1_000);
      await stack.poll();
      expect(dms(id)).toHaveLength(2);
      // Within the five minutes Slack's signature lasts, the same bytes are a valid request.
      expect((await recorder.send(answer!)).status).toBe(200);
      await stack.fake.waitFor(
        () => stack.logs.some((line) => String(line.msg).includes('came again')),
        'the replay handled',
      );
      stack.advanceClock(minutes(5));
      await stack.poll();
      expect(stack.sim.state.attacks.get(attack.guid)!.halt).toMatchObject({ reason: 'nobody was watching' });
    } finally {
      stack.fake.setBotUrl(`http://127.0.0.1:${stack.bot.port}/slack/events`);
      await recorder.stop();
    }
  });
});
