import { describe, expect, it } from 'vitest';
import { monitoringEnv, Stack, stackForFile } from './harness.ts';

/**
 * What a person can type or pick to start an attack beyond hosts and containers: guards on one
 * attack, Kubernetes objects, and services with sampling, from the command and from the builder.
 */
const read = Stack.read;
const channel = 'C0TARGETS';
let stack: Stack;
stackForFile(
  {
    env: { ATTACK_CHANNELS: channel, ...monitoringEnv },
  },
  (started) => (stack = started),
);

let n = 0;
const nextPerson = () => `U0TARGET${++n}`;
const users = () => stack.sim.seed.users;
const attacksInSim = () => [...stack.sim.state.attacks.values()];
const kubernetesInSim = () => [...stack.sim.state.kubernetesAttacks.values()];
const creates = () =>
  stack.sim.requests.filter(
    (r) => r.method === 'POST' && ['/attacks/new', '/attacks', '/kubernetes/attacks/new'].includes(r.path),
  );
const cardOf = (guid: string) =>
  stack.fake
    .channel(channel)
    .messages()
    .find((m) => m.text().includes(guid));
const checkout = 'acme-prod/checkout/Deployment/checkout';
const cartDb = 'acme-prod/checkout/StatefulSet/cart-db';
const checkoutObject = { clusterId: 'acme-prod', namespace: 'checkout', kind: 'Deployment', name: 'checkout' };
const cartDbObject = { clusterId: 'acme-prod', namespace: 'checkout', kind: 'StatefulSet', name: 'cart-db' };

async function loggedIn() {
  const id = nextPerson();
  await stack.login(id, users().owner, { team: 'Platform' });
  return id;
}

const builder = (id: string, type: string, targetKind: string, field: string) =>
  stack.openBuilder(id, channel, type, targetKind, field);

/** Presses Start on a preview, and waits until the attack has started and its card is kept. */
async function start(id: string, preview: { click(text: string): Promise<unknown> }) {
  const person = stack.person(id);
  const before = person.ephemerals(channel).filter((m) => read(m).includes('Started')).length;
  await preview.click('Start');
  await stack.fake.waitFor(
    () => person.ephemerals(channel).filter((m) => read(m).includes('Started')).length > before,
    'the start confirmation',
  );
}

/** Submits the builder and presses Start on the preview it leads to. */
async function previewAndStart(id: string, modal: Awaited<ReturnType<typeof builder>>, expected: string) {
  const person = stack.person(id);
  await modal.submit();
  const preview = await stack.fake.waitFor(
    () =>
      person.ephemerals(channel).find((m) => read(m).includes(expected) && m.buttons().some((b) => b.text === 'Start')),
    'the preview',
  );
  await start(id, preview);
  return preview;
}

describe('--guard on one attack', () => {
  it('starts with the guard on its card, and halts the attack on the next poll once the guard fires', async () => {
    const id = await loggedIn();
    const reply = await stack.ask(id, 'attack cpu -l 300 -c 1 --target-tags role=web --guard a:1234567 --yes', {
      channel,
    });
    expect(read(reply)).toContain('Started cpu attack');
    const attack = attacksInSim().at(-1)!;
    const card = await stack.fake.waitFor(() => cardOf(attack.guid), 'the card');
    expect(read(card)).toMatch(/Guards .*checkout p99 latency \(1234567\): OK/);

    await stack.poll();
    expect(stack.sim.state.attacks.get(attack.guid)!.halt).toBeUndefined();
    stack.sim.setMonitorState(1234567, 'Alert');
    await stack.poll();
    expect(stack.sim.state.attacks.get(attack.guid)!.halt).toEqual(
      expect.objectContaining({ reason: 'guard checkout p99 latency (1234567) fired' }),
    );
    await stack.poll();
    expect(read(cardOf(attack.guid))).toMatch(/checkout p99 latency \(1234567\): Alert · fired .*, halted this attack/);
  });

  it('takes several, and shows each on the preview and in the equivalent command', async () => {
    const id = await loggedIn();
    const preview = await stack.ask(
      id,
      'attack cpu -l 60 --target-tags role=web --guard a:1234567 --guard b:CheckoutErrorRate',
      { channel },
    );
    expect(read(preview)).toContain('checkout p99 latency (1234567): OK');
    expect(read(preview)).toContain('CheckoutErrorRate: inactive');
    expect(read(preview)).toContain('--guard a:1234567 --guard b:CheckoutErrorRate');
    expect(creates()).toHaveLength(0);
  });

  it.each([
    ['attack cpu -l 30 --guard a:latency --yes', 'is not a monitor id'],
    ['attack cpu -l 30 --guard c:1 --yes', 'is not a guard'],
    ['attack cpu -l 30 --guard --yes', '--guard needs a value'],
    ['attack cpu -l 30 --gaurd a:1234567 --yes', 'Did you mean --guard?'],
  ])('refuses %s with a clear error and sends nothing', async (text, message) => {
    const id = await loggedIn();
    const reply = read(await stack.ask(id, text, { channel }));
    expect(reply).toContain(message);
    expect(reply).toContain('attack cpu');
    expect(creates()).toHaveLength(0);
  });

  it("comes from the builder's Guards field, and a bad one is an error on that field", async () => {
    const id = await loggedIn();
    let modal = await builder(id, 'cpu', 'Random hosts, by tags', 'Tags');
    modal.fill('Length in seconds', '120').fill('Tags', 'role=web').fill('Guards', 'a:1234567, b:nope!');
    await modal.submit();
    expect(modal.errors()).toEqual({ Guards: expect.stringContaining('is not an alert name') });
    expect(creates()).toHaveLength(0);

    modal = stack.person(id).modal()!;
    modal.fill('Guards', 'a:1234567, b:CheckoutErrorRate');
    await previewAndStart(id, modal, 'CheckoutErrorRate: inactive');
    const attack = await stack.fake.waitFor(() => attacksInSim().at(-1), 'the attack');
    const card = await stack.fake.waitFor(() => cardOf(attack.guid), 'the card');
    expect(read(card)).toMatch(/Guards .*checkout p99 latency \(1234567\): OK · .*CheckoutErrorRate: inactive/);
    stack.sim.setAlertState('CheckoutErrorRate', 'firing');
    await stack.poll();
    expect(stack.sim.state.attacks.get(attack.guid)!.halt).toEqual(
      expect.objectContaining({ reason: 'guard CheckoutErrorRate fired' }),
    );
  });
});

describe('a builder target that matches nothing', () => {
  it('is an error on the target field, keeping what was typed, and creates nothing', async () => {
    const id = await loggedIn();
    const modal = await builder(id, 'cpu', 'Random hosts, by tags', 'Tags');
    modal.fill('Length in seconds', '120').fill('Tags', 'role=webb');
    await modal.submit();
    expect(modal.errors()).toEqual({ Tags: expect.stringContaining('Did you mean role=web?') });
    expect(stack.person(id).modal()?.values()['attack_target_values']?.['attack_target_values']).toMatchObject({
      value: 'role=webb',
    });
    expect(creates()).toHaveLength(0);
  });
});

describe('Kubernetes attacks from chat', () => {
  it('sends the exact body from the command, posts a live card, and halts from it', async () => {
    const id = await loggedIn();
    const preview = await stack.ask(
      id,
      `attack cpu -l 300 -c 1 --k8s-target ${checkout} --k8s-target ${cartDb} --k8s-count 1`,
      { channel },
    );
    expect(read(preview)).toContain(
      '1 random object of 2 Kubernetes objects Deployment checkout in acme-prod/checkout, StatefulSet cart-db in acme-prod/checkout',
    );
    expect(read(preview)).toContain(`--k8s-target ${checkout} --k8s-target ${cartDb} --k8s-count 1`);
    await start(id, preview);
    const attack = kubernetesInSim()[0]!;
    expect(creates().map((r) => r.path)).toEqual(['/kubernetes/attacks/new']);
    expect(attack.createRequest).toEqual({
      impactDefinition: { cliArgs: ['cpu', '-l', '300', '-c', '1'] },
      targetDefinition: { strategy: { k8sObjects: [checkoutObject, cartDbObject], count: 1 } },
    });

    const card = await stack.fake.waitFor(() => cardOf(attack.guid), 'the card');
    expect(read(card)).toContain('Kubernetes objects Deployment checkout');
    stack.advanceClock(10_000);
    await stack.poll();
    expect(read(cardOf(attack.guid))).toContain('Running');
    expect(read(cardOf(attack.guid))).toContain('1 client');

    await stack
      .person(id)
      .channel(channel)
      .messages()
      .find((m) => m.text().includes(attack.guid))!
      .click('Halt');
    await stack.fake.waitFor(
      () => stack.sim.state.kubernetesAttacks.get(attack.guid)!.halt,
      'the halt in the simulator',
    );
    stack.advanceClock(30_000);
    await stack.poll();
    expect(read(cardOf(attack.guid))).toContain('User Halted');
    expect(
      cardOf(attack.guid)!
        .buttons()
        .map((b) => b.text),
    ).not.toContain('Halt');
  });

  it('is listed by list --k8s, shown by show, and on App Home', async () => {
    const id = await loggedIn();
    expect(
      read(await stack.ask(id, `attack memory -l 300 -p 20 --k8s-target ${checkout} --yes`, { channel })),
    ).toContain('Started memory attack');
    const attack = kubernetesInSim()[0]!;
    const list = read(await stack.ask(id, 'list --k8s', { channel }));
    expect(list).toContain(attack.guid);
    expect(list).toContain('memory');
    // Counted as its card counts it: the clients the platform resolved, not the objects named.
    const counted = await stack.ask(
      id,
      `attack cpu -l 300 --k8s-target ${checkout} --k8s-target ${cartDb} --k8s-count 1 --yes`,
      { channel },
    );
    expect(read(counted)).toContain('Started cpu attack');
    const second = kubernetesInSim().at(-1)!;
    stack.advanceClock(10_000);
    await stack.poll();
    expect(read(cardOf(second.guid))).toContain('1 client');
    const rows = read(await stack.ask(id, 'list --k8s', { channel })).split('\n');
    const row = rows.findIndex((line) => line.includes(second.guid));
    expect(rows.slice(Math.max(0, row - 1), row + 1).join('\n')).toContain('1 client');
    expect(read(await stack.ask(id, `show ${attack.guid}`, { channel }))).toContain(attack.guid);
    const home = read(await stack.openHome(id));
    expect(home).toContain(`${attack.guid} · Kubernetes`);
  });

  it('sends the exact body from the builder', async () => {
    const id = await loggedIn();
    const modal = await builder(id, 'cpu', 'Kubernetes objects', 'Percent, picked at random');
    modal
      .fill('Length in seconds', '60')
      .fill('Kubernetes objects', `${checkout}, ${cartDb}`)
      .fill('Percent, picked at random', '50');
    await previewAndStart(id, modal, 'a random 50% of 2 Kubernetes objects');
    const attack = await stack.fake.waitFor(() => kubernetesInSim()[0], 'the Kubernetes attack');
    expect(attack.createRequest).toEqual({
      impactDefinition: { cliArgs: ['cpu', '-l', '60'] },
      targetDefinition: { strategy: { k8sObjects: [checkoutObject, cartDbObject], percentage: 50 } },
    });
  });

  it.each([
    [`attack cpu -l 60 --k8s-target acme-prod/checkout --yes`, 'is not a Kubernetes object'],
    [`attack cpu -l 60 --k8s-target ${checkout} --k8s-count 1 --k8s-percent 50 --yes`, 'not both'],
    [
      `attack cpu -l 60 --k8s-count 1 --yes`,
      '--k8s-count picks that many random objects among those named by --k8s-target; add it',
    ],
    [`attack cpu -l 60 --k8s-target ${checkout} --k8s-percent 0 --yes`, 'Give a whole percent, from 1 to 100'],
    [`attack cpu -l 60 --k8s-target ${checkout} --target-tags role=web --yes`, 'Use one target flag'],
  ])('refuses %s and sends nothing', async (text, message) => {
    const id = await loggedIn();
    expect(read(await stack.ask(id, text, { channel }))).toContain(message);
    expect(creates()).toHaveLength(0);
  });
});

describe('service attacks with sampling', () => {
  it('sends the exact POST /attacks body from the command', async () => {
    const id = await loggedIn();
    const service = stack.sim.seed.service.id;
    const reply = await stack.ask(
      id,
      `attack cpu -l 30 --target-service ${service} --sample-percent 50 --include-new-targets --yes`,
      { channel },
    );
    expect(read(reply)).toContain(
      `a random 50% of the targets of service ${service}, and targets that join it while the attack runs`,
    );
    expect(creates().map((r) => r.path)).toEqual(['/attacks']);
    expect(attacksInSim().at(-1)!.createRequest).toEqual({
      attackConfiguration: {
        command: { infraCommandType: 'CPU', infraCommandArgs: { cliArgs: ['cpu', '-l', '30'] } },
        targets: [{ serviceId: service, targetingStrategy: { type: 'All' } }],
        sampling: { type: 'Percent', percent: 50 },
      },
      includeNewTargets: true,
    });
    expect(attacksInSim().at(-1)!.targets).toHaveLength(1);
  });

  it('sends the exact POST /attacks body from the builder, the same as the command', async () => {
    const id = await loggedIn();
    const service = stack.sim.seed.service.id;
    const modal = await builder(id, 'cpu', 'A service', 'Sample percent');
    modal
      .fill('Length in seconds', '45')
      .fill('Service id', service)
      .fill('Sample percent', '50')
      .choose('New targets', 'Also attack targets that join the service while it runs');
    await previewAndStart(id, modal, `--target-service ${service} --sample-percent 50 --include-new-targets`);
    const attack = await stack.fake.waitFor(() => attacksInSim().at(-1), 'the service attack');
    expect(attack.createRequest).toEqual({
      attackConfiguration: {
        command: { infraCommandType: 'CPU', infraCommandArgs: { cliArgs: ['cpu', '-l', '45'] } },
        targets: [{ serviceId: service, targetingStrategy: { type: 'All' } }],
        sampling: { type: 'Percent', percent: 50 },
      },
      includeNewTargets: true,
    });
  });

  it('without sampling attacks every target, and says so', async () => {
    const id = await loggedIn();
    const service = stack.sim.seed.service.id;
    expect(read(await stack.ask(id, `attack cpu -l 30 --target-service ${service} --yes`, { channel }))).toContain(
      `every target of service ${service}`,
    );
    expect(attacksInSim().at(-1)!.createRequest).toEqual(expect.objectContaining({ includeNewTargets: false }));
    expect(
      (attacksInSim().at(-1)!.createRequest as { attackConfiguration: object }).attackConfiguration,
    ).not.toHaveProperty('sampling');
  });

  it.each([
    [
      'attack cpu -l 30 --target-tags role=web --sample-percent 50 --yes',
      '--sample-percent attacks that share of the targets of --target-service; it does not go with --target-tags',
    ],
    ['attack cpu -l 30 --target-service svc --sample-percent 150 --yes', 'Give a whole percent, from 1 to 100'],
    ['attack cpu -l 30 --target-service svc --include-new-targets=yes --yes', '--include-new-targets takes no value'],
    [
      'attack cpu -l 30 --target-service "svc-1 svc-2" --yes',
      '--target-service “svc-1 svc-2”: give one service id, not a list',
    ],
    ['attack cpu -l 30 --target-service svc-1,svc-2 --yes', 'give one service id, not a list'],
    ['attack cpu -l 30 --target-service ../teams --yes', 'a service id has letters, digits, - and _ only'],
  ])('refuses %s and sends nothing', async (text, message) => {
    const id = await loggedIn();
    expect(read(await stack.ask(id, text, { channel }))).toContain(message);
    expect(creates()).toHaveLength(0);
  });
});

describe('the builder keeps what was typed', () => {
  it('keeps a value typed under "Target values" when "Exact hosts" renames the field, and submits it', async () => {
    const id = await loggedIn();
    const person = stack.person(id);
    await person.command('attack', { channel });
    let modal = await stack.fake.waitFor(
      () => person.modal()?.callbackId === 'attack_builder' && person.modal(),
      'the builder',
    );
    await modal.select('Attack type', 'cpu');
    modal = await stack.fake.waitFor(
      () => person.modal()?.text().includes('Length in seconds') && person.modal(),
      'the cpu arguments',
    );
    modal.fill('Length in seconds', '45').fill('Target values', 'platform-web-2');
    await modal.select('Target', 'Exact hosts');
    modal = await stack.fake.waitFor(() => person.modal()?.text().includes('Host ids') && person.modal(), 'Host ids');
    expect(modal.text()).not.toContain('Target values');
    await previewAndStart(id, modal, '--target-hosts platform-web-2');
    const attack = await stack.fake.waitFor(() => attacksInSim().at(-1), 'the attack');
    expect(JSON.stringify(attack.infraTarget)).toContain('platform-web-2');
  });
});
