import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HALT_ALL_CONFIRMED } from '../../src/views/attacks/halt.ts';
import { SlackRecorder } from '../support/slackRecorder.ts';
import { Stack, stackForFile } from './harness.ts';

/**
 * Slack's signature on a request holds for five minutes: anyone who saw one may send it again,
 * byte for byte. Whatever changes state is done once per delivery, so a request sent again never
 * undoes what was done after it.
 */

const read = Stack.read;
const channel = 'C0REPLAY';
let stack: Stack;
stackForFile({}, (started) => (stack = started));

let recorder: SlackRecorder;
beforeEach(async () => {
  recorder = await SlackRecorder.start(`http://127.0.0.1:${stack.bot.port}/slack/events`);
  stack.fake.setBotUrl(recorder.url);
});
afterEach(async () => {
  stack.fake.setBotUrl(`http://127.0.0.1:${stack.bot.port}/slack/events`);
  await recorder.stop();
});

let n = 0;
const nextPerson = () => `U0REPLAY${++n}`;
/** A new person, logged in as a company owner with team Platform selected. */
async function loggedIn(): Promise<string> {
  const id = nextPerson();
  await stack.login(id, stack.sim.seed.users.owner, { team: 'Platform' });
  return id;
}
const repeats = () =>
  stack.logs.filter((line) => line.msg === 'a request came again; what it asked was done once').length;

/** Sends the first recorded request whose fields match again, and waits until the bot has turned it down. */
async function sendAgain(matching: (fields: URLSearchParams) => boolean): Promise<void> {
  const [request] = recorder.find(matching);
  const before = repeats();
  expect((await recorder.send(request!)).status).toBe(200);
  await stack.fake.waitFor(() => repeats() > before, 'the request sent again turned down');
}

const command = (text: string) => (fields: URLSearchParams) => fields.get('text') === text;

describe('a request sent again', () => {
  it('does not switch back to a team chosen before', async () => {
    const id = await loggedIn();
    await stack.ask(id, 'team Payments', { channel });
    await stack.ask(id, 'team Search', { channel });
    await sendAgain(command('team Payments'));
    const whoami = read(await stack.ask(id, 'whoami', { channel }));
    expect(whoami).toContain('Current team\nSearch');
  });

  it('does not remove a watch set after it', async () => {
    const id = await loggedIn();
    await stack.ask(id, 'watch', { channel });
    await stack.ask(id, 'unwatch', { channel });
    await stack.ask(id, 'watch', { channel });
    await sendAgain(command('unwatch'));
    expect(read(await stack.ask(id, 'watch', { channel }))).toContain('already watches team Platform');
    await stack.ask(id, 'unwatch', { channel });
  });

  it('does not end a game day started after it', async () => {
    const id = await loggedIn();
    await stack.ask(id, 'gameday start First drill', { channel });
    expect(read(await stack.ask(id, 'gameday end', { channel }))).toContain('ended');
    await stack.ask(id, 'gameday start Second drill', { channel });
    await sendAgain(command('gameday end'));
    expect(read(await stack.ask(id, 'gameday status', { channel }))).toContain('Second drill · running');
    await stack.ask(id, 'gameday end', { channel });
  });

  it('does not halt an attack started after a Halt all', async () => {
    const id = await loggedIn();
    const prompt = await stack.ask(id, 'halt all', { channel });
    const shown = stack.person(id).ephemerals(channel).length;
    await prompt.click('Halt all attacks', { confirm: true });
    await stack.fake.waitFor(() => stack.person(id).ephemerals(channel).length > shown, 'the Halt all answer');
    const { attack } = await stack.startAttack(id, 'attack cpu -l 300', channel);
    await sendAgain((fields) => fields.get('payload')?.includes(HALT_ALL_CONFIRMED) === true);
    expect(stack.sim.state.attacks.get(attack.guid)!.halt).toBeUndefined();
  });

  it('does not save again an attack deleted after it', async () => {
    const id = await loggedIn();
    await stack.ask(id, 'save replayed cpu -l 30', { channel });
    const list = await stack.ask(id, 'saved', { channel });
    await list.click('Delete', { confirm: true });
    await stack.fake.waitFor(
      async () =>
        (await stack.built.services.attacks.saved.list(stack.sim.seed.teams.platform.id)).length === 0 || undefined,
      'the deletion',
    );
    await sendAgain(command('save replayed cpu -l 30'));
    expect(await stack.built.services.attacks.saved.list(stack.sim.seed.teams.platform.id)).toEqual([]);
  });

  it('does not count down the next step of a plan again', async () => {
    const id = await loggedIn();
    await stack.ask(id, 'gameday start Replayed plan', { channel });
    await stack.ask(id, 'gameday step --attack "cpu -l 30" first holds', { channel });
    await stack.ask(id, 'gameday step --attack "cpu -l 30" second holds', { channel });
    expect(read(await stack.ask(id, 'gameday next', { channel }))).toContain('Step 1 of 2 counts down');
    await stack.fake.waitFor(
      () =>
        stack.fake
          .channel(channel)
          .messages()
          .find((m) => read(m).includes('Step 1 of 2')),
      'the countdown',
    );
    const skip = stack
      .person(id)
      .channel(channel)
      .messages()
      .find((m) => read(m).includes('Step 1 of 2'))!;
    await skip.click('Skip');
    await stack.fake.waitFor(
      async () =>
        (await stack.built.services.gamedays.days.running(channel))?.plan?.steps[0]?.state === 'skipped' || undefined,
      'the skip',
    );
    await sendAgain(command('gameday next'));
    const plan = (await stack.built.services.gamedays.days.running(channel))!.plan!;
    expect(plan.steps.map((step) => step.state)).toEqual(['skipped', 'planned']);
    await stack.ask(id, 'gameday end', { channel });
  });
});

describe('a form corrected after a field error', () => {
  it('adds the step of an Add step form corrected after the platform refused its attack', async () => {
    const id = await loggedIn();
    await stack.ask(id, 'gameday start Corrected form drill', { channel });
    const card = await stack.fake.waitFor(
      () =>
        stack
          .person(id)
          .channel(channel)
          .messages()
          .find((m) => read(m).includes('Game day: Corrected form drill')),
      'the game-day card',
    );
    await card.click('Add step');
    const person = stack.person(id);
    const form = await stack.fake.waitFor(
      () => (person.modal()?.callbackId === 'plan_step' ? person.modal() : undefined),
      'the Add step form',
    );
    await form.fill('Attack', 'warp -l 30').fill('Hypothesis', 'checkout holds').submit();
    expect(Object.values(form.errors()).join(' ')).toContain('is not an attack type');
    const before = repeats();
    await form.fill('Attack', 'cpu -l 30 --target-tags role=web').submit();
    expect(form.errors()).toEqual({});
    expect(repeats()).toBe(before);
    const plan = (await stack.built.services.gamedays.days.running(channel))?.plan;
    expect(plan?.steps.map((step) => [step.request.type, step.hypothesis])).toEqual([['cpu', 'checkout holds']]);
    await stack.ask(id, 'gameday end', { channel });
  });
});
