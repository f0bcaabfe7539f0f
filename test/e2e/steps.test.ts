import { describe, expect, it } from 'vitest';
import type { StepExecution } from '@faultline/fake-slack';
import { keys } from '../../src/store/keys.ts';
import { manifestSteps, Stack, stackForFile } from './harness.ts';

/**
 * Faultline's Workflow Builder steps, run by the fake Slack as Slack runs them: function_executed
 * delivered, acknowledged, then functions.completeSuccess (outputs checked against manifest.yml)
 * or functions.completeError.
 */
const read = Stack.read;
const channel = 'C0GENERAL';
const drills = 'C0DRILLS';
let stack: Stack;
stackForFile(
  { env: { ATTACK_CHANNELS: `${channel},${drills}`, APPROVAL_RULES: 'type=memory' } },
  (started) => (stack = started),
);

let n = 0;
const nextPerson = () => `U0STEP${++n}`;
const users = () => stack.sim.seed.users;
const teams = () => stack.sim.seed.teams;
const halts = () => stack.sim.requests.filter((r) => r.method === 'POST' && /\/halt$/.test(r.path));

/** Runs a step as Slack does, for the person who used the workflow, and waits until the app has completed or failed it. */
async function run(callbackId: string, usedBy: string, inputs: Record<string, unknown>): Promise<StepExecution> {
  const execution = await stack.fake.runStep(callbackId, inputs, { usedBy });
  expect(execution.delivery.status).toBe(200);
  await stack.fake.waitFor(() => execution.state !== 'running', `the ${callbackId} step to end`);
  // A step that did its work sends every output manifest.yml requires of it.
  const required = Object.entries(manifestSteps[callbackId]!.output_parameters)
    .filter(([, output]) => output.is_required === true)
    .map(([name]) => name);
  if (execution.state === 'completed')
    expect(Object.keys(execution.outputs!)).toEqual(expect.arrayContaining(required));
  return execution;
}

describe('Workflow Builder steps', () => {
  it('Halt all chaos attacks halts every attack the person reaches, or one team’s, and outputs how many and which', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const payments = stack.sim.createAttackDirectly(teams().payments.id, { type: 'cpu', args: ['-l', '300'] });
    const platform = stack.sim.createAttackDirectly(teams().platform.id, { type: 'cpu', args: ['-l', '300'] });

    const one = await run('halt_all_attacks', id, { team: 'Payments', reason: 'incident 42' });
    expect(one.state).toBe('completed');
    expect(one.outputs).toEqual({ halted_count: 1, halted_ids: [payments] });
    expect(stack.sim.state.attacks.get(payments)!.halt).toEqual(expect.objectContaining({ reason: 'incident 42' }));
    expect(stack.sim.state.attacks.get(platform)!.halt).toBeUndefined();

    const all = await run('halt_all_attacks', id, { reason: 'incident 42' });
    expect(all.state).toBe('completed');
    expect(all.outputs).toEqual({ halted_count: 1, halted_ids: [platform] });
    expect(stack.sim.state.attacks.get(platform)!.halt).toBeDefined();
  });

  it('Freeze chaos halts the team’s attacks, outputs the freeze, and refuses typed starts; Unfreeze chaos lifts it', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const running = stack.sim.createAttackDirectly(teams().payments.id, { type: 'cpu', args: ['-l', '300'] });

    const frozen = await run('freeze_chaos', id, { team: 'payments', reason: 'checkout incident' });
    expect(frozen.state).toBe('completed');
    expect(frozen.outputs).toEqual({
      scope: 'team',
      team: 'Payments',
      since: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      halted_count: 1,
    });
    expect(stack.sim.state.attacks.get(running)!.halt).toEqual(
      expect.objectContaining({ reason: 'frozen: checkout incident' }),
    );
    const refused = await stack.ask(id, 'attack cpu -l 30 --team Payments', { channel });
    expect(read(refused)).toMatch(/Attacks in Payments are frozen by <@U0STEP\d+> since .*: checkout incident/);

    const lifted = await run('unfreeze_chaos', id, { team: 'Payments', reason: 'resolved' });
    expect(lifted.outputs).toEqual({ scope: 'team', team: 'Payments', was_frozen: true });
    expect(read(await stack.ask(id, 'attack cpu -l 30 --team Payments', { channel }))).toContain('Start');
    const again = await run('unfreeze_chaos', id, { team: 'Payments' });
    expect(again.outputs).toEqual({ scope: 'team', team: 'Payments', was_frozen: false });
  });

  it('Freeze chaos of every team completes with every output the manifest requires, counting the attacks Faultline followed', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const { attack } = await stack.startAttack(id, 'attack cpu -l 300 -c 1 --target-tags role=web', channel);
    // Started elsewhere: the halt of everything stops it too, but Faultline does not follow it.
    const unseen = stack.sim.createAttackDirectly(teams().payments.id, { type: 'cpu', args: ['-l', '300'] });

    const frozen = await run('freeze_chaos', id, { all_teams: true, reason: 'major incident' });
    expect(frozen.error).toBeUndefined();
    expect(frozen.state).toBe('completed');
    expect(frozen.outputs).toEqual({
      scope: 'all',
      team: '',
      since: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      halted_count: 1,
    });
    expect(stack.sim.state.attacks.get(attack.guid)!.halt).toBeDefined();
    expect(stack.sim.state.attacks.get(unseen)!.halt).toBeDefined();
    expect(await stack.built.services.guardrails.freezes.all()).toEqual([expect.objectContaining({ scope: 'all' })]);
  });

  it('Start game day and End game day run a game day in the channel given and output its id', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const started = await run('start_game_day', id, { channel: drills, title: 'Checkout drill' });
    expect(started.state).toBe('completed');
    const gameDayId = started.outputs!['game_day_id'];
    expect(gameDayId).toEqual(expect.stringMatching(/^[0-9a-f-]{36}$/));
    const card = stack.fake
      .channel(drills)
      .messages()
      .find((m) => read(m).includes('Game day: Checkout drill'))!;
    expect(read(card)).toContain(`Facilitated by <@${id}>`);

    const twice = await run('start_game_day', id, { channel: drills, title: 'Another drill' });
    expect(twice.state).toBe('failed');
    expect(twice.error).toBe(
      `A game day already runs in <#${drills}>: Checkout drill. End it first, or start this one in another channel.`,
    );
    const wrong = await run('end_game_day', id, { channel: drills, title: 'Another drill' });
    expect(wrong.state).toBe('failed');
    expect(wrong.error).toContain('left running');

    const ended = await run('end_game_day', id, { channel: drills, title: 'Checkout drill' });
    expect(ended.outputs).toEqual({ game_day_id: gameDayId });
    expect(
      stack.fake
        .channel(drills)
        .messages()
        .some((m) => read(m).includes('Checkout drill') && read(m).includes('ended')),
    ).toBe(true);
    const elsewhere = await run('start_game_day', id, { channel: 'C0RANDOM', title: 'Lost drill' });
    expect(elsewhere.error).toBe(
      `Attacks cannot be started in <#C0RANDOM>, so a game day there would stay empty. Use <#${channel}>, <#${drills}>.`,
    );
    const none = await run('end_game_day', id, { channel: drills });
    expect(none.error).toBe(`No game day runs in <#${drills}>, so there is nothing to end.`);
  });

  it('fails the step for a person who is not logged in, and sends them the Log in entry by direct message', async () => {
    const id = nextPerson();
    stack.person(id);
    const running = stack.sim.createAttackDirectly(teams().payments.id, { type: 'cpu', args: ['-l', '300'] });
    const execution = await run('freeze_chaos', id, { all_teams: true, reason: 'major incident' });
    expect(execution.state).toBe('failed');
    expect(execution.error).toMatch(
      /not logged in to Faultline\. .*Log in button; log in, then run the workflow again/,
    );
    const dm = await stack.fake.waitFor(() => stack.fake.channel(id).messages().at(-1), 'the direct message');
    expect(read(dm)).toContain('Freeze chaos');
    expect(dm.buttons().map((b) => b.text)).toContain('Log in');
    expect(stack.sim.state.attacks.get(running)!.halt).toBeUndefined();
    expect(await stack.built.services.guardrails.freezes.all()).toEqual([]);
    for (const step of ['halt_all_attacks', 'unfreeze_chaos', 'start_game_day', 'end_game_day']) {
      const inputs = { channel: drills, title: 'x', reason: 'x' };
      const { reason: _r, ...gameDay } = inputs;
      const { channel: _c, title: _t, ...safety } = inputs;
      const other = await run(step, id, step.includes('game_day') ? gameDay : safety);
      expect(other.error, step).toMatch(/not logged in to Faultline/);
    }
  });

  it('fails with the missing privilege, and changes nothing, when the person’s role may not do it', async () => {
    const id = nextPerson();
    await stack.login(id, users().observer);
    const execution = await run('freeze_chaos', id, { reason: 'not mine to call' });
    expect(execution.state).toBe('failed');
    expect(execution.error).toBe(
      'You cannot freeze Platform: your platform role lacks the HALT_WRITE privilege on team Platform. Ask an owner of the team for a role that has it.',
    );
    expect(await stack.built.services.guardrails.freezes.all()).toEqual([]);
    const everything = await run('freeze_chaos', id, { all_teams: true, reason: 'not mine either' });
    expect(everything.error).toMatch(/lacks the HALT_ALL privilege/);
    expect(everything.error).not.toContain('Usage');
    const gameDay = await run('start_game_day', id, { channel: drills, title: 'Not mine to run' });
    expect(gameDay.error).toMatch(
      /^You cannot start a game day with team Platform: .*lacks the EXPERIMENTS_RUN privilege/,
    );
    expect(await stack.built.services.gamedays.days.running(drills)).toBeUndefined();
  });

  it('keeps a freeze in force: a second Freeze chaos keeps its start time, and typed starts stay refused until unfrozen', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Search' });
    const first = await run('freeze_chaos', id, { reason: 'reindex' });
    const second = await run('freeze_chaos', id, { team: 'Search', reason: 'reindex, longer' });
    expect(second.outputs).toEqual({ ...first.outputs, halted_count: 0 });
    expect(read(await stack.ask(id, 'attack cpu -l 30 --yes', { channel }))).toContain('reindex, longer');
    const both = await run('freeze_chaos', id, { team: 'Search', all_teams: true, reason: 'x' });
    expect(both.error).toBe('Name one team, or choose every team, not both.');
  });

  it('acts and completes once when Slack delivers the same function_executed again', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Payments' });
    const running = stack.sim.createAttackDirectly(teams().payments.id, { type: 'cpu', args: ['-l', '300'] });
    const before = halts().length;
    const execution = await stack.fake.runStep('freeze_chaos', { reason: 'provider outage' }, { usedBy: id });
    // Slack's retries of the delivery, while the first is still at work and after it finished.
    expect((await execution.redeliver()).status).toBe(200);
    await stack.fake.waitFor(() => execution.state !== 'running', 'the step to end');
    expect((await execution.redeliver()).status).toBe(200);
    await stack.built.services.slack.flush();
    expect(execution.state).toBe('completed');
    expect(execution.completions).toBe(1);
    expect(halts().length - before).toBe(1);
    expect(stack.sim.state.attacks.get(running)!.halt).toBeDefined();
    expect(stack.logs.filter((l) => l.msg === 'a step delivered again was already taken')).toHaveLength(2);
  });
});

describe('the person a step acts for', () => {
  /** The app's steps as an app configuration still on an older manifest declares them: Person a plain user id. */
  const personAsUserId = () =>
    Object.fromEntries(
      Object.entries(manifestSteps).map(([callbackId, step]) => [
        callbackId,
        {
          ...step,
          input_parameters: { ...step.input_parameters, user: { type: 'slack#/types/user_id', is_required: true } },
        },
      ]),
    );

  it('is never a colleague a builder names: a Person input set to a user id is refused, acts for nobody and messages nobody', async () => {
    const owner = nextPerson();
    const builder = nextPerson();
    await stack.login(owner, users().owner, { team: 'Platform' });
    stack.person(builder);
    expect(read(await stack.ask(owner, 'save web-cpu cpu -l 60 -c 1 --target-tags role=web', { channel }))).toContain(
      'Saved',
    );
    await stack.ask(owner, 'freeze --team Search --reason "db migration"', { channel });
    const running = stack.sim.createAttackDirectly(teams().payments.id, { type: 'cpu', args: ['-l', '300'] });
    const attacksBefore = stack.sim.state.attacks.size;
    const dmsBefore = stack.fake.channel(owner).messages().length;
    stack.fake.declareSteps(personAsUserId());
    try {
      // The builder, with no login of their own, uses the workflow; its Person names the owner.
      const asOwner = { user: owner, channel: drills };
      const refused = [
        await run('freeze_chaos', builder, { user: owner, team: 'Payments', reason: 'as the owner' }),
        await run('halt_all_attacks', builder, { user: owner, reason: 'as the owner' }),
        await run('run_saved_attack', builder, { ...asOwner, name: 'web-cpu' }),
        await run('unfreeze_chaos', builder, { user: owner, team: 'Search' }),
        await run('start_game_day', builder, { ...asOwner, title: 'As the owner' }),
      ];
      for (const execution of refused) {
        expect(execution.state, execution.callbackId).toBe('failed');
        expect(execution.error, execution.callbackId).toMatch(/Person who used this workflow/);
      }
    } finally {
      stack.fake.declareSteps(manifestSteps);
    }
    expect(stack.sim.state.attacks.get(running)!.halt).toBeUndefined();
    expect(stack.sim.state.attacks.size).toBe(attacksBefore);
    expect((await stack.built.services.guardrails.freezes.all()).map((f) => f.teamName)).toEqual(['Search']);
    expect(await stack.built.services.gamedays.days.running(drills)).toBeUndefined();
    await stack.built.services.slack.flush();
    expect(stack.fake.channel(owner).messages()).toHaveLength(dmsBefore);
    expect(stack.fake.channel(builder).messages()).toHaveLength(0);
  });

  it('is refused when Slack passes no whole user context: no id, no secret, or none at all', async () => {
    const owner = nextPerson();
    await stack.login(owner, users().owner, { team: 'Platform' });
    const running = stack.sim.createAttackDirectly(teams().payments.id, { type: 'cpu', args: ['-l', '300'] });
    const haltsBefore = halts().length;
    // A Person of any shape, as a step declared loosely would let through.
    const loose = Object.fromEntries(
      Object.entries(manifestSteps).map(([callbackId, step]) => [
        callbackId,
        { ...step, input_parameters: { ...step.input_parameters, user: { type: 'object', is_required: false } } },
      ]),
    );
    stack.fake.declareSteps(loose);
    try {
      for (const user of [
        { id: owner },
        { id: owner, secret: '' },
        { id: '', secret: 'x' },
        { secret: 'x' },
        undefined,
      ]) {
        const execution = await run('halt_all_attacks', owner, { ...(user ? { user } : {}), reason: 'as the owner' });
        expect(execution.state, JSON.stringify(user)).toBe('failed');
        expect(execution.error).toMatch(/^Faultline acts only for the Person who used this workflow/);
      }
    } finally {
      stack.fake.declareSteps(manifestSteps);
    }
    expect(stack.sim.state.attacks.get(running)!.halt).toBeUndefined();
    expect(halts()).toHaveLength(haltsBefore);
  });

  it('is the person who used the workflow: a builder who is not logged in gets the Log in entry, and the owner’s attacks are untouched', async () => {
    const owner = nextPerson();
    const builder = nextPerson();
    await stack.login(owner, users().owner, { team: 'Platform' });
    stack.person(builder);
    const running = stack.sim.createAttackDirectly(teams().payments.id, { type: 'cpu', args: ['-l', '300'] });
    const dmsBefore = stack.fake.channel(owner).messages().length;
    const execution = await run('freeze_chaos', builder, { all_teams: true, reason: 'as whoever' });
    expect(execution.inputs['user']).toEqual({ id: builder, secret: expect.any(String) });
    expect(execution.error).toMatch(/not logged in to Faultline/);
    await stack.fake.waitFor(() => stack.fake.channel(builder).messages().at(-1), 'the builder’s direct message');
    expect(stack.fake.channel(owner).messages()).toHaveLength(dmsBefore);
    expect(stack.sim.state.attacks.get(running)!.halt).toBeUndefined();
    expect(await stack.built.services.guardrails.freezes.all()).toEqual([]);

    const byOwner = await run('halt_all_attacks', owner, { reason: 'the owner, in person' });
    expect(byOwner.outputs).toEqual({ halted_count: 1, halted_ids: [running] });
  });
});

describe('Run saved attack', () => {
  const creates = () =>
    stack.sim.requests.filter((r) => r.method === 'POST' && (r.path === '/attacks/new' || r.path === '/attacks'));
  const save = async (id: string, text: string) =>
    expect(read(await stack.ask(id, `save ${text}`, { channel }))).toContain('Saved');

  it('starts the saved attack with the person’s session, its card in the channel given, and outputs its id', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    await save(id, 'web-cpu cpu -l 60 -c 1 --target-tags role=web');
    const execution = await run('run_saved_attack', id, { name: 'WEB-CPU', channel: drills });
    expect(execution.state).toBe('completed');
    const attack = [...stack.sim.state.attacks.values()].at(-1)!;
    expect(execution.outputs).toEqual({ attack_id: attack.guid });
    expect([attack.type, ...attack.args]).toEqual(['cpu', '-l', '60', '-c', '1']);
    const card = await stack.fake.waitFor(
      () =>
        stack.fake
          .channel(drills)
          .messages()
          .find((m) => m.text().includes(attack.guid)),
      'the card',
    );
    expect(read(card)).toContain(`Started by <@${id}>`);

    const unknown = await run('run_saved_attack', id, { name: 'web-cpx', channel: drills });
    expect(unknown.state).toBe('failed');
    expect(unknown.error).toMatch(/web-cpx.*Did you mean web-cpu/);
    expect(creates()).toHaveLength(1);
  });

  it('with wait_for_end, completes once the attack has ended, with its final stage', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    await save(id, 'short-cpu cpu -l 30 -c 1 --target-tags role=web');
    const execution = await stack.fake.runStep(
      'run_saved_attack',
      { name: 'short-cpu', channel, wait_for_end: true },
      { usedBy: id },
    );
    const attack = await stack.fake.waitFor(() => [...stack.sim.state.attacks.values()].at(-1), 'the attack');
    await stack.fake.waitFor(
      () =>
        stack.fake
          .channel(channel)
          .messages()
          .find((m) => m.text().includes(attack.guid)),
      'the card',
    );
    // The step has started the attack and waits for its end.
    await expect.poll(() => stack.built.store.get(keys.stepWait.key(attack.guid))).toBeDefined();
    await stack.poll();
    expect(execution.state).toBe('running');
    stack.advanceClock(10_000);
    await stack.poll();
    expect(execution.state).toBe('running');
    stack.advanceClock(60_000);
    await stack.poll();
    await stack.fake.waitFor(() => execution.state !== 'running', 'the step to end with the attack');
    expect(execution.outputs).toEqual({ attack_id: attack.guid, final_stage: 'Successful' });
  });

  it('is refused by a freeze in force, and nothing is sent', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Payments' });
    await save(id, 'pay-cpu cpu -l 60 -c 1');
    await stack.ask(id, 'freeze --reason "provider outage"', { channel });
    const before = creates().length;
    const execution = await run('run_saved_attack', id, { name: 'pay-cpu', team: 'Payments', channel });
    expect(execution.state).toBe('failed');
    expect(execution.error).toMatch(
      /^Attacks in Payments are frozen by <@U0STEP\d+> since .*: provider outage\. Nothing was started/,
    );
    expect(creates()).toHaveLength(before);
  });

  it('asks a second person when an approval rule says so: completed when approved and started, failed when rejected', async () => {
    const id = nextPerson();
    const approver = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    await stack.login(approver, users().solo);
    await save(id, 'web-mem memory -l 60 -p 20 --target-tags role=web');
    const requests = () =>
      stack.fake
        .channel(channel)
        .messages()
        .filter((m) => read(m).includes('asks to start'));

    const before = requests().length;
    const approved = await stack.fake.runStep('run_saved_attack', { name: 'web-mem', channel }, { usedBy: id });
    const request = await stack.fake.waitFor(() => requests().length > before && requests().at(-1), 'the request');
    expect(read(request)).toContain(`<@${id}> asks to start a memory attack`);
    expect(approved.state).toBe('running');
    const started = creates().length;
    await stack
      .person(approver)
      .channel(channel)
      .messages()
      .find((m) => m.ts === request.ts)!
      .click('Approve');
    await stack.fake.waitFor(() => approved.state !== 'running', 'the step to end with the approval');
    expect(creates()).toHaveLength(started + 1);
    expect(approved.outputs).toEqual({ attack_id: [...stack.sim.state.attacks.values()].at(-1)!.guid });

    const rejected = await stack.fake.runStep('run_saved_attack', { name: 'web-mem', channel }, { usedBy: id });
    // The first request now says it was approved; the second one asks.
    const second = await stack.fake.waitFor(() => requests().find((m) => m.ts !== request.ts), 'the second request');
    await stack
      .person(approver)
      .channel(channel)
      .messages()
      .find((m) => m.ts === second.ts)!
      .click('Reject');
    await stack.fake.waitFor(() => rejected.state !== 'running', 'the step to end with the rejection');
    expect(rejected.error).toBe(`<@${approver}> rejected the attack, so nothing was started.`);
    expect(creates()).toHaveLength(started + 1);

    // Nobody answers: the request expires after 15 minutes, at the poll, and so does the step.
    const unanswered = await stack.fake.runStep('run_saved_attack', { name: 'web-mem', channel }, { usedBy: id });
    await stack.fake.waitFor(
      () => requests().find((m) => m.ts !== request.ts && m.ts !== second.ts),
      'the third request',
    );
    stack.advanceClock(16 * 60_000);
    await stack.poll();
    await stack.fake.waitFor(() => unanswered.state !== 'running', 'the step to end with the request');
    expect(unanswered.error).toMatch(/^Nobody approved the attack within 15 minutes, so nothing was started/);
    expect(creates()).toHaveLength(started + 1);
  });
});

describe('machine-readable cards', () => {
  it('an attack card carries faultline_attack metadata, updated with the card as the attack is halted', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const { attack, card } = await stack.startAttack(id, 'attack cpu -l 300 -c 1 --target-tags role=web', channel);
    expect(card.metadata).toEqual({
      event_type: 'faultline_attack',
      event_payload: expect.objectContaining({
        id: attack.guid,
        kind: 'attack',
        team_id: teams().platform.id,
        team: 'Platform',
        type: 'cpu',
        phase: 'live',
        started_by: id,
        started_by_platform: users().owner.email,
      }),
    });
    await card.click('Halt');
    await stack.poll();
    const halted = await stack.fake.waitFor(
      () =>
        stack.fake
          .channel(channel)
          .messages()
          .find((m) => m.ts === card.ts && m.metadata?.event_payload['phase'] !== 'live'),
      'the card halted',
    );
    expect(halted.metadata!.event_payload).toMatchObject({ id: attack.guid, stage: expect.stringMatching(/Halt/) });
  });

  it('a game-day card carries faultline_game_day metadata, updated when it ends', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    await stack.ask(id, 'gameday start Metadata drill', { channel: drills });
    const card = () =>
      stack.fake
        .channel(drills)
        .messages()
        .find(
          (m) =>
            m.metadata?.event_type === 'faultline_game_day' && m.metadata.event_payload['title'] === 'Metadata drill',
        );
    const running = await stack.fake.waitFor(card, 'the game-day card');
    expect(running.metadata!.event_payload).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      channel: drills,
      title: 'Metadata drill',
      stage: 'running',
      started_by: id,
      started_at: expect.any(String),
      attacks: 0,
      halts: 0,
    });
    await stack.startAttack(id, 'attack cpu -l 30 -c 1 --target-tags role=web', drills);
    await stack.built.services.slack.flush();
    expect(card()!.metadata!.event_payload['attacks']).toBe(1);
    await stack.ask(id, 'gameday end', { channel: drills });
    const warning = stack.person(id).lastEphemeral();
    if (warning && read(warning).includes('End anyway')) await warning.click('End anyway');
    await stack.fake.waitFor(() => card()?.metadata?.event_payload['stage'] === 'ended', 'the ended card');
    expect(card()!.metadata!.event_payload).toMatchObject({ stage: 'ended', ended_at: expect.any(String) });
  });
});
