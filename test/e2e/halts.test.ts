import { startSimulator, type Simulator } from '@faultline/platform-sim';
import type { Message } from '@faultline/fake-slack';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Stack } from './harness.ts';

/**
 * Halts say what really happened: an attack that had already ended is reported as such, with
 * its real outcome, and nothing claims it was halted. Stages last a minute of simulated time
 * here, so a test reads one stage however slowly the machine runs; moving the clock is what
 * finishes an attack.
 */
const read = Stack.read;
const channel = 'C0GENERAL';
const stageMs = 60_000;
let sim: Simulator;
let stack: Stack;

beforeAll(async () => {
  sim = await startSimulator({ stageSeconds: stageMs / 1000 });
  stack = await Stack.start({ sim });
});
afterEach(async () => {
  stack.expectClean();
  await stack.reset();
});
afterAll(async () => {
  await stack?.stop();
  await sim?.stop();
});

let n = 0;
const nextPerson = () => `U0HALTS${++n}`;
const users = () => stack.sim.seed.users;
/** Pending, Distributed and Initializing, then the run, then TearingDown: an attack of `seconds` has ended after this. */
const endOf = (seconds: number) => 4 * stageMs + seconds * 1000 + 1000;
const attacksInSim = () => [...stack.sim.state.attacks.values()];
/** Audit lines of one kind for one person (the log runs on across tests). */
const audits = (kind: string, personId: string) =>
  stack.logs.filter((line) => line['audit'] === kind && line['slackUser'] === personId);

function cardOf(guid: string): Message | undefined {
  return stack.fake
    .channel(channel)
    .messages()
    .find((m) => m.text().includes(guid));
}

function threadOf(guid: string): string[] {
  return stack.fake.channel(channel).thread(cardOf(guid)!.ts).map(read);
}

async function startWithCard(personId: string, text: string) {
  await stack.ask(personId, `${text} --yes`, { channel });
  const attack = attacksInSim().at(-1)!;
  const card = await stack.fake.waitFor(
    () =>
      stack
        .person(personId)
        .channel(channel)
        .messages()
        .find((m) => m.text().includes(attack.guid)),
    'the attack card',
  );
  return { attack, card };
}

async function kubernetesAttack(personId: string, seconds: number): Promise<string> {
  const login = (await stack.built.sessions.get({ workspaceId: stack.fake.teamId, userId: personId }))!;
  const api = stack.built.platform.as({ header: login.session.header, teamId: stack.sim.seed.teams.platform.id });
  const object = stack.sim.seed.kubernetesObjects[0]!;
  return api.kubernetes.create({
    impactDefinition: { cliArgs: ['cpu', '-l', String(seconds)] },
    targetDefinition: {
      strategy: {
        k8sObjects: [
          { clusterId: object.clusterId, namespace: object.namespace, kind: object.kind, name: object.name },
        ],
      },
    },
  });
}

/** The newest ephemeral reply a person got in the channel that says `words`. */
function replySaying(personId: string, words: string, where = channel) {
  return stack.fake.waitFor(
    () =>
      stack
        .person(personId)
        .ephemerals(where)
        .find((m) => read(m).includes(words)),
    `a reply saying “${words}”`,
  );
}

describe('a Halt on an attack that had already ended', () => {
  it('from its card: says it had ended (Successful), marks nothing, and the card loses Halt', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const { attack, card } = await startWithCard(id, 'attack cpu -l 30');
    // The attack ends on the platform before the card hears of it: the card still offers Halt.
    stack.advanceClock(endOf(30));
    expect(card.buttons().map((b) => b.text)).toContain('Halt');

    await card.click('Halt');
    const reply = await replySaying(id, 'already ended');
    expect(read(reply)).toContain('already ended (Successful)');
    expect(read(reply)).not.toContain('Halt requested');
    await stack.built.services.slack.flush();
    expect(threadOf(attack.guid).filter((m) => m.includes('halted this attack'))).toEqual([]);
    const redrawn = cardOf(attack.guid)!;
    expect(read(redrawn)).not.toContain('Halt requested');
    expect(read(redrawn)).toContain('Successful');
    expect(redrawn.buttons().map((b) => b.text)).not.toContain('Halt');
    expect(stack.sim.state.attacks.get(attack.guid)!.halt).toBeUndefined();
    expect(audits('attack_halted', id)).toEqual([]);
  });

  it('says the halt is unconfirmed, not that the attack had ended, when the platform cannot show it', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const { attack } = await startWithCard(id, 'attack cpu -l 30');
    stack.advanceClock(endOf(30));
    // The halt's answer lists nothing it stopped, and the attack cannot be read back.
    stack.sim.faults.inject({ method: 'GET', path: `/attacks/${attack.guid}`, kind: 'status', status: 503, times: 10 });
    try {
      const reply = read(await stack.ask(id, `halt ${attack.guid}`, { channel }));
      expect(reply).toContain('could not confirm');
      expect(reply).toContain(`show ${attack.guid}`);
      expect(reply).not.toContain('already ended');
      expect(reply).not.toContain('Halt requested');
    } finally {
      stack.sim.faults.clear();
    }
    expect(audits('attack_halted', id)).toEqual([]);
  });

  it('by `/chaos halt <id>`: says it had ended with its real outcome, not "Halt requested"', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const { attack } = await startWithCard(id, 'attack cpu -l 30');
    // No client has this tag: the platform fails the attack on its own (Faultline refuses such a
    // target before it asks, so this one is made on the platform).
    const failed = {
      guid: stack.sim.createAttackDirectly(stack.sim.seed.teams.platform.id, {
        args: ['-l', '30'],
        target: { type: 'Random', tags: { role: 'nowhere' } },
      }),
    };
    stack.advanceClock(endOf(30));

    const reply = read(await stack.ask(id, `halt ${attack.guid}`, { channel }));
    expect(reply).toContain('already ended (Successful)');
    expect(reply).not.toContain('Halt requested');
    expect(reply).not.toContain('card shows the progress');
    expect(read(await stack.ask(id, `halt ${failed.guid}`, { channel }))).toContain(
      'already ended (Failed: target not found)',
    );
    expect(threadOf(attack.guid).filter((m) => m.includes('halted this attack'))).toEqual([]);
  });

  it('says "Halt requested" and "halted this attack" when the halt did stop it', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const { attack, card } = await startWithCard(id, 'attack cpu -l 30');
    await card.click('Halt');
    const reply = await replySaying(id, 'Halt requested');
    expect(read(reply)).not.toContain('already ended');
    await stack.fake.waitFor(
      () => threadOf(attack.guid).find((m) => m.includes(`<@${id}> halted this attack`)),
      'the halt in the thread',
    );
    await stack.built.services.slack.flush();
    expect(read(cardOf(attack.guid))).toContain(`Halt requested by <@${id}>`);
    expect(audits('attack_halted', id)).toHaveLength(1);
  });

  it('a Halt on a running attack makes one platform call, the halt itself, whose answer says it stopped it', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const { attack, card } = await startWithCard(id, 'attack cpu -l 300');
    const callsBefore = stack.sim.requests.length;
    await card.click('Halt');
    await replySaying(id, 'Halt requested');
    const calls = stack.sim.requests.slice(callsBefore).filter((r) => r.path.includes(attack.guid));
    expect(calls.map((r) => `${r.method} ${r.path}`)).toEqual([`POST /attacks/${attack.guid}/halt`]);
    expect(stack.sim.state.attacks.get(attack.guid)!.halt).toBeDefined();
    expect(audits('attack_halted', id)).toHaveLength(1);
  });

  it('a second halt of an attack already being halted says so, and claims nothing', async () => {
    const id = nextPerson();
    const other = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    await stack.login(other, users().owner, { team: 'Platform' });
    const { attack, card } = await startWithCard(id, 'attack cpu -l 300');
    await card.click('Halt');
    await replySaying(id, 'Halt requested');
    const note = stack.sim.state.attacks.get(attack.guid)!.halt;

    const reply = read(await stack.ask(other, `halt ${attack.guid} --reason "me too"`, { channel }));
    expect(reply).toContain('is already being halted');
    expect(reply).not.toContain('Halt requested');
    await stack.built.services.slack.flush();
    expect(threadOf(attack.guid).filter((m) => m.includes('halted this attack'))).toEqual([
      `:octagonal_sign: <@${id}> halted this attack.`,
    ]);
    expect(stack.sim.state.attacks.get(attack.guid)!.halt).toEqual(note);
    expect(audits('attack_halted', other)).toEqual([]);
  });

  it('a Kubernetes attack that had ended is reported as ended, by id and from its details', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const guid = await kubernetesAttack(id, 30);
    const details = await stack.ask(id, `show ${guid}`, { channel });
    expect(details.buttons().map((b) => b.text)).toContain('Halt');
    stack.advanceClock(endOf(30));

    const byId = read(await stack.ask(id, `halt ${guid}`, { channel }));
    expect(byId).toContain('already ended (Successful)');
    expect(byId).not.toContain('Halt requested');
    await details.click('Halt');
    expect(read(await replySaying(id, 'already ended'))).toContain('Kubernetes attack');
    expect(stack.sim.state.kubernetesAttacks.get(guid)!.halt).toBeUndefined();
    expect(audits('attack_halted', id)).toEqual([]);
  });

  it('a running Kubernetes attack is still halted', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const guid = await kubernetesAttack(id, 300);
    const reply = read(await stack.ask(id, `halt ${guid}`, { channel }));
    expect(reply).toContain('Halt requested for Kubernetes attack');
    expect(stack.sim.state.kubernetesAttacks.get(guid)!.halt).toBeDefined();
  });

  it('from App Home: the reply says it had ended, and Home no longer offers Halt', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const [guid] = stack.sim.addAttacks(stack.sim.seed.teams.platform.id, 1, { lengthSeconds: 30 });
    const home = await stack.openHome(id);
    expect(home.buttons().filter((b) => b.text === 'Halt')).toHaveLength(1);
    stack.advanceClock(endOf(30));
    const published = stack.homePublishes(id);
    await home.click('Halt');
    await stack.fake.waitFor(() => stack.homePublishes(id) > published, 'Home redrawn after the halt');
    // The answer to a click on Home shows on Home, which has no response_url.
    const said = await stack.fake.waitFor(
      () => read(stack.person(id).home()).includes('already ended') && stack.person(id).home(),
      'the answer',
    );
    expect(read(said)).toContain('already ended (Successful)');
    expect(read(said)).not.toContain('Halt requested');
    expect(read(stack.person(id).home())).toContain('Successful');
    expect(
      stack
        .person(id)
        .home()!
        .buttons()
        .map((b) => b.text),
    ).not.toContain('Halt');
    expect(stack.sim.state.attacks.get(guid!)!.halt).toBeUndefined();
  });
});

describe('a Halt from a list', () => {
  it('redraws the list: the row shows Halting and loses its Halt button, the others keep theirs', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    stack.sim.addAttacks(stack.sim.seed.teams.platform.id, 3);
    stack.advanceClock(2 * stageMs + 1000);
    const list = await stack.ask(id, 'list', { channel });
    expect(read(list)).toContain('Initializing');
    expect(list.buttons().filter((b) => b.text === 'Halt')).toHaveLength(3);
    const second = (JSON.parse(list.buttons().filter((b) => b.text === 'Halt')[1]!.value!) as { g: string }).g;

    await list.click('Halt', { index: 1 });
    await stack.fake.waitFor(() => list.buttons().filter((b) => b.text === 'Halt').length === 2, 'the list redrawn');
    const rowOf = (guid: string) =>
      list.blocks
        .map((b) => JSON.stringify(b))
        .filter((b) => b.includes(guid) && b.includes('cpu'))
        .at(-1)!;
    const row = rowOf(second);
    expect(row).toContain('Halting');
    expect(row).not.toContain('Initializing');
    expect(read(list)).toContain(`Halt requested for attack ${second}`);
    expect(stack.sim.state.attacks.get(second)!.halt).toBeDefined();
    // The other rows still halt their own attacks.
    await list.click('Halt', { index: 0 });
    await stack.fake.waitFor(
      () => list.buttons().filter((b) => b.text === 'Halt').length === 1,
      'the list redrawn again',
    );
    expect(rowOf(second)).toContain('Halting');
  });

  it('an attack of the list that had ended: the row shows its outcome, without Halt, and the list says so', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const [guid] = stack.sim.addAttacks(stack.sim.seed.teams.platform.id, 1, { lengthSeconds: 30 });
    const list = await stack.ask(id, 'list', { channel });
    stack.advanceClock(endOf(30));
    await list.click('Halt');
    await stack.fake.waitFor(() => list.buttons().every((b) => b.text !== 'Halt'), 'the list redrawn');
    expect(read(list)).toContain('already ended (Successful)');
    expect(
      list.blocks
        .map((b) => JSON.stringify(b))
        .filter((b) => b.includes(guid!) && b.includes('cpu'))
        .at(-1),
    ).toContain('Successful');
    expect(read(list)).not.toContain('Halt requested');
    expect(stack.sim.state.attacks.get(guid!)!.halt).toBeUndefined();
  });
});

describe('halt all', () => {
  it('reports how many it halted and how many had already ended, and marks only the halted cards', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const short = await startWithCard(id, 'attack cpu -l 30');
    stack.advanceClock(endOf(30));
    const running = await startWithCard(id, 'attack cpu -l 300');
    const k8s = await kubernetesAttack(id, 300);
    expect(
      cardOf(short.attack.guid)!
        .buttons()
        .map((b) => b.text),
    ).toContain('Halt');

    const prompt = await stack.ask(id, 'halt all', { channel });
    await prompt.click('Halt all attacks', { confirm: true });
    const reply = read(await replySaying(id, 'had already ended'));
    expect(reply).toContain('halted 2 attacks (1 Kubernetes)');
    expect(reply).toContain('1 had already ended');
    expect(reply).toContain(`${short.attack.guid.slice(0, 8)}`);
    expect(reply).toContain('(Successful)');
    expect(stack.sim.state.kubernetesAttacks.get(k8s)!.halt).toBeDefined();

    await stack.built.services.slack.flush();
    expect(threadOf(short.attack.guid).filter((m) => m.includes('halted this attack'))).toEqual([]);
    expect(read(cardOf(short.attack.guid))).not.toContain('Halt requested');
    expect(
      cardOf(short.attack.guid)!
        .buttons()
        .map((b) => b.text),
    ).not.toContain('Halt');
    expect(threadOf(running.attack.guid).filter((m) => m.includes(`<@${id}> halted this attack`))).toHaveLength(1);
    expect(read(cardOf(running.attack.guid))).toContain('Halting');
    // Each attack it stopped is audited with its team, as a halt of one attack is.
    const platform = stack.sim.seed.teams.platform.id;
    expect(
      audits('attack_halted', id)
        .filter((line) => [running.attack.guid, k8s].includes(String(line['attack'])))
        .map((line) => line['team']),
    ).toEqual([platform, platform]);
  });

  it('says so when nothing was running', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const prompt = await stack.ask(id, 'halt all', { channel });
    await prompt.click('Halt all attacks', { confirm: true });
    const reply = read(await replySaying(id, 'no active attack'));
    expect(reply).not.toContain('halted all attacks');
  });
});

describe('stages in words', () => {
  it('a halting attack reads "Halting" on its card, never "Halt Distributed", and offers no second Halt', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const { attack, card } = await startWithCard(id, 'attack cpu -l 300');
    await card.click('Halt');
    await replySaying(id, 'Halt requested');
    stack.advanceClock(stageMs + 1000);
    expect(stack.sim.state.attacks.get(attack.guid)).toBeDefined();
    await stack.poll();
    const shown = read(cardOf(attack.guid));
    expect(shown).toContain('Halting');
    expect(shown).not.toContain('Halt Distributed');
    expect(shown).not.toContain('HaltDistributed');
    expect(
      cardOf(attack.guid)!
        .buttons()
        .map((b) => b.text),
    ).not.toContain('Halt');
    const listed = await stack.ask(id, 'list', { channel });
    expect(read(listed)).toContain('Halting');
    expect(read(listed)).not.toContain('Halt Distributed');
    expect(read(await stack.ask(id, `show ${attack.guid}`, { channel }))).not.toMatch(/Halt ?Distributed/);
  });
});

describe('a mistyped flag on halt', () => {
  it('`halt <id> --reasn "too hot"` halts nothing and says which flag was meant', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const { attack } = await startWithCard(id, 'attack cpu -l 300');
    const callsBefore = stack.sim.requests.length;

    const reply = read(await stack.ask(id, `halt ${attack.guid} --reasn "too hot"`, { channel }));
    expect(reply).toContain('--reasn');
    expect(reply).toContain('Did you mean --reason?');
    expect(reply).toContain('Usage: /chaos halt');
    expect(stack.sim.requests.slice(callsBefore)).toEqual([]);
    expect(stack.sim.state.attacks.get(attack.guid)!.halt).toBeUndefined();
    expect(audits('attack_halted', id)).toEqual([]);
  });

  it('`halt <id> --reason "too hot"` halts with that reason', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const { attack } = await startWithCard(id, 'attack cpu -l 300');
    expect(read(await stack.ask(id, `halt ${attack.guid} --reason "too hot"`, { channel }))).toContain(
      'Halt requested',
    );
    expect(stack.sim.state.attacks.get(attack.guid)!.halt?.reason).toContain('too hot');
  });
});
