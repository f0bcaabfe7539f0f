import { describe, expect, it } from 'vitest';
import { Stack, stackForFile } from './harness.ts';

const read = Stack.read;
const channel = 'C0GENERAL';
let stack: Stack;
stackForFile(
  {
    env: {
      ATTACK_CHANNELS: channel,
      MONITORING_A_INTEGRATION: 'acme-metrics',
      MONITORING_A_DOMAIN: 'app.monitoring-a.example',
      MONITORING_B_URI: 'https://alerts.monitoring-b.example',
    },
  },
  (started) => (stack = started),
);

let n = 0;
const nextPerson = () => `U0GUARD${++n}`;
const users = () => stack.sim.seed.users;
const attacksInSim = () => [...stack.sim.state.attacks.values()];
const creates = () => stack.sim.requests.filter((r) => r.method === 'POST' && r.path === '/attacks/new');
const monitorReads = (id: number) => stack.sim.requests.filter((r) => r.method === 'GET' && r.path === `/monitoringA/monitors/${id}`).length;
const cardOf = (guid: string) => stack.fake.channel(channel).messages().find((m) => m.text().includes(guid));
const threadOf = (ts: string) => stack.fake.channel(channel).thread(ts).map(read).join('\n');
const gameDayCard = (title: string) => stack.fake.channel(channel).messages().find((m) => read(m).includes(`Game day: ${title}`))!;

async function startNow(personId: string, text: string) {
  const before = attacksInSim().length;
  const reply = await stack.ask(personId, `${text} --yes`, { channel });
  expect(read(reply)).toContain('Started');
  const attack = await stack.fake.waitFor(() => attacksInSim().length > before && attacksInSim().at(-1), 'the attack');
  const card = await stack.fake.waitFor(() => cardOf(attack.guid), 'its card');
  return { attack, card };
}

describe('guards on a game day', () => {
  it('shows the guard on the cards, and halts every attack it covers within one poll of firing, saying which guard and when', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const started = read(await stack.ask(id, 'gameday start Latency drill --guard a:1234567', { channel }));
    expect(started).toContain('Game day Latency drill started');
    expect(started).toMatch(/checkout p99 latency \(1234567\): OK/);
    expect(threadOf(gameDayCard('Latency drill').ts)).toContain('set a guard on this game day');

    const first = await startNow(id, 'attack cpu -l 300 -c 1');
    const second = await startNow(id, 'attack memory -l 300 -p 20');
    expect(read(first.card)).toMatch(/Guards .*checkout p99 latency \(1234567\): OK/);

    await stack.poll();
    expect(first.attack.halt).toBeUndefined();

    stack.sim.setMonitorState(1234567, 'Alert');
    const reads = monitorReads(1234567);
    await stack.poll();
    // Read once for both attacks: the cost grows with guards, not attacks.
    expect(monitorReads(1234567)).toBe(reads + 1);
    for (const { attack } of [first, second]) {
      expect(stack.sim.state.attacks.get(attack.guid)!.halt).toEqual(expect.objectContaining({ reason: 'guard checkout p99 latency (1234567) fired' }));
    }
    await stack.poll();
    const card = read(cardOf(first.attack.guid));
    expect(card).toMatch(/checkout p99 latency \(1234567\): Alert · fired .*, halted this attack/);
    expect(threadOf(first.card.ts)).toMatch(/Guard checkout p99 latency \(1234567\) fired \(Alert\) at .*: halted this attack/);
    expect(threadOf(gameDayCard('Latency drill').ts)).toContain(`fired (Alert): halted memory ${second.attack.guid}`);
    // Halted once: the next passes do not halt again.
    const halts = stack.sim.requests.filter((r) => r.path.endsWith('/halt')).length;
    await stack.poll();
    expect(stack.sim.requests.filter((r) => r.path.endsWith('/halt')).length).toBe(halts);
  });

  it('refuses a start while a guard is unhealthy, naming it and its state, and sends nothing', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    stack.sim.setAlertState('CheckoutErrorRate', 'firing');
    await stack.ask(id, 'gameday start Error drill', { channel });
    expect(read(await stack.ask(id, 'gameday guard b:CheckoutErrorRate', { channel }))).toContain('CheckoutErrorRate: firing');
    for (const text of ['attack cpu -l 30', 'attack cpu -l 30 --yes']) {
      expect(read(await stack.ask(id, text, { channel }))).toContain('Not started: its guard CheckoutErrorRate (firing) says the system is unhealthy');
    }
    expect(creates()).toHaveLength(0);
    stack.sim.setAlertState('CheckoutErrorRate', 'inactive');
    expect(read(await stack.ask(id, 'attack cpu -l 30', { channel }))).toContain('CheckoutErrorRate: inactive');
  });

  it('asks for Start anyway when a guard cannot be told, and --yes does not skip it', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    await stack.ask(id, 'gameday start Blind drill --guard a:1234569 --guard b:NoSuchAlert', { channel });
    const viaYes = await stack.ask(id, 'attack cpu -l 30 --yes', { channel });
    expect(creates()).toHaveLength(0);
    expect(read(viaYes)).toMatch(/cannot be told/);
    expect(viaYes.buttons().map((b) => b.text)).toEqual(['Start anyway', 'Cancel']);
    expect(read(viaYes)).toContain('No Data');
    expect(read(viaYes)).toContain('NoSuchAlert: not found');
    await viaYes.click('Start anyway');
    await stack.fake.waitFor(() => creates().length === 1, 'the start');
  });

  it('when the guard owner\'s session has expired, asks the channel to halt with Halt all and tells the owner', async () => {
    const owner = nextPerson();
    const starter = nextPerson();
    await stack.login(owner, users().owner, { team: 'Platform' });
    await stack.login(starter, users().solo);
    await stack.ask(owner, 'gameday start Expiry drill --guard a:1234570', { channel });
    const { attack } = await startNow(starter, 'attack cpu -l 300 -c 1');
    stack.sim.expireSession(users().owner.email);
    stack.sim.setMonitorState(1234570, 'Alert');
    await stack.poll();
    expect(stack.sim.state.attacks.get(attack.guid)!.halt).toBeUndefined();
    const ask = await stack.fake.waitFor(() => stack.fake.channel(channel).messages().find((m) => read(m).includes('could not halt')), 'the request to halt');
    expect(read(ask)).toContain(attack.guid);
    expect(ask.buttons().map((b) => b.text)).toEqual(['Halt all']);
    const dm = await stack.fake.waitFor(() => stack.fake.channel(owner).messages().at(-1), 'the direct message');
    expect(read(dm)).toContain('Your guard');
    expect(read(dm)).toContain('log in again');
  });

  it('refuses guards it cannot read: a bad form, an unconfigured product', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    await stack.ask(id, 'gameday start Typo drill', { channel });
    expect(read(await stack.ask(id, 'gameday guard c:1', { channel }))).toContain('is not a guard');
    expect(read(await stack.ask(id, 'gameday guard a:latency', { channel }))).toContain('is not a monitor id');
    expect(read(await stack.ask(id, 'gameday guard', { channel }))).toContain('Name the guard');
  });
});
