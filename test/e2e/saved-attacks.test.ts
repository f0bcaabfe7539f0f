import { describe, expect, it } from 'vitest';
import { Stack, stackForFile } from './harness.ts';

/**
 * Saved attacks end to end: saved as a start is checked, listed with Run and Delete, run as the
 * typed command (preview, `--yes`, freezes), kept per team under unique names, and refused at
 * the run when the team's attack types no longer take them.
 */

const read = Stack.read;
const channel = 'C0SAVED';
let stack: Stack;
stackForFile({}, (started) => (stack = started));

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
    expect(twice).toContain('Team Platform already has a saved attack named Drill');
    expect(read(await stack.ask(id, 'save drill cpu -l 45 --team Payments', { channel }))).toContain(
      'Saved drill for team Payments',
    );
    const platform = await stack.deps.savedAttacks.list(teams().platform.id);
    expect(platform.map((s) => s.words)).toEqual([['cpu', '-l', '30']]);
    const payments = await stack.deps.savedAttacks.list(teams().payments.id);
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
    expect(await stack.deps.savedAttacks.list(teams().platform.id)).toEqual([]);
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
    await stack.deps.savedAttacks.save(
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
    const saved = await stack.deps.savedAttacks.get(teams().platform.id, 'built-cpu');
    expect(saved?.words).toEqual(['cpu', '-l', '45', '--target-tags', 'role=web']);
    expect(creates()).toHaveLength(0);
  });
});
