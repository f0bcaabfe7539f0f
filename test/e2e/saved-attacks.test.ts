import { describe, expect, it } from 'vitest';
import type { Surface } from '@faultline/fake-slack';
import { Stack, stackForFile } from './harness.ts';

/**
 * Saved attacks end to end: saved as a start is checked, listed with Run and Delete, run as the
 * typed command (preview, `--yes`, freezes), kept per team under unique names, and refused at
 * the run when the team's attack types no longer take them.
 */

const read = Stack.read;
const channel = 'C0SAVED';
let stack: Stack;
stackForFile({ env: { APPROVAL_RULES: 'type=memory' } }, (started) => (stack = started));

let n = 0;
const nextPerson = () => `U0SAVED${++n}`;
const users = () => stack.sim.seed.users;
const teams = () => stack.sim.seed.teams;
const creates = () =>
  stack.sim.requests.filter((r) => r.method === 'POST' && (r.path === '/attacks/new' || r.path === '/attacks'));

describe('saved attacks', () => {
  it('are saved as checked, listed with Run and Delete, and Run previews and starts the very attack', async () => {
    const id = nextPerson();
    const person = await stack.login(id, users().owner, { team: 'Platform' });
    const saved = read(await stack.ask(id, 'save web-cpu cpu -l 60 -c 1 --target-tags role=web', { channel }));
    expect(saved).toContain('Saved web-cpu for team Platform');
    expect(saved).toContain('attack cpu -l 60 -c 1 --target-tags role=web');

    const list = await stack.ask(id, 'saved', { channel });
    expect(read(list)).toContain('web-cpu');
    expect(list.buttons().map((b) => b.text)).toEqual(['Run', 'Delete']);

    const shown = person.ephemerals(channel).length;
    await list.click('Run');
    const preview = await stack.fake.waitFor(
      () => person.ephemerals(channel).length > shown && person.ephemerals(channel).at(-1),
      'the preview',
    );
    expect(read(preview)).toContain('Start this cpu attack?');
    expect(creates()).toHaveLength(0);
    await preview.click('Start');
    const attack = await stack.fake.waitFor(() => [...stack.sim.state.attacks.values()].at(-1), 'the attack');
    expect([attack.type, ...attack.args]).toEqual(['cpu', '-l', '60', '-c', '1']);
    expect(attack.infraTarget).toEqual(expect.objectContaining({ type: 'Random', tags: { role: 'web' } }));
    await stack.fake.waitFor(
      () =>
        stack.fake
          .channel(channel)
          .messages()
          .find((m) => m.text().includes(attack.guid)),
      'the attack card',
    );

    const withYes = await stack.ask(id, 'run WEB-CPU --yes', { channel });
    expect(read(withYes)).toContain('Started');
    expect(creates()).toHaveLength(2);

    const again = await stack.ask(id, 'saved', { channel });
    await again.click('Delete', { confirm: true });
    await stack.fake.waitFor(
      () => read(person.ephemerals(channel).at(-1)).includes('Deleted saved attack web-cpu'),
      'the deletion',
    );
    expect(read(person.ephemerals(channel).at(-1))).toContain('has no saved attacks');
    expect(read(await stack.ask(id, 'run web-cpu', { channel }))).toContain('has no saved attack named web-cpu');
    expect(stack.logText()).toContain('audit: attack_saved');
    expect(stack.logText()).toContain('audit: saved_attack_deleted');
  });

  it('keeps names unique in a team, whatever their case, and apart between teams', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    expect(read(await stack.ask(id, 'save drill cpu -l 30', { channel }))).toContain('Saved drill');
    const twice = read(await stack.ask(id, 'save Drill memory -l 30 -p 50', { channel }));
    expect(twice).toContain('Team Platform already has a saved attack named drill.');
    expect(read(await stack.ask(id, 'save drill cpu -l 45 --team Payments', { channel }))).toContain(
      'Saved drill for team Payments',
    );
    const platform = await stack.built.services.attacks.saved.list(teams().platform.id);
    expect(platform.map((s) => s.words)).toEqual([['cpu', '-l', '30']]);
    const payments = await stack.built.services.attacks.saved.list(teams().payments.id);
    expect(payments.map((s) => s.words)).toEqual([['cpu', '-l', '45']]);
  });

  it('refuses to save what a start would refuse, and saves nothing', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const cases: [string, RegExp][] = [
      ['save', /Name the attack to save/],
      ['save nothing-more', /Give the attack to save after its name/],
      ['save "bad name" cpu -l 30', /cannot name a saved attack/],
      ['save x cpu -l 30 --cores-typo 1', /is not a flag of cpu/],
      ['save x warp -l 30', /is not an attack type/],
      ['save x cpu -l 999999', /too long/],
      ['save x cpu -l 30 --yes', /--yes belongs to the run/],
      ['run', /Name the saved attack to run/],
      ['run x --later', /--later is not an option of run/],
    ];
    for (const [text, expected] of cases) expect(read(await stack.ask(id, text, { channel }))).toMatch(expected);
    expect(await stack.built.services.attacks.saved.list(teams().platform.id)).toEqual([]);
    expect(creates()).toHaveLength(0);
  });

  it('runs under the same freeze as a typed start', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    await stack.ask(id, 'save web-cpu cpu -l 60 --target-tags role=web', { channel });
    expect(read(await stack.ask(id, 'freeze --reason "incident"', { channel }))).toContain('frozen');
    expect(read(await stack.ask(id, 'run web-cpu --yes', { channel }))).toMatch(/frozen.*Nothing was started/);
    expect(read(await stack.ask(id, 'run web-cpu', { channel }))).toMatch(/frozen/);
    expect(creates()).toHaveLength(0);
  });

  it("says so when the team's attack types no longer take a saved attack, and sends nothing", async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    // Saved while the platform still had a flag it has since dropped.
    const owner = { workspaceId: stack.fake.teamId, userId: id, userName: id };
    await stack.built.services.attacks.saved.save(
      teams().platform.id,
      'old-cpu',
      {
        type: 'cpu',
        args: ['-l', '30', '--turbo', '2'],
        target: { kind: 'all' },
        team: undefined,
        yes: false,
        lengthSeconds: 30,
      },
      owner,
    );
    const reply = read(await stack.ask(id, 'run old-cpu --yes', { channel }));
    expect(reply).toContain("Saved attack old-cpu no longer passes the checks of team Platform's attack types");
    expect(reply).toContain('--turbo');
    expect(creates()).toHaveLength(0);
  });

  it('are saved from the builder with Save as, beside the preview; a name taken is said on the field', async () => {
    const id = nextPerson();
    const person = await stack.login(id, users().owner, { team: 'Platform' });
    await stack.ask(id, 'save taken cpu -l 30', { channel });
    let modal = await stack.openBuilder(id, channel, 'cpu', 'Random hosts, by tags', 'Tags');
    modal.fill('Length in seconds', '45').fill('Tags', 'role=web').fill('Save as', 'taken');
    await modal.submit();
    modal = await stack.fake.waitFor(
      () => (person.modal()?.errors()['Save as'] ? person.modal() : undefined),
      'the error',
    );
    expect(modal.errors()['Save as']).toContain('already has a saved attack named taken');
    modal.fill('Save as', 'built-cpu');
    await modal.submit();
    const preview = await stack.fake.waitFor(
      () => person.ephemerals(channel).find((m) => read(m).includes('Saved as built-cpu')),
      'the preview',
    );
    expect(read(preview)).toContain('/chaos run built-cpu');
    const saved = await stack.built.services.attacks.saved.get(teams().platform.id, 'built-cpu');
    expect(saved?.words).toEqual(['cpu', '-l', '45', '--target-tags', 'role=web']);
    expect(creates()).toHaveLength(0);
  });
});

/** The value of a list's button for one saved attack among the team's. */
const buttonOf = (list: Surface, text: string, name: string) =>
  list.buttons().find((b) => b.text === text && (JSON.parse(b.value ?? '{}') as { n?: string }).n === name)!.value!;
/**
 * Delete on the team's list, as the person sees it, for one saved attack: what they then read
 * (the list again in place, or a refusal).
 */
async function deleteFromList(id: string, name: string, where = channel): Promise<string> {
  const list = await stack.ask(id, 'saved', { channel: where });
  const person = stack.person(id);
  const before = person.ephemerals(where).length;
  await list.click('Delete', { confirm: true, value: buttonOf(list, 'Delete', name) });
  return stack.fake.waitFor(() => {
    const answer = person
      .ephemerals(where)
      .slice(before - 1)
      .map((m) => read(m))
      .find((text) => text.includes(`Deleted saved attack ${name}`) || text.includes('EXPERIMENTS_RUN'));
    return answer;
  }, `the answer to Delete ${name}`);
}
describe('who changes saved attacks, and which version runs without a preview', () => {
  it('are saved, replaced and deleted only with the run privilege on the team, and a refusal changes nothing', async () => {
    const owner = nextPerson();
    const observer = nextPerson();
    await stack.login(owner, users().owner, { team: 'Platform' });
    const watcher = await stack.login(observer, users().observer);
    await stack.ask(owner, 'save obs-cpu cpu -l 60 -c 1 --target-tags role=web', { channel });

    // Delete on the list, then a save of her own under that name: both refused.
    const refusal = await deleteFromList(observer, 'obs-cpu');
    expect(refusal).toContain('EXPERIMENTS_RUN');
    expect(refusal).toContain('Nothing was changed');
    const ownSave = read(await stack.ask(observer, 'save obs-other cpu -l 3600', { channel }));
    expect(ownSave).toContain('EXPERIMENTS_RUN');
    expect(ownSave).toContain('Nothing was changed');

    // The builder's Save as says it on the field.
    let modal = await stack.openBuilder(observer, channel, 'cpu', 'Random hosts, by tags', 'Tags');
    modal.fill('Length in seconds', '45').fill('Tags', 'role=web').fill('Save as', 'obs-built');
    await modal.submit();
    modal = await stack.fake.waitFor(
      () => (watcher.modal()?.errors()['Save as'] ? watcher.modal() : undefined),
      'the error',
    );
    expect(modal.errors()['Save as']).toContain('EXPERIMENTS_RUN');

    const kept = await stack.built.services.attacks.saved.get(teams().platform.id, 'obs-cpu');
    expect(kept?.words).toEqual(['cpu', '-l', '60', '-c', '1', '--target-tags', 'role=web']);
    expect(kept?.version).toBe(1);
    expect(await stack.built.services.attacks.saved.get(teams().platform.id, 'obs-other')).toBeUndefined();
    expect(await stack.built.services.attacks.saved.get(teams().platform.id, 'obs-built')).toBeUndefined();
    expect(stack.logText()).not.toMatch(/saved_attack_deleted[^\n]*obs-cpu/);
  });

  it('keeps who saved and deleted them in the audit log, and a delete and a save again are a new version', async () => {
    const owner = nextPerson();
    await stack.login(owner, users().owner, { team: 'Platform' });
    await stack.ask(owner, 'save audit-cpu cpu -l 60', { channel });
    expect(await deleteFromList(owner, 'audit-cpu')).toContain('Deleted saved attack audit-cpu');
    await stack.ask(owner, 'save audit-cpu cpu -l 90', { channel });
    const saved = await stack.built.services.attacks.saved.get(teams().platform.id, 'audit-cpu');
    expect(saved).toEqual(
      expect.objectContaining({
        version: 2,
        savedBy: expect.objectContaining({ userId: owner }),
        changedBy: expect.objectContaining({ userId: owner }),
        savedAt: expect.any(String),
        changedAt: expect.any(String),
      }),
    );
    const lines = stack
      .logText()
      .split('\n')
      .filter((l) => l.includes('audit-cpu'));
    expect(lines.find((l) => l.includes('attack_saved') && l.includes('"version":1'))).toContain(owner);
    expect(lines.find((l) => l.includes('saved_attack_deleted'))).toMatch(/"version":1/);
    expect(lines.find((l) => l.includes('attack_saved') && l.includes('"version":2'))).toContain('"-l","90"');
  });

  it('`run --yes` and the workflow step run only a version the runner has seen, and say who changed it', async () => {
    const owner = nextPerson();
    const other = nextPerson();
    await stack.login(owner, users().owner, { team: 'Platform' });
    await stack.login(other, users().solo);
    expect(read(await stack.ask(owner, 'save seen-cpu cpu -l 60 -c 1 --target-tags role=web', { channel }))).toContain(
      'Saved',
    );
    // Never changed since it was first saved: anyone in the team may start it at once.
    expect(read(await stack.ask(other, 'run seen-cpu --yes', { channel }))).toContain('Started');
    const started = creates().length;

    // Someone else deletes it and saves other words under the name.
    expect(await deleteFromList(other, 'seen-cpu')).toContain('Deleted saved attack seen-cpu');
    expect(read(await stack.ask(other, 'save seen-cpu cpu -l 600 -c 4', { channel }))).toContain('Saved');
    // Who changed it runs it.
    expect(read(await stack.ask(other, 'run seen-cpu --yes', { channel }))).toContain('Started');
    expect(creates()).toHaveLength(started + 1);

    const refused = read(await stack.ask(owner, 'run seen-cpu --yes', { channel }));
    expect(refused).toContain(`changed by <@${other}>`);
    expect(refused).toContain('attack cpu -l 600 -c 4');
    expect(refused).toContain('/chaos run seen-cpu');
    expect(refused).toContain('Nothing was started');
    const step = await stack.fake.runStep('run_saved_attack', { name: 'seen-cpu', channel }, { usedBy: owner });
    await stack.fake.waitFor(() => step.state !== 'running' || undefined, 'the step to end');
    expect(step.state).toBe('failed');
    expect(step.error).toContain(`changed by <@${other}>`);
    expect(creates()).toHaveLength(started + 1);

    // Seen in the preview, it runs.
    expect(read(await stack.ask(owner, 'run seen-cpu', { channel }))).toContain('Start this cpu attack?');
    expect(read(await stack.ask(owner, 'run seen-cpu --yes', { channel }))).toContain('Started');
    const again = await stack.fake.runStep('run_saved_attack', { name: 'seen-cpu', channel }, { usedBy: owner });
    await stack.fake.waitFor(() => again.state !== 'running' || undefined, 'the step to end');
    expect(again.state).toBe('completed');
    const attack = [...stack.sim.state.attacks.values()].at(-1)!;
    expect([attack.type, ...attack.args]).toEqual(['cpu', '-l', '600', '-c', '4']);
    expect(creates()).toHaveLength(started + 3);
  });

  it("the list's Run button previews only the version the list showed", async () => {
    const owner = nextPerson();
    const other = nextPerson();
    const person = await stack.login(owner, users().owner, { team: 'Platform' });
    await stack.login(other, users().solo);
    expect(read(await stack.ask(owner, 'save shown-cpu cpu -l 60 -c 1', { channel }))).toContain('Saved');
    const shown = await stack.ask(owner, 'saved', { channel });

    expect(await deleteFromList(other, 'shown-cpu')).toContain('Deleted saved attack shown-cpu');
    expect(read(await stack.ask(other, 'save shown-cpu cpu -l 900 -c 4', { channel }))).toContain('Saved');

    const count = person.ephemerals(channel).length;
    await shown.click('Run', { value: buttonOf(shown, 'Run', 'shown-cpu') });
    // The list, shown again in its place as it is now, or a preview after it.
    const answer = await stack.fake.waitFor(
      () =>
        person
          .ephemerals(channel)
          .slice(count - 1)
          .map((m) => read(m))
          .find((text) => text.includes('Start this cpu attack?') || text.includes('changed by')),
      'the answer',
    );
    expect(answer).not.toContain('Start this cpu attack?');
    expect(answer).toContain(`changed by <@${other}>`);
    expect(answer).toContain('attack cpu -l 900 -c 4');
    expect(answer).toContain('press Run again');
  });

  it('an approval starts the attack that was asked about, not the saved attack as it is later', async () => {
    const owner = nextPerson();
    const other = nextPerson();
    await stack.login(owner, users().owner, { team: 'Platform' });
    await stack.login(other, users().solo);
    expect(
      read(await stack.ask(owner, 'save asked-mem memory -l 60 -p 20 --target-tags role=web', { channel })),
    ).toContain('Saved');
    const asking = stack.fake
      .channel(channel)
      .messages()
      .filter((m) => read(m).includes('asks to start')).length;
    await stack.ask(owner, 'run asked-mem --yes', { channel });
    const request = await stack.fake.waitFor(
      () =>
        stack.fake
          .channel(channel)
          .messages()
          .filter((m) => read(m).includes('asks to start'))[asking],
      'the request',
    );

    // Changed while the request waits.
    expect(await deleteFromList(owner, 'asked-mem')).toContain('Deleted saved attack asked-mem');
    expect(read(await stack.ask(owner, 'save asked-mem memory -l 900 -p 90', { channel }))).toContain('Saved');

    const started = creates().length;
    await stack
      .person(other)
      .channel(channel)
      .messages()
      .find((m) => m.ts === request.ts)!
      .click('Approve');
    await stack.fake.waitFor(() => creates().length > started || undefined, 'the approved attack');
    const attack = [...stack.sim.state.attacks.values()].at(-1)!;
    expect([attack.type, ...attack.args]).toEqual(['memory', '-l', '60', '-p', '20']);
    expect(attack.infraTarget).toEqual(expect.objectContaining({ tags: { role: 'web' } }));
  });

  it('a plan step runs only the version it was planned with, and says who changed it', async () => {
    const lead = nextPerson();
    const other = nextPerson();
    await stack.login(lead, users().owner, { team: 'Platform' });
    await stack.login(other, users().solo);
    const where = 'C0SAVEDPLAN';
    await stack.ask(lead, 'save plan-cpu cpu -l 30 -c 1 --target-tags role=web', { channel: where });
    expect(read(await stack.ask(lead, 'gameday step plan-cpu web stays up', { channel: where }))).toContain(
      'Added step 1',
    );
    expect(read(await stack.ask(lead, 'gameday start Saved plan drill', { channel: where }))).toContain('started');

    expect(await deleteFromList(other, 'plan-cpu', where)).toContain('Deleted saved attack plan-cpu');
    expect(read(await stack.ask(other, 'save plan-cpu cpu -l 900 -c 4', { channel: where }))).toContain('Saved');

    const started = creates().length;
    const refused = read(await stack.ask(lead, 'gameday next', { channel: where }));
    expect(refused).toContain(`changed by <@${other}>`);
    expect(refused).toContain('attack cpu -l 900 -c 4');
    expect(refused).toContain('Nothing was started');
    stack.advanceClock(120_000);
    await stack.poll();
    expect(creates()).toHaveLength(started);
    const plan = await stack.built.services.gamedays.days.plans.get({
      gameDayId: (await stack.built.services.gamedays.days.allRunning()).find((d) => d.channel === where)!.id,
    });
    expect(plan.steps[0]!.state).toBe('planned');
  });

  it('automatic mode pauses before a plan step whose saved attack changed, and says who changed it', async () => {
    const lead = nextPerson();
    const other = nextPerson();
    await stack.login(lead, users().owner, { team: 'Platform' });
    await stack.login(other, users().solo);
    const where = 'C0SAVEDAUTO';
    await stack.ask(lead, 'save auto-cpu cpu -l 30 -c 1 --target-tags role=web', { channel: where });
    await stack.ask(lead, 'gameday start Saved auto drill', { channel: where });
    expect(read(await stack.ask(lead, 'gameday step auto-cpu web stays up', { channel: where }))).toContain(
      'Added step 1',
    );
    expect(await deleteFromList(other, 'auto-cpu', where)).toContain('Deleted saved attack auto-cpu');
    expect(read(await stack.ask(other, 'save auto-cpu cpu -l 900 -c 4', { channel: where }))).toContain('Saved');
    const started = creates().length;
    expect(read(await stack.ask(lead, 'gameday auto on', { channel: where }))).toContain('Automatic mode is on');
    await stack.poll();
    const card = await stack.fake.waitFor(
      () =>
        stack
          .person(lead)
          .channel(where)
          .messages()
          .map((m) => read(m))
          .find((text) => text.includes('Game day: Saved auto drill') && text.includes('Automatic mode paused')),
      'the pause on the card',
    );
    expect(card).toContain(`saved attack auto-cpu was changed by <@${other}>`);
    expect(card).toContain('now runs attack cpu -l 900 -c 4');
    stack.advanceClock(120_000);
    await stack.poll();
    expect(creates()).toHaveLength(started);
  });
});
