import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message } from '@faultline/fake-slack';
import { describe, expect, it } from 'vitest';
import { SlackRecorder } from '../support/slackRecorder.ts';
import { Stack, stackForFile } from './harness.ts';
import { startedCard } from '../support/cards.ts';

const read = Stack.read;
const channel = 'C0GENERAL';
let stack: Stack;
stackForFile(
  { env: { MAX_ATTACK_SECONDS: '600', ATTACK_CHANNELS: `${channel},C0GAMEDAY` } },
  (started) => (stack = started),
);

let n = 0;
const nextPerson = () => `U0ATTACK${++n}`;
const users = () => stack.sim.seed.users;
const creates = () =>
  stack.sim.requests.filter((r) => r.method === 'POST' && (r.path === '/attacks/new' || r.path === '/attacks'));
const attacksInSim = () => [...stack.sim.state.attacks.values()];

/** The card of an attack in the channel, by the guid in its text. */
function cardOf(guid: string): Message | undefined {
  return stack.fake
    .channel(channel)
    .messages()
    .find((m) => m.text().includes(guid));
}

async function previewAndStart(personId: string, text: string) {
  const preview = await stack.ask(personId, text, { channel });
  expect(read(preview)).toContain('Start');
  await preview.click('Start');
  const attack = await stack.fake.waitFor(() => attacksInSim().at(-1), 'an attack in the simulator');
  const card = await stack.fake.waitFor(() => cardOf(attack.guid), 'the attack card');
  return { preview, attack, card };
}

describe('starting an attack from the slash command', () => {
  it('previews, starts on Start, posts a live card that ends Successful without Halt', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const preview = await stack.ask(id, 'attack cpu -l 30 -c 1 --target-tags role=web', { channel });
    expect(read(preview)).toContain('-l 30 -c 1');
    expect(read(preview)).toContain('role=web');
    expect(creates()).toHaveLength(0);

    await preview.click('Start');
    const attack = await stack.fake.waitFor(() => attacksInSim()[0], 'the attack in the simulator');
    expect(attacksInSim()).toHaveLength(1);
    expect(attack.type).toBe('cpu');
    expect(attack.args).toEqual(['-l', '30', '-c', '1']);
    expect(attack.infraTarget).toEqual({ type: 'Random', tags: { role: 'web' } });
    expect(attack.teamId).toBe(stack.sim.seed.teams.platform.id);

    const card = await stack.fake.waitFor(() => cardOf(attack.guid), 'the card');
    expect(read(card)).toContain(`Started by <@${id}>`);
    expect(card.buttons().map((b) => b.text)).toEqual(['Halt', 'File ticket', 'Add note', 'Details']);
    await stack.fake.waitFor(
      () => read(stack.person(id).ephemerals(channel).at(-1)).includes('Started cpu attack'),
      'the start confirmation',
    );

    stack.advanceClock(10_000);
    await stack.poll();
    expect(read(cardOf(attack.guid))).toContain('Running');

    stack.advanceClock(60_000);
    await stack.poll();
    const finished = cardOf(attack.guid)!;
    expect(read(finished)).toContain('Successful');
    expect(finished.buttons().map((b) => b.text)).toEqual(['File ticket', 'Add note', 'Details']);
    expect(await stack.built.services.attacks.cards.liveByTeam()).toEqual(new Map());

    // Every state change is one audit line naming the Slack user, the platform identity, the team and the attack.
    const audits = stack.logs.filter((line) => line['audit'] === 'attack_started');
    expect(audits).toEqual([
      expect.objectContaining({
        slackUser: id,
        platformUser: users().owner.email,
        team: stack.sim.seed.teams.platform.id,
        attack: attack.guid,
      }),
    ]);
  });

  it('with --yes starts at once, with the exact target payloads of the flag table', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const cases: [string, unknown][] = [
      [
        '--target-hosts platform-web-1,platform-web-2',
        { type: 'Exact', hosts: { ids: ['platform-web-1', 'platform-web-2'] } },
      ],
      ['--target-containers checkout-1', { type: 'Exact', containers: { ids: ['checkout-1'] } }],
      ['--target-tags role=web,zone=us-east-1a', { type: 'Random', tags: { role: 'web', zone: 'us-east-1a' } }],
      [
        '--target-labels app=checkout --target-count 1',
        { type: 'Random', containers: { labels: { app: 'checkout' } }, exact: 1 },
      ],
      ['', { type: 'Random' }],
    ];
    for (const [flags, target] of cases) {
      const before = attacksInSim().length;
      const reply = await stack.ask(id, `attack memory -l 20 -p 10 ${flags} --yes`, { channel });
      expect(read(reply)).toContain('Started memory attack');
      expect(attacksInSim()).toHaveLength(before + 1);
      expect(attacksInSim().at(-1)!.infraTarget).toEqual(target);
      expect(attacksInSim().at(-1)!.args).toEqual(['-l', '20', '-p', '10']);
    }
  });

  it('says in words when every active client of the team would be hit', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Payments' });
    const preview = await stack.ask(id, 'attack cpu -l 30', { channel });
    expect(read(preview)).toContain('every active client of team Payments');
  });

  it('runs --target-service through POST /attacks', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const reply = await stack.ask(id, `attack cpu -l 30 --target-service ${stack.sim.seed.service.id} --yes`, {
      channel,
    });
    expect(read(reply)).toContain('Started cpu attack');
    expect(creates().map((r) => r.path)).toEqual(['/attacks']);
  });

  it('--team runs in that team only when it is one of yours', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    await stack.ask(id, 'attack cpu -l 30 --team Search --yes', { channel });
    expect(attacksInSim().at(-1)!.teamId).toBe(stack.sim.seed.teams.search.id);
    const refused = await stack.ask(id, 'attack cpu -l 30 --team Globex --yes', { channel });
    expect(read(refused)).toContain('None of your teams matches');
    expect(attacksInSim()).toHaveLength(1);
  });

  it.each([
    ['a no-break space', '\u00a0'],
    ['a tab', '\t'],
    ['a newline', '\n'],
  ])('--team after %s starts in the named team, not the selected one', async (_name, space) => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const reply = await stack.ask(id, `attack cpu -l 30 --team${space}Payments --yes`, { channel });
    expect(read(reply)).toContain('Started cpu attack');
    expect(read(reply)).toContain('team Payments');
    expect(attacksInSim()).toHaveLength(1);
    expect(attacksInSim()[0]!.teamId).toBe(stack.sim.seed.teams.payments.id);
  });

  it('refuses a --team after a no-break space that is none of yours, and sends nothing', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const refused = await stack.ask(id, 'attack cpu -l 30 --team\u00a0Globex --yes', { channel });
    expect(read(refused)).toContain('None of your teams matches “Globex”');
    expect(read(refused)).toContain('Usage: /chaos attack');
    expect(creates()).toHaveLength(0);
  });

  it.each([
    ['attack cpu -l 30 -p 500', '-p: expected a whole number from 1 to 100'],
    ['attack cpu -l 30 -c -4', '-c: expected a whole number, at least 1'],
    ['attack cpu -l 30 --target-tags role=web --target-count 1000000', 'at least 1 and at most 1000'],
    ['attack cpuu -l 30', 'Did you mean cpu?'],
    ['attack cpu -l 30 --target-tag role=web', 'Did you mean --target-tags?'],
    ['attack cpuu -l 30', '“cpuu” is not an attack type'],
    ['attack cpu -l 30 --cores-per-host 2', '--cores-per-host'],
    ['attack cpu -l 30 -c many', '-c'],
    ['attack cpu -l 6000', '600'],
    ['attack cpu -l 30 --target-hosts web-1 --target-tags role=web', 'target'],
  ])('refuses “%s” with a clear message and the usage, and sends nothing', async (text, words) => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const reply = await stack.ask(id, text, { channel });
    expect(read(reply)).toContain(words);
    expect(read(reply)).toContain('Usage: /chaos attack');
    expect(creates()).toHaveLength(0);
  });

  it('refuses a channel outside ATTACK_CHANNELS', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const reply = await stack.ask(id, 'attack cpu -l 30 --yes', { channel: 'C0RANDOM' });
    expect(read(reply)).toContain('Attacks cannot be started in this channel');
    expect(creates()).toHaveLength(0);
  });

  it('starts one attack when Start is clicked twice quickly or the click is delivered twice', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const preview = await stack.ask(id, 'attack cpu -l 30', { channel });
    await Promise.all([preview.click('Start'), preview.click('Start')]);
    await stack.fake.redeliverLast({ as: 'duplicate' });
    await stack.fake.waitFor(() => attacksInSim().length === 1 && cardOf(attacksInSim()[0]!.guid), 'the card');
    expect(creates()).toHaveLength(1);
    expect(attacksInSim()).toHaveLength(1);
    expect(
      stack.fake
        .channel(channel)
        .messages()
        .filter((m) => m.text().includes(attacksInSim()[0]!.guid)),
    ).toHaveLength(1);
  });

  it('starts nothing more when a --yes command is delivered again', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    await stack.ask(id, 'attack cpu -l 30 --yes', { channel });
    await stack.fake.redeliverLast({ as: 'duplicate' });
    await stack.fake.redeliverLast({ as: 'retry' });
    expect(creates()).toHaveLength(1);
  });

  it('keeps "Started" when a Start click is delivered again after the attack started', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const preview = await stack.ask(id, 'attack cpu -l 30', { channel });
    await preview.click('Start');
    await stack.fake.waitFor(
      () => read(stack.person(id).ephemerals(channel).at(-1)).includes('Started cpu attack'),
      'the start confirmation',
    );
    await stack.fake.redeliverLast({ as: 'duplicate' });
    expect(read(stack.person(id).ephemerals(channel).at(-1))).toContain('Started cpu attack');
    expect(creates()).toHaveLength(1);
  });

  it('Cancel sends nothing, and a Start after it starts nothing', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const preview = await stack.ask(id, 'attack cpu -l 30', { channel });
    const startButton = preview.buttons().find((b) => b.text === 'Start')!;
    await preview.click('Cancel');
    await stack.fake.waitFor(
      () => read(stack.person(id).ephemerals(channel).at(-1)).includes('Cancelled'),
      'the cancellation',
    );
    expect(await stack.built.store.claim(`start:${startButton.value}`, 1000)).toBe(false);
    expect(creates()).toHaveLength(0);
  });

  it('says the outcome is unknown when the create times out, and never sends it twice', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    stack.sim.faults.inject({ method: 'POST', path: '/attacks/new', kind: 'hang' });
    const preview = await stack.ask(id, 'attack cpu -l 30', { channel });
    await preview.click('Start');
    const reply = await stack.fake.waitFor(
      () =>
        stack
          .person(id)
          .ephemerals(channel)
          .find((m) => read(m).includes('not known whether')),
      'the unknown-outcome message',
      20_000,
    );
    expect(read(reply)).toContain('/chaos list');
    expect(creates()).toHaveLength(1);
    await reply.click('Start').catch(() => undefined);
    expect(creates()).toHaveLength(1);
  }, 30_000);
});

describe('a preview offers only what the person may do', () => {
  it('shows no Start to someone whose role on the team cannot run attacks, and says why', async () => {
    const observer = nextPerson();
    await stack.login(observer, users().observer);
    const preview = await stack.ask(observer, 'attack cpu -l 30 -c 1 --target-tags role=web', { channel });
    expect(read(preview)).toContain('-l 30 -c 1');
    expect(read(preview)).toContain('EXPERIMENTS_RUN');
    expect(read(preview)).toContain('Platform');
    expect(preview.buttons().map((b) => b.text)).not.toContain('Start');
    expect(creates()).toHaveLength(0);
  });

  it('App Home offers New attack only where the person may start one, and says why not', async () => {
    const observer = nextPerson();
    await stack.login(observer, users().observer);
    const home = await stack.openHome(observer);
    expect(home.buttons().map((b) => b.text)).not.toContain('New attack');
    expect(read(home)).toContain('EXPERIMENTS_RUN');
    const owner = nextPerson();
    await stack.login(owner, users().owner, { team: 'Platform' });
    expect((await stack.openHome(owner)).buttons().map((b) => b.text)).toContain('New attack');
  });
});

describe('the attack builder', () => {
  it('produces the same attack as the equivalent slash command', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const person = stack.person(id);

    await stack.ask(id, 'attack cpu -l 45 -c 2 --target-tags role=web --yes', { channel });
    const fromCommand = attacksInSim().at(-1)!;

    const modal = await stack.openBuilder(id, channel, 'cpu', 'Random hosts, by tags', 'Target values');
    modal.fill('Length in seconds', '45').fill('Cores (-c)', '2').fill('Target values', 'role=web');
    await modal.submit();
    const preview = await stack.fake.waitFor(
      () =>
        person
          .ephemerals(channel)
          .find((m) => read(m).includes('-l 45 -c 2') && m.buttons().some((b) => b.text === 'Start')),
      'the preview',
    );
    await preview.click('Start');
    const fromBuilder = await stack.fake.waitFor(
      () => attacksInSim().length === 2 && attacksInSim().at(-1),
      'the second attack',
    );
    expect({
      type: fromBuilder.type,
      args: fromBuilder.args,
      target: fromBuilder.infraTarget,
      team: fromBuilder.teamId,
    }).toEqual({
      type: fromCommand.type,
      args: fromCommand.args,
      target: fromCommand.infraTarget,
      team: fromCommand.teamId,
    });
  });
});

describe("the attack builder's reply", () => {
  it("goes to Slack only: a reply address in the view that is not Slack's gets nothing, and the preview comes in the channel", async () => {
    const elsewhere: string[] = [];
    const server = createServer((request, response) => {
      elsewhere.push(request.url ?? '');
      request.resume();
      response.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const id = nextPerson();
      await stack.login(id, users().owner, { team: 'Platform' });
      const person = stack.person(id);
      const modal = await stack.openBuilder(id, channel, 'cpu', 'Random hosts, by tags', 'Target values');
      modal.fill('Length in seconds', '45').fill('Target values', 'role=web');
      // The view comes back with another reply address than the one Slack gave the command.
      const view = (modal as unknown as { record: { definition: Record<string, unknown> } }).record.definition;
      const { port } = server.address() as AddressInfo;
      view['private_metadata'] = JSON.stringify({
        ...JSON.parse(String(view['private_metadata'])),
        responseUrl: `http://127.0.0.1:${port}/hooks/stolen`,
      });
      await modal.submit();
      await stack.fake.waitFor(
        () =>
          person
            .ephemerals(channel)
            .find((m) => read(m).includes('-l 45') && m.buttons().some((b) => b.text === 'Start')),
        'the preview in the channel',
      );
      expect(elsewhere).toEqual([]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('the attack builder checks ranges', () => {
  it('shows an out-of-range number on its field, keeps the modal open, and sends nothing', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const person = stack.person(id);
    const modal = await stack.openBuilder(id, channel, 'cpu', 'Random hosts, by tags', 'Target values');
    modal
      .fill('Percent (-p)', '500')
      .fill('Cores (-c)', '-4')
      .fill('Target values', 'role=web')
      .fill('How many, picked at random', '1000000');
    await modal.submit();
    expect(modal.errors()).toEqual({
      'Percent (-p)': 'Expected a whole number from 1 to 100.',
      'Cores (-c)': 'Expected a whole number, at least 1.',
      'How many, picked at random': 'Give a whole number of clients, at least 1 and at most 1000.',
    });
    expect(person.modal()?.callbackId).toBe('attack_builder');
    expect(creates()).toHaveLength(0);
  });
});

describe('halting', () => {
  it("runs with the clicker's session: refused without HALT_WRITE, done with it, said in the thread", async () => {
    const owner = nextPerson();
    const observer = nextPerson();
    const sre = nextPerson();
    await stack.login(owner, users().owner, { team: 'Platform' });
    await stack.login(observer, users().observer);
    await stack.login(sre, users().sre, { team: 'Platform', mfaCode: stack.sim.seed.mfaCode });
    const { attack } = await previewAndStart(owner, 'attack cpu -l 300 --target-tags role=web');

    await stack
      .person(observer)
      .channel(channel)
      .messages()
      .find((m) => m.text().includes(attack.guid))!
      .click('Halt');
    const refused = await stack.fake.waitFor(() => stack.person(observer).lastEphemeral(), 'the refusal');
    expect(read(refused)).toContain('HALT_WRITE');
    expect(read(refused)).toContain('Platform');
    expect(stack.sim.state.attacks.get(attack.guid)!.halt).toBeUndefined();

    await stack
      .person(sre)
      .channel(channel)
      .messages()
      .find((m) => m.text().includes(attack.guid))!
      .click('Halt');
    await stack.fake.waitFor(() => stack.sim.state.attacks.get(attack.guid)!.halt, 'the halt in the simulator');
    const card = cardOf(attack.guid)!;
    const thread = await stack.fake.waitFor(
      () =>
        stack.fake
          .channel(channel)
          .thread(card.ts)
          .find((m) => read(m).includes('halted this attack')),
      'the thread reply',
    );
    expect(read(thread)).toContain(`<@${sre}>`);

    // The card offers no second Halt while halting; the click delivered again is harmless: no error, no second thread reply, no second halt.
    await stack.fake.waitFor(
      () =>
        !cardOf(attack.guid)!
          .buttons()
          .some((b) => b.text === 'Halt'),
      'the card without Halt while halting',
    );
    await stack.fake.redeliverLast({ as: 'duplicate' });
    stack.advanceClock(30_000);
    await stack.poll();
    expect(read(cardOf(attack.guid))).toContain('User Halted');
    expect(
      cardOf(attack.guid)!
        .buttons()
        .map((b) => b.text),
    ).not.toContain('Halt');
    expect(
      stack.fake
        .channel(channel)
        .thread(card.ts)
        .filter((m) => read(m).includes('halted this attack')),
    ).toHaveLength(1);
    expect(
      stack.logs.filter((line) => line['audit'] === 'attack_halted').map((line) => [line['slackUser'], line['attack']]),
    ).toEqual([[sre, attack.guid]]);
  });

  it('halts by id with a reason, and refuses a malformed id', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const [guid] = stack.sim.addAttacks(stack.sim.seed.teams.platform.id, 1);
    const reply = await stack.ask(id, `halt ${guid} --reason "error budget spent"`, { channel });
    expect(read(reply)).toContain('Halt requested');
    expect(stack.sim.state.attacks.get(guid!)!.halt?.reason).toBe('error budget spent');
    expect(read(await stack.ask(id, 'halt not-an-id!', { channel }))).toContain('is not an attack id');
  });

  it('halts by id an attack of another of your teams than the selected one', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const [guid] = stack.sim.addAttacks(stack.sim.seed.teams.search.id, 1);
    expect(read(await stack.ask(id, `halt ${guid}`, { channel }))).toContain('Halt requested');
    expect(stack.sim.state.attacks.get(guid!)!.halt).toBeDefined();
    const [foreign] = stack.sim.addAttacks(stack.sim.seed.teams.globex.id, 1);
    expect(read(await stack.ask(id, `halt ${foreign}`, { channel }))).toContain(
      'that you can read in any of your 3 teams',
    );
    expect(stack.sim.state.attacks.get(foreign!)!.halt).toBeUndefined();
  });

  it('halts a Kubernetes attack by id', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const api = stack.built.platform.as({
      header: (await stack.built.sessions.get({ workspaceId: stack.fake.teamId, userId: id }))!.session.header,
      teamId: stack.sim.seed.teams.platform.id,
    });
    const object = stack.sim.seed.kubernetesObjects[0]!;
    const guid = await api.kubernetes.create({
      impactDefinition: { cliArgs: ['cpu', '-l', '60'] },
      targetDefinition: {
        strategy: {
          k8sObjects: [
            { clusterId: object.clusterId, namespace: object.namespace, kind: object.kind, name: object.name },
          ],
        },
      },
    });
    expect(read(await stack.ask(id, 'list --k8s', { channel }))).toContain(guid);
    const details = read(await stack.ask(id, `show ${guid}`, { channel }));
    expect(details).toContain('cpu attack');
    expect(details).toContain('1 client');
    const withButton = await stack.ask(id, `show ${guid}`, { channel });
    await withButton.click('Halt');
    await stack.fake.waitFor(
      () => read(stack.person(id).ephemerals(channel).at(-1)).includes('Halt requested for Kubernetes attack'),
      'the halt from details',
    );
    expect(read(await stack.ask(id, `halt ${guid}`, { channel }))).toContain('Kubernetes attack');
    stack.advanceClock(30_000);
    expect(read(await stack.ask(id, 'list --k8s', { channel }))).not.toContain(guid);
    expect(read(await stack.ask(id, 'list completed --k8s', { channel }))).toContain(guid);
  });

  it('halt all and halt everything ask for confirmation first', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    stack.sim.addAttacks(stack.sim.seed.teams.platform.id, 2);
    stack.sim.addAttacks(stack.sim.seed.teams.search.id, 1);
    const prompt = await stack.ask(id, 'halt all', { channel });
    await expect(prompt.click('Halt all attacks')).rejects.toThrow();
    expect([...stack.sim.state.attacks.values()].every((a) => !a.halt)).toBe(true);
    await prompt.click('Halt all attacks', { confirm: true });
    await stack.fake.waitFor(() => [...stack.sim.state.attacks.values()].every((a) => a.halt), 'every attack halted');
    // The reply comes after the halts; asking again before it would take it for the next answer.
    await stack.fake.waitFor(
      () =>
        stack
          .person(id)
          .ephemerals()
          .some((m) => m.text().includes('halted 3 attacks')),
      'the Halt all reply',
    );

    stack.sim.addAttacks(stack.sim.seed.teams.payments.id, 1);
    const everything = await stack.ask(id, 'halt everything', { channel });
    await everything.click('Halt everything', { confirm: true });
    await stack.fake.waitFor(() => stack.sim.requests.some((r) => r.path === '/halts'), 'POST /halts');
  });
});

describe('listing and showing', () => {
  it("pages 2,500 active attacks within Slack's block limits, with Next", async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const guids = stack.sim.addAttacks(stack.sim.seed.teams.platform.id, 2500);
    const mark = stack.sim.requests.length;
    const first = await stack.ask(id, 'list', { channel });
    const shown = (m: Message) => guids.filter((g) => m.text().includes(g));
    const firstPage = shown(first);
    expect(firstPage).toHaveLength(20);
    expect(first.blocks.length).toBeLessThanOrEqual(50);
    expect(first.buttons().filter((b) => b.text === 'Halt')).toHaveLength(20);
    // The first page comes from one read of the paged endpoint, not from reading all 2,500.
    const reads = stack.sim.requests.slice(mark);
    expect(reads.map((r) => r.path)).toEqual(['/attacks/active/paged']);
    expect(reads[0]!.query).toMatchObject({ pageSize: '20' });

    // The Halt on the third row halts that row's attack, and no other.
    const third = (JSON.parse(first.buttons().filter((b) => b.text === 'Halt')[2]!.value!) as { g: string }).g;
    expect(first.blocks.map((b) => JSON.stringify(b)).findIndex((b) => b.includes(third))).toBe(3);
    await first.click('Halt', { index: 2 });
    await stack.fake.waitFor(() => stack.sim.state.attacks.get(third)!.halt, 'the third row halted');
    expect([...stack.sim.state.attacks.values()].filter((a) => a.halt).map((a) => a.guid)).toEqual([third]);

    await first.click('Next page');
    const second = await stack.fake.waitFor(
      () =>
        stack
          .person(id)
          .ephemerals(channel)
          .find((m) => read(m).includes('Page 2')),
      'page 2',
    );
    expect(shown(second)).toHaveLength(20);
    expect(shown(second).some((g) => firstPage.includes(g))).toBe(false);
    expect(stack.fake.failures()).toEqual([]);
  });

  it('lists completed attacks, filters by source, and refuses unknown words', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    await stack.ask(id, 'attack cpu -l 30 --yes', { channel });
    stack.advanceClock(120_000);
    expect(read(await stack.ask(id, 'list completed', { channel }))).toContain('Successful');
    expect(read(await stack.ask(id, 'list active --source Scenario', { channel }))).toContain('source Scenario');
    expect(read(await stack.ask(id, 'list finished', { channel }))).toContain('Usage: /chaos list');
  });

  it('drops Halt all from a list once its last attack is halted', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const [guid] = stack.sim.addAttacks(stack.sim.seed.teams.platform.id, 1);
    const list = await stack.ask(id, 'list', { channel });
    expect(list.buttons().map((b) => b.text)).toEqual(['Halt', 'Halt all']);
    await list.click('Halt');
    const redrawn = await stack.fake.waitFor(
      () =>
        stack
          .person(id)
          .ephemerals(channel)
          .find((m) => m.ts === list.ts && read(m).includes('Halt requested')),
      'the list redrawn',
    );
    expect(read(redrawn)).toContain(guid);
    expect(redrawn.buttons().map((b) => b.text)).toEqual([]);
  });

  it('shows the attack in the words its card uses: clients, and where it came from', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const { attack, card } = await stack.startAttack(
      id,
      'attack cpu -l 300 --target-hosts platform-web-1,platform-web-2',
      channel,
    );
    stack.advanceClock(10_000);
    await stack.poll();
    await stack.fake.waitFor(() => read(cardOf(attack.guid)).includes('Running'), 'the card running');
    expect(read(cardOf(attack.guid))).toContain('2 clients');
    const details = read(await stack.ask(id, `show ${attack.guid}`, { channel }));
    expect(details).toContain('2 clients');
    expect(details).not.toMatch(/Hosts|via Api/);
    expect(details).toContain('the API');
    expect(read(card)).toContain(attack.guid);
  });

  it('shows one attack with its executions', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    await stack.ask(id, 'attack cpu -l 30 --target-tags role=web --yes', { channel });
    const guid = attacksInSim().at(-1)!.guid;
    stack.advanceClock(8_000);
    const details = await stack.ask(id, `show ${guid}`, { channel });
    expect(read(details)).toContain('Executions (2)');
    expect(read(details)).toContain('platform-web-1');
    expect(read(await stack.ask(id, 'show 00000000-0000-0000-0000-000000000000', { channel }))).toContain(
      'The platform has no attack',
    );
  });
});

describe('notes', () => {
  it('adds a note by command and by the card button, shown on the card and in its thread', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const { attack, card } = await previewAndStart(id, 'attack cpu -l 300');
    expect(read(await stack.ask(id, `note ${attack.guid} p99 doubled on checkout`, { channel }))).toContain(
      'Note added',
    );
    await stack.built.services.slack.flush();
    expect(read(cardOf(attack.guid))).toContain('p99 doubled on checkout');

    await stack
      .person(id)
      .channel(channel)
      .messages()
      .find((m) => m.text().includes(attack.guid))!
      .click('Add note');
    const modal = await stack.fake.waitFor(
      () => stack.person(id).modal()?.callbackId === 'attack_note' && stack.person(id).modal(),
      'the note form',
    );
    await modal.fill('Note', 'errors recovered after 40 s').submit();
    await stack.fake.waitFor(
      () =>
        Object.values(stack.sim.state.attacks.get(attack.guid)!.annotations).some((v) =>
          v.includes('errors recovered'),
        ),
      'the second note',
    );
    await stack.built.services.slack.flush();
    expect(read(cardOf(attack.guid))).toContain('errors recovered after 40 s');
    expect(read(cardOf(attack.guid))).toContain('p99 doubled on checkout');
    expect(
      stack.fake
        .channel(channel)
        .thread(card.ts)
        .filter((m) => read(m).includes('noted')),
    ).toHaveLength(2);
  });

  it('adds a note once when its signed request is sent again, by command or by the form', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const { attack, card } = await previewAndStart(id, 'attack cpu -l 300');
    const notes = (text: string) =>
      Object.values(stack.sim.state.attacks.get(attack.guid)!.annotations).filter((v) => v.includes(text)).length;
    const noted = (text: string) =>
      stack.fake
        .channel(channel)
        .thread(card.ts)
        .filter((m) => read(m).includes(text)).length;
    // Other requests sent again earlier log the same line.
    const earlier = stack.logs.filter(
      (line) => line.msg === 'a request came again; what it asked was done once',
    ).length;
    const refusals = () =>
      stack.logs.filter((line) => line.msg === 'a request came again; what it asked was done once').length - earlier;
    const recorder = await SlackRecorder.start(`http://127.0.0.1:${stack.bot.port}/slack/events`);
    stack.fake.setBotUrl(recorder.url);
    try {
      expect(read(await stack.ask(id, `note ${attack.guid} once by command`, { channel }))).toContain('Note added');
      const [command] = recorder.find((fields) => fields.get('text')?.includes('once by command') === true);
      // Within the five minutes Slack's signature lasts, the same bytes are a valid request.
      expect((await recorder.send(command!)).status).toBe(200);
      await stack.fake.waitFor(() => refusals() === 1 || notes('once by command') > 1, 'the repeated command handled');

      await stack
        .person(id)
        .channel(channel)
        .messages()
        .find((m) => m.text().includes(attack.guid))!
        .click('Add note');
      const modal = await stack.fake.waitFor(
        () => stack.person(id).modal()?.callbackId === 'attack_note' && stack.person(id).modal(),
        'the note form',
      );
      await modal.fill('Note', 'once by form').submit();
      const [submission] = recorder.find((fields) => fields.get('payload')?.includes('once by form') === true);
      expect((await recorder.send(submission!)).status).toBe(200);
      await stack.fake.waitFor(() => refusals() === 2 || notes('once by form') > 1, 'the repeated submission handled');
    } finally {
      stack.fake.setBotUrl(`http://127.0.0.1:${stack.bot.port}/slack/events`);
      await recorder.stop();
    }
    await stack.built.services.slack.flush();
    expect(notes('once by command')).toBe(1);
    expect(notes('once by form')).toBe(1);
    expect(noted('once by command')).toBe(1);
    expect(noted('once by form')).toBe(1);
  });
});

describe('the poller', () => {
  it('with 300 live cards in 3 teams reads one list per team per pass and updates only changed cards', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const teams = [stack.sim.seed.teams.platform, stack.sim.seed.teams.payments, stack.sim.seed.teams.search];
    for (const team of teams) {
      for (const guid of stack.sim.addAttacks(team.id, 100)) {
        const posted = await stack.built.services.slack.post(channel, { text: `card ${guid}` });
        await stack.built.services.attacks.cards.savePosted(
          startedCard({
            guid,
            teamId: team.id,
            teamName: team.name,
            channel,
            ts: posted.ts,
            startedBy: { workspaceId: stack.fake.teamId, userId: id, userName: id },
            startedByPlatform: users().owner.email,
          }),
        );
      }
    }
    stack.advanceClock(10_000);
    const before = stack.sim.requests.length;
    const first = await stack.poll();
    expect(first).toMatchObject({ teams: 3, cards: 300, updated: 300 });
    const reads = stack.sim.requests.slice(before);
    expect(reads.filter((r) => r.path === '/attacks/active/paged')).toHaveLength(3);
    expect(reads.filter((r) => r.path.startsWith('/attacks/') && r.path !== '/attacks/active/paged')).toHaveLength(0);

    const updatesBefore = stack.fake.callsTo('chat.update').length;
    const again = await stack.poll();
    expect(again.updated).toBe(0);
    expect(stack.fake.callsTo('chat.update').length).toBe(updatesBefore);

    // Finish one attack: it leaves the active list, is read once on its own, and its card changes.
    const [one] = [...stack.sim.state.attacks.values()].filter((a) => a.teamId === teams[0]!.id);
    await stack.ask(id, `halt ${one!.guid}`, { channel });
    stack.advanceClock(30_000);
    const mark = stack.sim.requests.length;
    const third = await stack.poll();
    expect(third.updated).toBeGreaterThanOrEqual(1);
    expect(stack.sim.requests.slice(mark).filter((r) => r.path === `/attacks/${one!.guid}`)).toHaveLength(1);
  }, 60_000);

  it("keeps cards moving after their starter logs out, with another team member's session", async () => {
    const starter = nextPerson();
    const colleague = nextPerson();
    await stack.login(starter, users().owner, { team: 'Platform' });
    await stack.login(colleague, users().solo);
    const { attack } = await previewAndStart(starter, 'attack cpu -l 30');
    expect(read(await stack.ask(starter, 'logout', { channel }))).toContain('Logged out');
    stack.advanceClock(120_000);
    expect(await stack.poll()).toMatchObject({ teams: 1, updated: 1 });
    expect(read(cardOf(attack.guid))).toContain('Successful');
  });

  it('survives a restart: live cards are polled by the new process', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'faultline-poller-'));
    const local = await Stack.start({ storeUrl: `sqlite://${join(dir, 'bot.db')}` });
    try {
      await local.login('U0RESTART', local.sim.seed.users.owner, { team: 'Platform' });
      await local.ask('U0RESTART', 'attack cpu -l 30 --yes', { channel });
      const guid = [...local.sim.state.attacks.values()][0]!.guid;
      await local.stopBot();
      await local.startBot();
      local.advanceClock(120_000);
      expect(await local.poll()).toMatchObject({ teams: 1, cards: 1, updated: 1 });
      expect(
        read(
          local.fake
            .channel(channel)
            .messages()
            .find((m) => m.text().includes(guid)),
        ),
      ).toContain('Successful');
    } finally {
      await local.stop();
    }
  });
});
