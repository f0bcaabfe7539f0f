import { beforeEach, describe, expect, it } from 'vitest';
import { gameDayChannel, readPlain } from './gamedayChannel.ts';
import { type Stack, stackForFile } from './harness.ts';

/**
 * A rehearsal (`gameday start --rehearsal`), end to end: the plan runs as in a real game day
 * (countdowns, automatic mode, verdicts, summary, report), each step at zero meets every check of
 * a start (freeze, target, approval) and nothing is created at the platform; every card and
 * message says REHEARSAL; a real game day and a rehearsal never share a channel; and an attack
 * typed meanwhile is real.
 */

const read = readPlain;
const where = 'C0REHEARSE';
let stack: Stack;
stackForFile({ env: { APPROVAL_RULES: 'type=memory' } }, (started) => (stack = started));
const {
  channelMessages,
  gameCardOf: cardOf,
  countdownIn,
  waitForText,
  answer,
  reportFile,
} = gameDayChannel(() => stack, where);

let n = 0;
const nextPerson = () => `U0REHEARSE${++n}`;
const users = () => stack.sim.seed.users;
/** Every attack the platform was asked to create (halts and reads aside), and every one it holds. */
const creates = () =>
  stack.sim.requests.filter((r) => r.method === 'POST' && /^\/(kubernetes\/)?attacks(\/new)?$/.test(r.path));
const nothingCreated = () => {
  expect(creates()).toEqual([]);
  expect(stack.sim.state.attacks.size).toBe(0);
};
let filesBefore = 0;
beforeEach(() => {
  filesBefore = stack.fake.files().length;
});

const thread = (personId: string, title: string) =>
  stack.person(personId).channel(where).thread(cardOf(personId, title)!.ts).map(read);

/** A person logged in as the owner, in team Platform, with a rehearsal of one typed step running. */
async function rehearsing(title: string, attack: string) {
  const lead = nextPerson();
  await stack.login(lead, users().owner, { team: 'Platform' });
  await stack.ask(lead, `gameday start ${title} --rehearsal`, { channel: where });
  await stack.ask(lead, `gameday step --attack "${attack}" the system holds`, { channel: where });
  return lead;
}

describe('a rehearsal', () => {
  it('runs a two-step plan to its report with countdowns, verdicts and REHEARSAL messages, creating nothing', async () => {
    const lead = nextPerson();
    const colleague = nextPerson();
    await stack.login(lead, users().owner, { team: 'Platform' });
    await stack.login(colleague, users().owner, { team: 'Platform' });
    const title = 'Checkout rehearsal';
    await stack.ask(lead, 'save web-cpu cpu -l 30 -c 1 --target-tags role=web', { channel: where });
    await stack.ask(lead, 'gameday step web-cpu checkout stays under 500 ms p99', { channel: where });
    await stack.ask(
      lead,
      'gameday step --attack "latency --target-hosts platform-web-1 -l 30 -m 300" retries hide the latency',
      { channel: where },
    );

    const started = read(await stack.ask(lead, `gameday start ${title} --rehearsal`, { channel: where }));
    expect(started).toContain('REHEARSAL · :rocket: Rehearsal of game day Checkout rehearsal started');
    expect(started).toContain('never created at the platform');
    const card = await stack.fake.waitFor(() => cardOf(lead, title), 'the rehearsal card');
    expect(read(card)).toContain(`REHEARSAL · Game day: ${title}`);
    // Nothing it runs exists, so there is nothing to halt: End stays.
    expect(card.buttons().map((b) => b.text)).toEqual(['Run next step', 'Add step', 'End game day']);
    expect(read(await stack.ask(lead, 'gameday plan', { channel: where }))).toContain(
      'REHEARSAL · Plan of this rehearsal (2 steps)',
    );
    expect(read(await stack.ask(lead, 'gameday status', { channel: where }))).toContain(
      `REHEARSAL · :dart: Game day ${title} · running`,
    );

    // The automatic mode counts step 1 down; someone delays it; at zero it is rehearsed.
    await stack.ask(lead, 'gameday auto on', { channel: where });
    await stack.poll();
    const countdown = await stack.fake.waitFor(() => countdownIn(colleague, title, 1), 'the countdown of step 1');
    expect(read(countdown)).toMatch(/REHEARSAL · Step 1 of 2: web-cpu: cpu on .*role=web.*, starts in 60 s/);
    expect(read(countdown)).toContain('nothing is created at the platform');
    expect(countdown.buttons().map((b) => b.text)).toEqual(['Start now', 'Delay 5 min', 'Skip', 'Veto']);
    await countdown.click('Delay 5 min');
    await waitForText('the delay in the thread', () =>
      thread(lead, title).some((line) => line.includes(`REHEARSAL · :alarm_clock: <@${colleague}> delayed step 1`)),
    );
    stack.advanceClock(61_000);
    await stack.poll();
    expect(thread(lead, title).join('\n')).not.toContain('would start');
    stack.advanceClock(5 * 60_000);
    await stack.poll();
    await waitForText('step 1 rehearsed', () =>
      thread(lead, title).some((line) =>
        line.includes(
          'REHEARSAL · Step 1 of 2 (web-cpu) would start cpu -l 30 -c 1 for 30 s on 2 of 4 hosts: platform-web-1, platform-web-2 · nothing was created at the platform',
        ),
      ),
    );
    await waitForText('the countdown says rehearsed', () =>
      read(countdownIn(lead, title, 1)).includes('rehearsed: nothing was created at the platform'),
    );
    await answer(colleague, title, 1, 'Held', 'the checkout team knew what to watch');

    // Step 2 counts down by itself once step 1 is answered; Start now rehearses it at once.
    await stack.poll();
    const second = await stack.fake.waitFor(() => countdownIn(lead, title, 2), 'the countdown of step 2');
    await second.click('Start now');
    await waitForText('step 2 rehearsed', () =>
      thread(lead, title).some((line) =>
        line.includes(
          'REHEARSAL · Step 2 of 2 (latency) would start latency -l 30 -m 300 for 30 s on 1 of 4 hosts: platform-web-1 · nothing was created at the platform',
        ),
      ),
    );
    await answer(lead, title, 2, 'Not held', 'nobody owned the retry budget');
    await waitForText('the pause on the card', () =>
      read(cardOf(lead, title)).includes('Automatic mode paused: the hypothesis of step 2 did not hold'),
    );
    expect(read(cardOf(lead, title))).toContain(`REHEARSAL · Game day: ${title}`);
    // Every line of the thread says it is a rehearsal.
    for (const line of thread(lead, title)) expect(line).toContain('REHEARSAL');

    expect(read(await stack.ask(lead, 'gameday end', { channel: where }))).toContain(
      `REHEARSAL · :checkered_flag: Game day ${title} ended`,
    );
    const summary = await stack.fake.waitFor(
      () => channelMessages(lead).find((m) => read(m).includes(`Game day summary: ${title}`)),
      'the summary',
    );
    const words = read(summary);
    expect(words).toContain(`REHEARSAL · Game day summary: ${title}`);
    expect(words).toMatch(
      /1\. web-cpu · checkout stays under 500 ms p99 · :performing_arts: rehearsed: nothing was created at the platform · :white_check_mark: held · “the checkout team knew what to watch”/,
    );
    expect(words).toMatch(/2\. latency · retries hide the latency · .*rehearsed.* · :x: did not hold/);
    expect(words).toContain('None: a rehearsal creates nothing at the platform.');

    const report = await reportFile(filesBefore);
    expect(report.title).toBe(`Rehearsal report: ${title}`);
    expect(report.filename).toMatch(/^rehearsal-report-checkout-rehearsal-\d{4}-\d\d-\d\d\.md$/);
    expect(report.text).toContain(`# Rehearsal report: ${title}`);
    expect(report.text).toMatch(
      /\| 1 \| web-cpu \(cpu\) \| checkout stays under 500 ms p99 \| rehearsed, nothing created: would hit 2 of 4 hosts: platform-web-1, platform-web-2 \| held \(.+\) \|/,
    );
    expect(report.text).toMatch(
      /\| 2 \| latency \| retries hide the latency \| rehearsed, nothing created: .* \| not held/,
    );
    expect(read({ text: () => report.initialComment ?? '' })).toContain('REHEARSAL · :clipboard: Rehearsal report');
    nothingCreated();
    // The plan drafted for it is still drafted, untouched, for the real game day.
    expect(read(await stack.ask(lead, 'gameday plan', { channel: where }))).toMatch(
      /Plan of the next game day in this channel \(2 steps\)\n1\. :white_circle: web-cpu · checkout stays under 500 ms p99 · planned/,
    );
  });

  it('refuses a step in a frozen team with the freeze, and the automatic mode pauses', async () => {
    const title = 'Frozen rehearsal';
    const lead = await rehearsing(title, 'cpu -l 30 --target-tags role=web');
    await stack.ask(lead, 'gameday auto on', { channel: where });
    await stack.poll();
    await stack.fake.waitFor(() => countdownIn(lead, title, 1), 'the countdown');
    await stack.ask(lead, 'freeze --reason "incident 4711"', { channel: where });
    stack.advanceClock(61_000);
    await stack.poll();
    await waitForText('the refusal on the countdown', () =>
      /not started: .*frozen/i.test(read(countdownIn(lead, title, 1))),
    );
    expect(thread(lead, title).join('\n')).toMatch(/REHEARSAL · :x: Step 1 \(cpu\) did not start: .*frozen/i);
    expect(thread(lead, title).join('\n')).not.toContain('would start');
    await waitForText('the pause on the card', () =>
      read(cardOf(lead, title)).includes('Automatic mode paused: step 1 did not start'),
    );
    nothingCreated();
  });

  it('refuses a step whose target matches no active client, with the near one', async () => {
    const title = 'Missing host rehearsal';
    const lead = await rehearsing(title, 'cpu -l 30 --target-hosts platform-web-1');
    // The host left the team after the step was planned: at zero the target matches nothing.
    stack.sim.clients.remove('platform-web-1');
    await stack.ask(lead, 'gameday next', { channel: where });
    await (await stack.fake.waitFor(() => countdownIn(lead, title, 1), 'the countdown')).click('Start now');
    await waitForText('the refusal in the thread', () =>
      thread(lead, title).some((line) => line.includes('Step 1 (cpu) did not start')),
    );
    const refusal = thread(lead, title).find((line) => line.includes('did not start'))!;
    expect(refusal).toContain('No active host of team Platform matches');
    expect(refusal).toContain('Did you mean platform-web-2?');
    nothingCreated();
  });

  it('says who would need to approve a step an approval rule holds back, and asks nobody', async () => {
    const title = 'Approval rehearsal';
    const lead = await rehearsing(title, 'memory -l 30 -p 50 --target-tags role=web');
    await stack.ask(lead, 'gameday next', { channel: where });
    await (await stack.fake.waitFor(() => countdownIn(lead, title, 1), 'the countdown')).click('Start now');
    await waitForText('step 1 rehearsed', () => thread(lead, title).some((line) => line.includes('would start')));
    const told = thread(lead, title).find((line) => line.includes('would start'))!;
    expect(told).toContain(
      'would need approval from a second person with EXPERIMENTS_RUN on team Platform, because memory attacks need a second person; nobody was asked',
    );
    expect(told).toContain('nothing was created at the platform');
    // No request with Approve and Reject was posted anywhere.
    const everything = [
      ...channelMessages(lead),
      ...channelMessages(lead).flatMap((m) => stack.fake.channel(where).thread(m.ts)),
    ];
    expect(everything.flatMap((m) => m.buttons().map((b) => b.text))).not.toContain('Approve');
    expect(everything.map(read).join('\n')).not.toContain('asks to start');
    await stack.fake.waitFor(
      () => thread(lead, title).find((line) => line.includes('Step 1 (memory) has ended')),
      'the question, as after an attack',
    );
    nothingCreated();
  });

  it('never shares a channel with a real game day: each refuses the other, to be started anew', async () => {
    const lead = nextPerson();
    await stack.login(lead, users().owner, { team: 'Platform' });
    await stack.ask(lead, 'gameday start Dress rehearsal --rehearsal', { channel: where });
    const real = read(await stack.ask(lead, 'gameday start Real drill', { channel: where }));
    expect(real).toContain('A rehearsal is running in this channel: Dress rehearsal');
    expect(real).toContain('end it with /chaos gameday end, then start the real game day anew');
    expect((await stack.built.services.gamedays.days.running(where))?.rehearsal).toBe(true);
    // Wherever running game days are listed, this one says what it is.
    expect(read(await stack.openHome(lead))).toContain('REHEARSAL · :dart: Dress rehearsal in');
    expect(read(await stack.ask(lead, 'status', { channel: where }))).toContain(
      'REHEARSAL · :dart: Dress rehearsal in',
    );
    await stack.ask(lead, 'gameday end', { channel: where });

    await stack.ask(lead, 'gameday start Real drill', { channel: where });
    const rehearsal = read(await stack.ask(lead, 'gameday start Dress rehearsal --rehearsal', { channel: where }));
    expect(rehearsal).toContain('A real game day is running in this channel: Real drill');
    expect(rehearsal).toContain('It cannot be rehearsed while it runs');
    const running = await stack.built.services.gamedays.days.running(where);
    expect(running?.title).toBe('Real drill');
    expect(running?.rehearsal).toBeUndefined();
  });

  it('takes --rehearsal only as written: a typo gets the usual suggestion, and nothing starts', async () => {
    const lead = nextPerson();
    await stack.login(lead, users().owner, { team: 'Platform' });
    const typo = read(await stack.ask(lead, 'gameday start Drill --rehersal', { channel: where }));
    expect(typo).toContain('Did you mean --rehearsal?');
    expect(typo).toContain('gameday start <title> [--rehearsal]');
    expect(await stack.built.services.gamedays.days.running(where)).toBeUndefined();
    expect(read(await stack.ask(lead, 'help gameday', { channel: where }))).toContain('[--rehearsal]');
  });

  it('says an attack previewed in its channel is real, and keeps it out of the rehearsal', async () => {
    const title = 'Side by side';
    const lead = await rehearsing(title, 'cpu -l 30 --target-tags role=web');
    const preview = read(await stack.ask(lead, 'attack cpu -l 30 --target-tags role=web', { channel: where }));
    expect(preview).toContain('A rehearsal is running in this channel; this attack is real and is not part of it.');
    const { attack } = await stack.startAttack(lead, 'attack cpu -l 30 --target-tags role=web', where);
    expect(creates()).toHaveLength(1);
    const record = (await stack.built.services.gamedays.days.running(where))!;
    expect(record.attacks).toEqual([]);
    expect(thread(lead, title).join('\n')).not.toContain(attack.guid);
    // Elsewhere the preview says nothing of rehearsals.
    const elsewhere = read(
      await stack.ask(lead, 'attack cpu -l 30 --target-tags role=web', { channel: 'C0ELSEWHERE' }),
    );
    expect(elsewhere).not.toContain('rehearsal');
  });
});
