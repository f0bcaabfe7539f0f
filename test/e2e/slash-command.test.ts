import { describe, expect, it } from 'vitest';
import { Stack, stackForFile, trackerEnv } from './harness.ts';

const channel = 'C0GENERAL';
let stack: Stack;
stackForFile({ command: '/other', env: trackerEnv }, (started) => (stack = started));

/** Every text the bot sent to Slack so far: messages, replies, modals and App Home. */
const everythingSent = () => JSON.stringify(stack.fake.calls);

describe('a slash command other than /chaos', () => {
  it('is the one every hint names: help, login, App Home and tickets', async () => {
    const id = 'U0OTHERCMD';
    const person = stack.person(id);

    const help = await stack.ask(id, 'help', { channel });
    expect(Stack.read(help)).toContain('/other login');

    const forgetful = stack.person('U0OTHERCMD2', { email: stack.sim.seed.users.owner.email });
    await forgetful.command('login');
    const login = await stack.fake.waitFor(() => forgetful.modal(), 'the login modal');
    await login.fill('Email', stack.sim.seed.users.owner.email).click('Forgot password');
    const reset = await stack.fake.waitFor(
      () => forgetful.modal()?.title === 'Reset password' && forgetful.modal(),
      'the reset form',
    );
    await reset.submit();
    await stack.fake.waitFor(
      () => Stack.read(forgetful.modal()).includes('log in again with /other login'),
      'the reset confirmation',
    );

    await stack.login(id, stack.sim.seed.users.owner, { team: 'Platform' });
    stack.sim.addAttacks(stack.sim.seed.teams.platform.id, 1, { lengthSeconds: 10 });
    stack.advanceClock(10 * 60_000);
    const home = await stack.openHome(id);
    expect(Stack.read(home)).toContain('/other list completed');

    const plainMessage = await stack.built.services.slack.post(channel, { text: 'deploy finished' });
    await person.shortcut('file_ticket', { channel, ts: plainMessage.ts });
    await stack.fake.waitFor(
      () => Stack.read(person.modal()).includes('use /other ticket <attack id>'),
      'the explanation',
    );

    expect(everythingSent()).toContain('/other');
    expect(everythingSent()).not.toContain('/chaos');
  });
});
