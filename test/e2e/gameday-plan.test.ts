import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { gameDayChannel, readPlain } from './gamedayChannel.ts';
import { monitoringEnv, Stack, stackForFile, trackerEnv } from './harness.ts';

/**
 * A game day run from a plan, end to end: steps planned before and during it (a command and the
 * Add step form) and reordered; each counts down in the channel where anyone may delay, veto or
 * start it now; at zero it starts with the session of whoever pressed Run; when its attack ends
 * the channel says whether the hypothesis held; the summary and the report have the steps.
 */

const read = readPlain;
const where = 'C0PLAN';
let stack: Stack;
stackForFile({ env: trackerEnv }, (started) => (stack = started));
const { channelMessages, gameCardOf, countdownIn, waitForText, answer, reportFile } = gameDayChannel(
  () => stack,
  where,
);

let n = 0;
const nextPerson = () => `U0PLAN${++n}`;
const users = () => stack.sim.seed.users;
const creates = () =>
  stack.sim.requests.filter((r) => r.method === 'POST' && (r.path === '/attacks/new' || r.path === '/attacks'));
let filesBefore = 0;
beforeEach(() => {
  filesBefore = stack.fake.files().length;
});

const countdownOf = (personId: string, step: number) =>
  channelMessages(personId)
    .filter((m) => read(m).includes(`Step ${step} of`))
    .at(-1);
const timeline = (personId: string, title: string) =>
  stack.person(personId).channel(where).thread(gameCardOf(personId, title)!.ts).map(read).join('\n');

/** Lets the step's attack run to its end (the simulator's 30 s attacks), and the cards learn it. */
async function runToEnd() {
  stack.advanceClock(60_000);
  await stack.poll();
  await stack.poll();
}

describe('a planned game day', () => {
  it('runs three steps, one vetoed, one held, one not held, into its summary and report', async () => {
    const lead = nextPerson();
    const colleague = nextPerson();
    const person = await stack.login(lead, users().owner, { team: 'Platform' });
    await stack.login(colleague, users().owner, { team: 'Platform' });
    const title = 'Checkout plan drill';

    // Planned before the game day starts: a saved attack, by command.
    await stack.ask(lead, 'save web-cpu cpu -l 30 -c 1 --target-tags role=web', { channel: where });
    expect(
      read(await stack.ask(lead, 'gameday step web-cpu checkout stays under 500 ms p99', { channel: where })),
    ).toContain('Added step 1 to the plan of the next game day');
    expect(read(await stack.ask(lead, 'gameday start Checkout plan drill', { channel: where }))).toContain('started');
    const card = await stack.fake.waitFor(() => gameCardOf(lead, title), 'the game-day card');
    expect(read(card)).toMatch(
      /Plan \(1 step\)\n1\. :white_circle: web-cpu · checkout stays under 500 ms p99 · planned/,
    );

    // During it: a typed attack through the Add step form, and one by command.
    await card.click('Add step');
    const form = await stack.fake.waitFor(
      () => (person.modal()?.callbackId === 'plan_step' ? person.modal() : undefined),
      'the Add step form',
    );
    await form
      .fill('Or an attack', 'memory -l 30 -p 50 --target-tags role=web')
      .fill('Hypothesis', 'the web hosts keep serving under memory pressure')
      .submit();
    await waitForText('step 2 on the card', () => read(gameCardOf(lead, title)).includes('2 steps'));
    expect(
      read(
        await stack.ask(
          lead,
          'gameday step --attack "latency --target-hosts platform-web-1 -l 30 -m 300" retries hide the latency',
          { channel: where },
        ),
      ),
    ).toContain('Added step 3');
    // Reordered: the latency step goes second.
    const moved = read(await stack.ask(lead, 'gameday move 3 2', { channel: where }));
    expect(moved).toMatch(/2\. :white_circle: latency · retries hide the latency[\s\S]*3\. :white_circle: memory/);
    // The first step has nowhere up to go: nothing claims it moved.
    const stays = read(await stack.ask(lead, 'gameday move 1 1', { channel: where }));
    expect(stays).toContain('Step 1 stays where it is');
    expect(stays).not.toContain('Moved.');
    expect(creates()).toHaveLength(0);

    // Step 1: Run next step on the card; someone else delays it; at zero it starts with the lead's session.
    await gameCardOf(lead, title)!.click('Run next step');
    const countdown = await stack.fake.waitFor(() => countdownOf(colleague, 1), 'the countdown of step 1');
    expect(read(countdown)).toMatch(/Step 1 of 3: web-cpu: cpu on .*role=web.*, starts in 60 s/);
    expect(countdown.buttons().map((b) => b.text)).toEqual(['Start now', 'Delay 5 min', 'Skip', 'Veto']);
    await countdown.click('Delay 5 min');
    await waitForText('the delay in the timeline', () =>
      timeline(lead, title).includes(`<@${colleague}> delayed step 1`),
    );
    stack.advanceClock(61_000);
    await stack.poll();
    expect(creates()).toHaveLength(0);
    stack.advanceClock(5 * 60_000);
    await stack.poll();
    await waitForText('the attack of step 1', () => creates().length === 1);
    const first = [...stack.sim.state.attacks.values()].at(-1)!;
    expect([first.type, ...first.args]).toEqual(['cpu', '-l', '30', '-c', '1']);
    expect(first.createUser).toBe(users().owner.email);
    await waitForText('step 1 running on the card', () =>
      /1\. :large_green_circle: web-cpu .* running \(/.test(read(gameCardOf(lead, title))),
    );
    await runToEnd();
    await answer(lead, title, 1, 'Held', 'p99 peaked at 310 ms');
    await waitForText('the answer in the timeline', () =>
      timeline(lead, title).includes(`<@${lead}> on step 1 (web-cpu): the hypothesis held: p99 peaked at 310 ms`),
    );

    // Step 2: vetoed by someone else, with why; nothing starts.
    expect(read(await stack.ask(lead, 'gameday next', { channel: where }))).toContain('Step 2 of 3 counts down');
    const second = await stack.fake.waitFor(() => countdownOf(colleague, 2), 'the countdown of step 2');
    await second.click('Veto');
    const veto = await stack.fake.waitFor(
      () => (stack.person(colleague).modal()?.callbackId === 'step_veto' ? stack.person(colleague).modal() : undefined),
      'the veto form',
    );
    await veto.fill('Why', 'the payments team is deploying').submit();
    await waitForText('the veto on the countdown', () =>
      read(countdownOf(lead, 2)).includes(`vetoed by <@${colleague}>: the payments team is deploying`),
    );
    expect(countdownOf(lead, 2)!.buttons()).toEqual([]);
    stack.advanceClock(120_000);
    await stack.poll();
    expect(creates()).toHaveLength(1);
    expect(timeline(lead, title)).toContain(`<@${colleague}> vetoed step 2 (latency): the payments team is deploying`);

    // Step 3: started at once; its hypothesis did not hold.
    expect(read(await stack.ask(lead, 'gameday next', { channel: where }))).toContain('Step 3 of 3 counts down');
    await (await stack.fake.waitFor(() => countdownOf(colleague, 3), 'the countdown of step 3')).click('Start now');
    await waitForText('the attack of step 3', () => creates().length === 2);
    await waitForText('step 3 running on the card', () =>
      /3\. :large_green_circle: memory .* running \(/.test(read(gameCardOf(lead, title))),
    );
    await runToEnd();
    await answer(colleague, title, 3, 'Not held', 'two hosts were OOM-killed');

    expect(read(await stack.ask(lead, 'gameday end', { channel: where }))).toContain('ended');
    const summary = await stack.fake.waitFor(
      () => channelMessages(lead).find((m) => read(m).includes(`Game day summary: ${title}`)),
      'the summary',
    );
    const steps = read(summary);
    expect(steps).toMatch(
      /Steps\n1\. web-cpu · checkout stays under 500 ms p99 · :white_check_mark: Successful · :white_check_mark: held · “p99 peaked at 310 ms”/,
    );
    expect(steps).toMatch(
      new RegExp(`2\\. latency · retries hide the latency · vetoed by <@${colleague}>: the payments team is deploying`),
    );
    expect(steps).toMatch(
      /3\. memory · the web hosts keep serving under memory pressure · .*Successful · :x: did not hold · “two hosts were OOM-killed”/,
    );

    const report = await reportFile(filesBefore);
    expect(report.text).toContain('| # | Attack | Hypothesis | Outcome | Held | Observation | Tickets |');
    expect(report.text).toMatch(
      /\| 1 \| web-cpu \(cpu\) `[^`]+` \| checkout stays under 500 ms p99 \| Successful \| held \(.+\) \| p99 peaked at 310 ms \|/,
    );
    expect(report.text).toMatch(
      /\| 2 \| latency \| retries hide the latency \| vetoed by .+: the payments team is deploying \|/,
    );
    expect(report.text).toMatch(
      /\| 3 \| memory `[^`]+` \| the web hosts keep serving under memory pressure \| Successful \| not held \(.+\) \| two hosts were OOM-killed \|/,
    );
    // The ticket about the whole game day has the plan too, each step with its verdict, by name.
    await summary.click('File ticket for the game day');
    const ticket = await stack.fileOpenTicket(lead);
    expect(ticket.description).toMatch(
      /1\. web-cpu: checkout stays under 500 ms p99 · Successful · held, said [^:\n]+: p99 peaked at 310 ms/,
    );
    expect(ticket.description).toMatch(
      /2\. latency: retries hide the latency · vetoed by [^:\n]+: the payments team is deploying/,
    );
    expect(ticket.description).toMatch(/3\. memory: .* · did not hold, said [^:\n]+: two hosts were OOM-killed/);
    expect(ticket.description).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:/);
  });

  it('starts at zero through the same checks as any start: a freeze refuses it, says why, and nothing is sent', async () => {
    const lead = nextPerson();
    await stack.login(lead, users().owner, { team: 'Platform' });
    await stack.ask(lead, 'gameday start Frozen plan drill', { channel: where });
    await stack.ask(lead, 'gameday step --attack "cpu -l 30 --target-tags role=web" checkout holds', {
      channel: where,
    });
    await stack.ask(lead, 'gameday next', { channel: where });
    await stack.fake.waitFor(() => countdownOf(lead, 1), 'the countdown');
    await stack.ask(lead, 'freeze --reason "incident"', { channel: where });
    stack.advanceClock(61_000);
    await stack.poll();
    await waitForText('the refusal on the countdown', () => /not started: .*frozen/i.test(read(countdownOf(lead, 1))));
    expect(creates()).toHaveLength(0);
    expect(timeline(lead, 'Frozen plan drill')).toMatch(/Step 1 \(cpu\) did not start: .*frozen/i);
  });

  it('answers every wrong form with what to type, and plans nothing', async () => {
    const lead = nextPerson();
    await stack.login(lead, users().owner, { team: 'Platform' });
    const cases: [string, RegExp][] = [
      ['gameday step', /Give the saved attack, then the hypothesis/],
      ['gameday step web-cpu', /Say what should hold while the attack runs/],
      ['gameday step nosuch checkout holds', /has no saved attack named nosuch/],
      ['gameday step --attack "warp -l 30" checkout holds', /is not an attack type/],
      ['gameday step --attack "cpu -l 30" ', /Say what should hold/],
      ['gameday step --atack "cpu -l 30" holds', /Did you mean --attack\?/],
      ['gameday move 1', /Give the position/],
      ['gameday move one 2', /is not a step/],
      ['gameday move 4 1', /The plan has no step 4/],
      ['gameday auto maybe', /Say on or off/],
      ['gameday next', /Start the game day first/],
      ['gameday auto on', /Start the game day first/],
    ];
    for (const [text, expected] of cases)
      expect(Stack.read(await stack.ask(lead, text, { channel: where })), text).toMatch(expected);
    expect(read(await stack.ask(lead, 'gameday plan', { channel: where }))).toContain('has no steps yet');
  });

  it('stops a countdown when the game day ends first: the step never starts, and its card says so', async () => {
    const lead = nextPerson();
    await stack.login(lead, users().owner, { team: 'Platform' });
    await stack.ask(lead, 'gameday start Short drill', { channel: where });
    await stack.ask(lead, 'gameday step --attack "cpu -l 30 --target-tags role=web" holds', { channel: where });
    await stack.ask(lead, 'gameday next', { channel: where });
    await stack.fake.waitFor(() => countdownOf(lead, 1), 'the countdown');
    expect(read(await stack.ask(lead, 'gameday end', { channel: where }))).toContain('ended');
    await waitForText('the countdown stopped', () =>
      read(countdownOf(lead, 1)).includes('not run: the game day ended during its countdown'),
    );
    expect(countdownOf(lead, 1)!.buttons()).toEqual([]);
    stack.advanceClock(120_000);
    await stack.poll();
    expect(creates()).toHaveLength(0);
  });

  it('in automatic mode counts the next step down once the previous hypothesis is answered, and pauses when one did not hold', async () => {
    const lead = nextPerson();
    await stack.login(lead, users().owner, { team: 'Platform' });
    const title = 'Automatic drill';
    await stack.ask(lead, `gameday start ${title}`, { channel: where });
    await stack.ask(lead, 'gameday step --attack "cpu -l 30 --target-tags role=web" first holds', { channel: where });
    await stack.ask(lead, 'gameday step --attack "memory -l 30 -p 50 --target-tags role=web" second holds', {
      channel: where,
    });
    await stack.ask(lead, 'gameday step --attack "cpu -l 30 -c 2 --target-tags role=web" third holds', {
      channel: where,
    });
    expect(read(await stack.ask(lead, 'gameday auto on', { channel: where }))).toContain(
      'Automatic mode is on: when an attack ends, the next step counts down after the answer on its hypothesis',
    );
    await stack.poll();
    await stack.fake.waitFor(() => countdownIn(lead, title, 1), 'the first countdown, by itself');
    stack.advanceClock(61_000);
    await stack.poll();
    await waitForText('the first attack', () => creates().length === 1);
    await waitForText('step 1 running', () =>
      /1\. :large_green_circle: cpu .* running \(/.test(read(gameCardOf(lead, title))),
    );
    await runToEnd();
    await waitForText('the wait on the card', () =>
      read(gameCardOf(lead, title)).includes("the next step counts down once step 1's hypothesis is answered"),
    );
    // Nobody has answered yet: the next step waits, however long that takes.
    stack.advanceClock(30 * 60_000);
    await stack.poll();
    await stack.poll();
    expect(countdownIn(lead, title, 2)).toBeUndefined();

    await answer(lead, title, 1, 'Held', 'no errors');
    await stack.poll();
    await stack.fake.waitFor(() => countdownIn(lead, title, 2), 'the second countdown, after the answer');
    stack.advanceClock(61_000);
    await stack.poll();
    await waitForText('the second attack', () => creates().length === 2);
    await runToEnd();
    await answer(lead, title, 2, 'Not held', 'errors rose');
    await waitForText('the pause on the card', () =>
      read(gameCardOf(lead, title)).includes('Automatic mode paused: the hypothesis of step 2 did not hold'),
    );
    stack.advanceClock(120_000);
    await stack.poll();
    expect(countdownIn(lead, title, 3)).toBeUndefined();
    expect(creates()).toHaveLength(2);
  });

  it('with --wait counts the next step down when the wait has passed unanswered, and stops it when the answer is Not held', async () => {
    const lead = nextPerson();
    await stack.login(lead, users().owner, { team: 'Platform' });
    const title = 'Waiting drill';
    await stack.ask(lead, `gameday start ${title}`, { channel: where });
    await stack.ask(lead, 'gameday step --attack "cpu -l 30 --target-tags role=web" first holds', { channel: where });
    await stack.ask(lead, 'gameday step --attack "memory -l 30 -p 50 --target-tags role=web" second holds', {
      channel: where,
    });
    expect(read(await stack.ask(lead, 'gameday auto on --wait 5m', { channel: where }))).toContain(
      'after the answer on its hypothesis or 5 min, whichever comes first',
    );
    expect(read(await stack.ask(lead, 'gameday plan', { channel: where }))).toContain(
      'or 5 min, whichever comes first',
    );
    await stack.poll();
    await stack.fake.waitFor(() => countdownIn(lead, title, 1), 'the first countdown');
    stack.advanceClock(61_000);
    await stack.poll();
    await waitForText('the first attack', () => creates().length === 1);
    await runToEnd();
    await waitForText('the wait on the card', () =>
      /once step 1's hypothesis is answered, or until /.test(read(gameCardOf(lead, title))),
    );
    stack.advanceClock(2 * 60_000);
    await stack.poll();
    expect(countdownIn(lead, title, 2)).toBeUndefined();
    stack.advanceClock(3 * 60_000);
    await stack.poll();
    await stack.fake.waitFor(() => countdownIn(lead, title, 2), 'the second countdown, after the wait');
    await answer(lead, title, 1, 'Not held', 'errors rose');
    await waitForText('the second countdown stopped', () => read(countdownIn(lead, title, 2)).includes('planned'));
    stack.advanceClock(120_000);
    await stack.poll();
    expect(creates()).toHaveLength(1);
    expect(timeline(lead, title)).toContain('The countdown of step 2 (memory) was stopped');
  });

  it('keeps a countdown card true: its place in a plan that grew, and its step to its end and its answer', async () => {
    const lead = nextPerson();
    await stack.login(lead, users().owner, { team: 'Platform' });
    const title = 'Card truth drill';
    await stack.ask(lead, `gameday start ${title}`, { channel: where });
    await stack.ask(lead, 'gameday step --attack "cpu -l 30 --target-tags role=web" first holds', { channel: where });
    await stack.ask(lead, 'gameday step --attack "cpu -l 30 -c 2 --target-tags role=web" second holds', {
      channel: where,
    });
    await stack.ask(lead, 'gameday next', { channel: where });
    const card = () => read(countdownIn(lead, title, 1));
    await waitForText('the countdown', () => card().includes('Step 1 of 2'));
    await stack.ask(lead, 'gameday step --attack "memory -l 30 -p 50 --target-tags role=web" third holds', {
      channel: where,
    });
    await waitForText('the countdown of a plan of three', () => card().includes('Step 1 of 3'));
    await countdownIn(lead, title, 1)!.click('Start now');
    await waitForText('step 1 running on its card', () => card().includes('running ('));
    await runToEnd();
    await waitForText('step 1 ended on its card', () => /ended · .*hypothesis not answered yet/.test(card()));
    expect(card()).not.toContain('running');
    await answer(lead, title, 1, 'Held', 'fine');
    await waitForText('the answer on its card', () => card().includes('held'));
    expect(card()).not.toContain('not answered');
  });

  it('refuses a wait it cannot read, and a wait without auto on', async () => {
    const lead = nextPerson();
    await stack.login(lead, users().owner, { team: 'Platform' });
    await stack.ask(lead, 'gameday start Wait words drill', { channel: where });
    expect(read(await stack.ask(lead, 'gameday auto on --wait soon', { channel: where }))).toMatch(/5m/);
    expect(read(await stack.ask(lead, 'gameday auto off --wait 5m', { channel: where }))).toContain(
      '--wait goes with auto on',
    );
    expect(read(await stack.ask(lead, 'help gameday', { channel: where }))).toContain('gameday auto on [--wait 5m]');
    await stack.ask(lead, 'gameday end', { channel: where });
  });
});

describe('a countdown', () => {
  it('survives a restart: the restarted bot starts the step at zero', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'faultline-plan-'));
    const local = await Stack.start({ storeUrl: `sqlite://${join(dir, 'bot.db')}` });
    try {
      await local.login('U0PLANRESTART', local.sim.seed.users.owner, { team: 'Platform' });
      await local.ask('U0PLANRESTART', 'gameday start Restart drill', { channel: where });
      await local.ask('U0PLANRESTART', 'gameday step --attack "cpu -l 30 --target-tags role=web" holds', {
        channel: where,
      });
      await local.ask('U0PLANRESTART', 'gameday next', { channel: where });
      await local.stopBot();
      await local.startBot();
      local.advanceClock(61_000);
      await local.poll();
      await local.fake.waitFor(
        () => local.sim.state.attacks.size === 1 || undefined,
        'the step started after the restart',
      );
    } finally {
      await local.stop();
    }
  });
});

describe('a step a stopped bot left starting', () => {
  it('is said not to have started once a start could not take that long, and the plan goes on', async () => {
    const lead = nextPerson();
    await stack.login(lead, users().owner, { team: 'Platform' });
    await stack.ask(lead, 'gameday start Stopped drill', { channel: where });
    await stack.ask(lead, 'gameday step --attack "cpu -l 30 --target-tags role=web" holds', { channel: where });
    await stack.ask(lead, 'gameday next', { channel: where });
    const day = (await stack.built.services.gamedays.days.running(where))!;
    // As a bot killed between the end of the countdown and the start leaves it.
    await stack.built.services.gamedays.days.plans.change({ gameDayId: day.id }, (plan) => {
      plan.steps[0]!.state = 'running';
    });
    stack.advanceClock(5 * 60_000);
    await stack.poll();
    expect((await stack.built.services.gamedays.days.plans.get({ gameDayId: day.id })).steps[0]!.state).toBe('running');
    stack.advanceClock(6 * 60_000);
    await stack.poll();
    await waitForText('the step not started', () =>
      read(countdownOf(lead, 1)).includes('not started: Faultline stopped before it could start it'),
    );
    expect(creates()).toHaveLength(0);
    expect(read(await stack.ask(lead, 'gameday next', { channel: where }))).toContain('Every step of the plan has run');
  });
});

describe('a step whose start needs a second person', () => {
  it('asks for one at zero, starts when someone approves, and does not start when someone rejects', async () => {
    const local = await Stack.start({ env: { APPROVAL_RULES: 'type=memory' } });
    const ask = (id: string, text: string) => local.ask(id, text, { channel: where });
    const requests = () =>
      local
        .person('U0PLANAPPROVER')
        .channel(where)
        .messages()
        .filter((m) => m.buttons().some((b) => b.text === 'Approve'));
    try {
      await local.login('U0PLANLEAD', local.sim.seed.users.owner, { team: 'Platform' });
      await local.login('U0PLANAPPROVER', local.sim.seed.users.solo);
      await ask('U0PLANLEAD', 'gameday start Approval drill');
      await ask('U0PLANLEAD', 'gameday step --attack "memory -l 30 -p 50 --target-tags role=web" first holds');
      await ask('U0PLANLEAD', 'gameday step --attack "memory -l 30 -p 20 --target-tags role=web" second holds');
      await ask('U0PLANLEAD', 'gameday next');
      local.advanceClock(61_000);
      await local.poll();
      const request = await local.fake.waitFor(() => requests().at(-1), 'the approval request');
      expect(read(request)).toContain('<@U0PLANLEAD> asks to start a memory attack');
      const card = () =>
        read(
          local
            .person('U0PLANLEAD')
            .channel(where)
            .messages()
            .find((m) => read(m).includes('Game day: Approval drill')),
        );
      await local.fake.waitFor(
        () => card().includes('1. :raised_hand: memory') || undefined,
        'step 1 awaiting approval',
      );
      expect(local.sim.state.attacks.size).toBe(0);
      await request.click('Approve');
      await local.fake.waitFor(() => local.sim.state.attacks.size === 1 || undefined, 'the approved attack');
      await local.fake.waitFor(
        () => /1\. :large_green_circle: memory .* running \(/.test(card()) || undefined,
        'step 1 running',
      );

      local.advanceClock(60_000);
      await local.poll();
      await local.poll();
      await ask('U0PLANLEAD', 'gameday next');
      local.advanceClock(61_000);
      await local.poll();
      const second = await local.fake.waitFor(
        () => requests().find((m) => m.ts !== request.ts),
        'the second approval request',
      );
      await second.click('Reject');
      await local.fake.waitFor(
        () =>
          /2\. :x: memory .* not started: <@U0PLANAPPROVER> rejected the approval it needed/.test(card()) || undefined,
        'step 2 not started',
      );
      expect(local.sim.state.attacks.size).toBe(1);
      local.expectClean();
    } finally {
      await local.stop();
    }
  });
});

describe('a step skipped while it waits for a second person', () => {
  it('closes its request, and an Approve of a step that no longer waits starts nothing', async () => {
    const local = await Stack.start({ env: { APPROVAL_RULES: 'type=memory' } });
    const ask = (id: string, text: string) => local.ask(id, text, { channel: where });
    const messages = (id: string) => local.person(id).channel(where).messages();
    const requests = () => messages('U0SKIPAPPROVER').filter((m) => read(m).includes('asks to start a memory attack'));
    const request = (ts: string) => messages('U0SKIPAPPROVER').find((m) => m.ts === ts)!;
    const countdown = (step: number) =>
      messages('U0SKIPLEAD')
        .filter((m) => read(m).includes(`Step ${step} of`))
        .at(-1);
    try {
      await local.login('U0SKIPLEAD', local.sim.seed.users.owner, { team: 'Platform' });
      await local.login('U0SKIPAPPROVER', local.sim.seed.users.solo);
      await ask('U0SKIPLEAD', 'gameday start Skipped approval drill');
      await ask('U0SKIPLEAD', 'gameday step --attack "memory -l 30 -p 50 --target-tags role=web" first holds');
      await ask('U0SKIPLEAD', 'gameday step --attack "memory -l 30 -p 20 --target-tags role=web" second holds');
      await ask('U0SKIPLEAD', 'gameday next');
      local.advanceClock(61_000);
      await local.poll();
      const first = await local.fake.waitFor(() => requests().at(-1), 'the approval request of step 1');
      await local.fake.waitFor(
        () => read(countdown(1)).includes('awaiting approval') || undefined,
        'step 1 awaiting approval',
      );

      // Skipped while it waits: its request closes and says so; Approve is gone.
      await countdown(1)!.click('Skip');
      await local.fake.waitFor(
        () =>
          local
            .person('U0SKIPLEAD')
            .ephemerals(where)
            .some((m) => read(m).includes('Step 1 is skipped')) || undefined,
        'the answer to Skip',
      );
      await local.fake.waitFor(
        () =>
          (read(request(first.ts)).includes('skipped the game-day step') && request(first.ts).buttons().length === 0) ||
          undefined,
        'the request of step 1 closed',
      );

      // Step 2 waits for its approval; its step is then given up on another way (as a skip
      // whose closing of the request did not land would leave it): Approve starts nothing.
      expect(read(await ask('U0SKIPLEAD', 'gameday next'))).toContain('Step 2 of 2 counts down');
      local.advanceClock(61_000);
      await local.poll();
      const second = await local.fake.waitFor(
        () => requests().find((m) => m.ts !== first.ts),
        'the approval request of step 2',
      );
      const day = (await local.built.services.gamedays.days.running(where))!;
      await local.built.services.gamedays.days.plans.change({ gameDayId: day.id }, (plan) => {
        plan.steps[1]!.state = 'skipped';
      });
      await second.click('Approve');
      await local.fake.waitFor(
        () => read(request(second.ts)).includes('no longer waited for it') || undefined,
        'the request of step 2 closed',
      );
      expect(local.sim.state.attacks.size).toBe(0);
      expect(
        (await local.built.services.gamedays.days.plans.get({ gameDayId: day.id })).steps.map((s) => s.state),
      ).toEqual(['skipped', 'skipped']);

      // A start a restarted bot finished late does not make a skipped step run.
      await local.built.services.gamedays.days.stepStarted(
        { channel: where, gameDayId: day.id, stepId: day.plan!.steps[0]!.id },
        'late',
      );
      expect((await local.built.services.gamedays.days.plans.get({ gameDayId: day.id })).steps[0]!.state).toBe(
        'skipped',
      );
      expect(await local.built.services.gamedays.days.plans.stepOfAttack('late')).toBeUndefined();
    } finally {
      await local.stop();
    }
  });
});

describe('the automatic mode and a guard', () => {
  it('pauses when a guard of the game day fires, and counts no further step down', async () => {
    const local = await Stack.start({ env: monitoringEnv });
    const ask = (text: string) => local.ask('U0PLANGUARD', text, { channel: where });
    const messages = () => local.person('U0PLANGUARD').channel(where).messages();
    const card = () => read(messages().find((m) => read(m).includes('Game day: Guarded drill')));
    try {
      await local.login('U0PLANGUARD', local.sim.seed.users.owner, { team: 'Platform' });
      await ask('gameday start Guarded drill --guard a:1234567');
      await ask('gameday step --attack "cpu -l 300 --target-tags role=web" first holds');
      await ask('gameday step --attack "cpu -l 30 --target-tags role=web" second holds');
      await ask('gameday auto on');
      await local.poll();
      local.advanceClock(61_000);
      await local.poll();
      await local.fake.waitFor(
        () => /1\. :large_green_circle: cpu .* running \(/.test(card()) || undefined,
        'step 1 running',
      );
      local.sim.setMonitorState(1234567, 'Alert');
      await local.poll();
      await local.fake.waitFor(
        () =>
          card().includes('Automatic mode paused: guard checkout p99 latency (1234567) fired or is unhealthy') ||
          undefined,
        'the pause on the card',
      );
      local.advanceClock(120_000);
      await local.poll();
      await local.poll();
      expect(messages().some((m) => read(m).includes('Step 2 of 2'))).toBe(false);
      expect(local.sim.state.attacks.size).toBe(1);
      local.expectClean();
    } finally {
      await local.stop();
    }
  });
});

describe('who may change and run a plan', () => {
  /** Clicks a button as a person and gives the answer they read. */
  async function clickAs(
    personId: string,
    message: { ts: string; click(button: string): Promise<unknown> },
    button: string,
  ) {
    const person = stack.person(personId);
    const before = person.ephemerals(where).length;
    // A message of the channel as this person sees it; an ephemeral one is theirs already.
    const shown =
      person
        .channel(where)
        .messages()
        .find((m) => m.ts === message.ts) ?? message;
    await shown.click(button);
    return read(
      await stack.fake.waitFor(
        () => person.ephemerals(where).length > before && person.ephemerals(where).at(-1),
        `the answer to ${button}`,
      ),
    );
  }

  it('refuses an observer, a stranger and another company every change and every start, and lets them delay', async () => {
    const lead = nextPerson();
    await stack.login(lead, users().owner, { team: 'Platform' });
    const observer = nextPerson();
    await stack.login(observer, users().observer, {});
    const stranger = nextPerson();
    const outsider = nextPerson();
    await stack.login(outsider, users().globex, {});
    const title = 'Privileged plan drill';
    await stack.ask(lead, `gameday start ${title}`, { channel: where });
    await stack.ask(lead, 'gameday step --attack "cpu -l 30 --target-tags role=web" first holds', { channel: where });
    await stack.ask(lead, 'gameday step --attack "memory -l 30 -p 50 --target-tags role=web" second holds', {
      channel: where,
    });
    const day = (await stack.built.services.gamedays.days.running(where))!;
    const states = async () =>
      (await stack.built.services.gamedays.days.plans.get({ gameDayId: day.id })).steps.map(
        (s) => `${s.request.type} ${s.state}`,
      );

    // Planning: adding, moving and automatic mode need EXPERIMENTS_RUN on the step's team.
    expect(
      read(
        await stack.ask(observer, 'gameday step --attack "cpu -l 3600" all hosts hold', {
          channel: where,
        }),
      ),
    ).toMatch(/Platform[^\n]*EXPERIMENTS_RUN/);
    expect(read(await stack.ask(observer, 'gameday move 2 1', { channel: where }))).toMatch(/EXPERIMENTS_RUN/);
    expect(read(await stack.ask(stranger, 'gameday move 2 1', { channel: where }))).toContain(
      'You are not logged in to the platform',
    );
    expect(read(await stack.ask(outsider, 'gameday move 2 1', { channel: where }))).toMatch(/Platform/);
    expect(read(await stack.ask(observer, 'gameday auto on', { channel: where }))).toMatch(/EXPERIMENTS_RUN/);
    expect(read(await stack.ask(observer, 'gameday next', { channel: where }))).toMatch(/EXPERIMENTS_RUN/);
    const plan = await stack.ask(observer, 'gameday plan', { channel: where });
    expect(await clickAs(observer, plan, 'Remove')).toMatch(/EXPERIMENTS_RUN/);
    expect(await states()).toEqual(['cpu planned', 'memory planned']);
    expect((await stack.built.services.gamedays.days.plans.get({ gameDayId: day.id })).auto).toBeUndefined();

    // Running: the lead's countdown; Start now needs the privilege, Delay does not.
    await stack.ask(lead, 'gameday next', { channel: where });
    const countdown = await stack.fake.waitFor(() => countdownOf(lead, 1), 'the countdown of step 1');
    expect(await clickAs(observer, countdown, 'Start now')).toMatch(/EXPERIMENTS_RUN/);
    expect(await clickAs(outsider, countdown, 'Start now')).toMatch(/Platform/);
    expect(creates()).toHaveLength(0);
    expect(await clickAs(observer, countdown, 'Delay 5 min')).toContain('Step 1 is delayed by 5 minutes');
    expect(await states()).toEqual(['cpu counting down', 'memory planned']);
    expect(creates()).toHaveLength(0);
    await stack.ask(lead, 'gameday end', { channel: where });
  });

  it('starts a step at zero only if whoever ran it may still run it', async () => {
    const lead = nextPerson();
    await stack.login(lead, users().owner, { team: 'Platform' });
    await stack.ask(lead, 'gameday start Demoted runner drill', { channel: where });
    await stack.ask(lead, 'gameday step --attack "cpu -l 30 --target-tags role=web" holds', { channel: where });
    await stack.ask(lead, 'gameday next', { channel: where });
    await stack.fake.waitFor(() => countdownOf(lead, 1), 'the countdown');
    // The runner's role lost EXPERIMENTS_RUN on the team since (as their session now reads it).
    const actor = { workspaceId: 'T0FAULTLN', userId: lead, userName: lead.toLowerCase() };
    const login = (await stack.built.sessions.get(actor))!;
    await stack.built.sessions.save(actor, {
      ...login.session,
      teams: login.session.teams.map((t) => ({
        ...t,
        privileges: t.privileges.filter((p) => p !== 'EXPERIMENTS_RUN'),
      })),
    });
    stack.advanceClock(61_000);
    await stack.poll();
    await waitForText('the refusal on the countdown', () =>
      /not started: .*EXPERIMENTS_RUN/.test(read(countdownOf(lead, 1))),
    );
    expect(creates()).toHaveLength(0);
    await stack.ask(lead, 'gameday end', { channel: where });
  });
});
