import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeSlack, type FakeSlack, type SlackPerson } from '@faultline/fake-slack';
import { startSimulator, type Simulator } from '@faultline/platform-sim';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort } from '../support/ports.ts';
import { dropRedisKeys } from '../support/redisKeys.ts';
import { manifestSteps, monitoringEnv } from '../e2e/harness.ts';

/**
 * The bot killed (SIGKILL) at each step of a start and of an approval, then started again on the
 * same store: exactly one attack, its card, its starter told, and the next watch pass unhindered.
 * Likewise in the middle of a Workflow Builder step: the restarted bot finishes the step once.
 * The kill moments are chosen from outside, by the simulator or the fake Slack holding a request.
 */

const main = new URL('../../src/main.ts', import.meta.url).pathname;
const channel = 'C0GENERAL';
const redisUrl = process.env.REDIS_URL;
/**
 * A database of its own on the shared Redis, since the bot process uses the default namespace: one
 * of 8 to 15 by process id, so two test runs on one machine rarely hold each other's job leases.
 */
const crashDb = 8 + (process.pid % 8);
const crashRedisUrl = redisUrl ? Object.assign(new URL(redisUrl), { pathname: `/${crashDb}` }).toString() : undefined;
/** Recovery waits out a dead start's lease, and for a lost create also the client's timeout. */
const recoveryMs = 40_000;

let sim: Simulator;
let fake: FakeSlack;
let dir: string;
const sessionKey = randomBytes(32).toString('base64');

beforeAll(async () => {
  sim = await startSimulator();
  fake = await startFakeSlack({ signingSecret: 'crash-secret', botToken: 'xoxb-crash-token', steps: manifestSteps });
  dir = mkdtempSync(join(tmpdir(), 'faultline-crash-'));
  writeFileSync(join(dir, 'sim-ca.pem'), sim.ca);
});
afterAll(async () => {
  await fake?.stop();
  await sim?.stop();
});

const running: ChildProcess[] = [];
afterEach(async () => {
  for (const child of running.splice(0)) child.kill('SIGKILL');
  sim.reset();
  fake.faults.clear();
  if (crashRedisUrl) await dropRedisKeys(crashRedisUrl, 'faultline');
});

interface Bot {
  child: ChildProcess;
  exited: Promise<unknown>;
}

async function startBot(storeUrl: string): Promise<Bot> {
  // A free port can be taken by another process before the bot binds it: then start again on another.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const child = spawn(process.execPath, [main], {
      env: {
        PATH: process.env.PATH ?? '',
        SLACK_BOT_TOKEN: 'xoxb-crash-token',
        SLACK_SIGNING_SECRET: 'crash-secret',
        SLACK_API_URL: fake.apiUrl,
        PLATFORM_API_URL: sim.url,
        NODE_EXTRA_CA_CERTS: join(dir, 'sim-ca.pem'),
        SESSION_KEY: sessionKey,
        STORE_URL: storeUrl,
        PORT: String(port),
        LOG_LEVEL: 'info',
        POLL_SECONDS: '1',
        APPROVAL_RULES: 'length>300',
        ...monitoringEnv,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    running.push(child);
    const exited = new Promise((resolve) => child.on('exit', resolve));
    // The bot says it runs once it listens: only then is the port its own.
    const listening = new Promise<boolean>((resolve) => {
      let output = '';
      child.stdout!.on('data', (chunk) => {
        output += String(chunk);
        if (output.includes('"msg":"Faultline is running"')) resolve(true);
      });
      void exited.then(() => resolve(false));
    });
    if (!(await listening)) {
      if (attempt < 3) continue;
      throw new Error('the bot did not start');
    }
    child.stdout!.resume();
    await vi.waitFor(async () => expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200), {
      timeout: 20_000,
      interval: 50,
    });
    fake.setBotUrl(`http://127.0.0.1:${port}/slack/events`);
    return { child, exited };
  }
}

async function kill(bot: Bot): Promise<void> {
  bot.child.kill('SIGKILL');
  await bot.exited;
}

const read = (m: { text(): string } | undefined) => (m?.text() ?? '').replace(/[*`]/g, '');

async function login(id: string, user: { email: string; password: string }): Promise<SlackPerson> {
  // Their Slack e-mail is the login's: the one platform login that may be linked to them.
  const person = fake.user(id, { name: id.toLowerCase(), email: user.email });
  await person.command('login');
  const modal = await fake.waitFor(() => person.modal()?.callbackId === 'login' && person.modal(), 'the login modal');
  await modal.fill('Email', user.email).fill('Password', user.password).submit();
  const next = await fake.waitFor(
    () => (person.modal()?.title === 'Logged in' || person.modal()?.callbackId === 'team_picker') && person.modal(),
    'the login to finish',
  );
  if (next.callbackId === 'team_picker') {
    await next.choose('Team', 'Platform').submit();
    await fake.waitFor(() => person.modal()?.title === 'Logged in', 'the logged-in confirmation');
  }
  return person;
}

/** A person logged in to team Platform whose channel watches the team. */
async function watcher(id: string, user: { email: string; password: string }): Promise<SlackPerson> {
  const person = await login(id, user);
  const before = person.ephemerals(channel).length;
  await person.command('watch', { channel });
  await fake.waitFor(() => person.ephemerals(channel).length > before, 'the watch to be set');
  return person;
}

/** The preview of a start, to click. */
async function preview(person: SlackPerson, text: string) {
  const before = person.ephemerals(channel).length;
  await person.command(text, { channel });
  return fake.waitFor(
    () => person.ephemerals(channel).length > before && person.ephemerals(channel).at(-1),
    'the preview',
  );
}

const attacks = () => [...sim.state.attacks.values()];
const creates = () => sim.requests.filter((r) => r.method === 'POST' && r.path === '/attacks/new').length;
const cardsOf = (guid: string) =>
  fake
    .channel(channel)
    .messages()
    .filter((m) => m.text().includes(guid) && read(m).includes('Started by'));
const directMessages = (userId: string) => fake.channel(userId).messages().map(read);

/** Kills the bot once `arrived` holds (a request held at the platform or at Slack), then starts it again. */
async function killWhen(bot: Bot, arrived: () => boolean, storeUrl: string): Promise<Bot> {
  await vi.waitFor(() => expect(arrived()).toBe(true), { timeout: 15_000, interval: 5 });
  await kill(bot);
  sim.faults.clear();
  fake.faults.clear();
  return startBot(storeUrl);
}

/** After a recovery, a watch of the channel cards a new attack of the team: no marker of the dead start hides it. */
async function expectWatchUnhindered(): Promise<void> {
  const other = sim.createAttackDirectly(sim.seed.teams.platform.id);
  await fake.waitFor(
    () =>
      fake
        .channel(channel)
        .messages()
        .some((m) => m.text().includes(other)),
    'the watch to card a new attack',
    15_000,
  );
}

const unanswered = (path: string | RegExp) => () =>
  sim.requests.some((r) => r.status === 0 && (typeof path === 'string' ? r.path === path : path.test(r.path)));

const stores = [
  { name: 'SQLite', url: () => `sqlite://${join(dir, `${randomUUID()}.db`)}`, skip: false },
  { name: 'Redis', url: () => crashRedisUrl ?? '', skip: !crashRedisUrl },
];

describe.each(stores)('a bot killed mid-start, on $name', ({ name, url, skip }) => {
  /** A Slack user of this store's cases only: the fake Slack keeps people between cases. */
  const as = (id: string) => `${id}${name.toUpperCase()}`;
  it.skipIf(skip)(
    'starts nothing when a preview’s Start dies while it reads its guards, before any start intent',
    async () => {
      const storeUrl = url();
      let bot = await startBot(storeUrl);
      const starter = await watcher(as('U0CRASHD'), sim.seed.users.solo);
      const shown = await preview(starter, 'attack cpu -l 60 -c 1 --guard a:1234567');
      // The guard is read again at Start, before the start intent is written and the create sent.
      const guardRead = '/monitoringA/monitors/1234567';
      sim.faults.inject({ kind: 'hang', method: 'GET', path: guardRead });
      shown.click('Start').catch(() => undefined);
      bot = await killWhen(bot, unanswered(guardRead), storeUrl);

      await shown.click('Start');
      await expectWatchUnhindered();
      expect(creates()).toBe(0);
      await kill(bot);
    },
    90_000,
  );

  it.skipIf(skip)(
    'finishes a preview’s Start whose create the platform carried out but never answered',
    async () => {
      const storeUrl = url();
      let bot = await startBot(storeUrl);
      const starter = await watcher(as('U0CRASHA'), sim.seed.users.solo);
      const shown = await preview(starter, 'attack cpu -l 60 -c 1');
      sim.faults.inject({ kind: 'lostAnswer', method: 'POST', path: '/attacks/new' });
      shown.click('Start').catch(() => undefined);
      bot = await killWhen(bot, () => unanswered('/attacks/new')() && attacks().length === 1, storeUrl);

      const [attack] = attacks();
      await fake.waitFor(() => cardsOf(attack!.guid).length > 0, 'the card', recoveryMs);
      await fake.waitFor(
        () => directMessages(as('U0CRASHA')).some((text) => text.includes(attack!.guid)),
        'the starter told',
        recoveryMs,
      );
      // The same Start again: the preview's claim outlived the crash.
      await shown.click('Start');
      await expectWatchUnhindered();
      expect(attacks().filter((a) => a.guid !== attack!.guid && a.createSource !== 'WebApp')).toEqual([]);
      expect(creates()).toBe(1);
      expect(cardsOf(attack!.guid)).toHaveLength(1);
      await kill(bot);
    },
    90_000,
  );

  it.skipIf(skip)(
    'cards a preview’s Start whose card was being posted, and tells its starter',
    async () => {
      const storeUrl = url();
      let bot = await startBot(storeUrl);
      const starter = await watcher(as('U0CRASHB'), sim.seed.users.solo);
      const shown = await preview(starter, 'attack cpu -l 60 -c 1');
      fake.faults.inject({ kind: 'hang', method: 'chat.postMessage', times: 1 });
      shown.click('Start').catch(() => undefined);
      bot = await killWhen(bot, () => fake.faults.held('chat.postMessage') === 1, storeUrl);

      const [attack] = attacks();
      expect(attack).toBeDefined();
      await fake.waitFor(() => cardsOf(attack!.guid).length > 0, 'the card', recoveryMs);
      await fake.waitFor(
        () => directMessages(as('U0CRASHB')).some((text) => text.includes(attack!.guid)),
        'the starter told',
        recoveryMs,
      );
      await shown.click('Start');
      await expectWatchUnhindered();
      expect(creates()).toBe(1);
      expect(cardsOf(attack!.guid)).toHaveLength(1);
      await kill(bot);
    },
    90_000,
  );

  it.skipIf(skip)(
    'creates nothing again for a preview’s Start whose create never reached the platform, and says so',
    async () => {
      const storeUrl = url();
      let bot = await startBot(storeUrl);
      const starter = await watcher(as('U0CRASHC'), sim.seed.users.solo);
      const shown = await preview(starter, 'attack cpu -l 60 -c 1');
      sim.faults.inject({ kind: 'hang', method: 'POST', path: '/attacks/new' });
      shown.click('Start').catch(() => undefined);
      bot = await killWhen(bot, unanswered('/attacks/new'), storeUrl);

      await fake.waitFor(
        () => directMessages(as('U0CRASHC')).some((text) => text.includes('could not tell whether it started')),
        'the starter told',
        recoveryMs,
      );
      await shown.click('Start');
      await expectWatchUnhindered();
      expect(creates()).toBe(1);
      expect(attacks().filter((a) => a.createSource !== 'WebApp')).toEqual([]);
      await kill(bot);
    },
    90_000,
  );

  it.skipIf(skip)(
    'finishes an Approve killed after the create, and closes the request',
    async () => {
      const storeUrl = url();
      let bot = await startBot(storeUrl);
      const approver = await watcher(as('U0CRASHAPPROVER'), sim.seed.users.owner);
      const requester = await login(as('U0CRASHREQUESTER'), sim.seed.users.solo);
      const shown = await preview(requester, 'attack cpu -l 600 -c 1');
      await shown.click('Request approval');
      const request = await fake.waitFor(
        () =>
          approver
            .channel(channel)
            .messages()
            .findLast((m) => read(m).includes('asks to start')),
        'the approval request',
      );
      // Between the create and the card: the approval is being written on the attack.
      sim.faults.inject({ kind: 'hang', method: 'PUT', path: /^\/attacks\/[^/]+\/annotations$/ });
      request.click('Approve').catch(() => undefined);
      bot = await killWhen(bot, unanswered(/^\/attacks\/[^/]+\/annotations$/), storeUrl);

      const [attack] = attacks();
      expect(attack).toBeDefined();
      await fake.waitFor(() => cardsOf(attack!.guid).length > 0, 'the card', recoveryMs);
      await fake.waitFor(
        () => directMessages(as('U0CRASHREQUESTER')).some((text) => text.includes(attack!.guid)),
        'the requester told',
        recoveryMs,
      );
      const closed = await fake.waitFor(
        () =>
          approver
            .channel(channel)
            .messages()
            .find((m) => m.ts === request.ts && read(m).includes(`started ${attack!.guid}`)),
        'the request closed',
      );
      expect(closed.buttons()).toEqual([]);
      // The same Approve again (its buttons are gone, so delivered again): the decision outlived the crash.
      await fake.redeliverLast({ as: 'duplicate' });
      await expectWatchUnhindered();
      expect(creates()).toBe(1);
      expect(cardsOf(attack!.guid)).toHaveLength(1);
      await kill(bot);
    },
    90_000,
  );
});

describe.each(stores)('a bot killed mid-step, on $name', ({ name, url, skip }) => {
  const as = (id: string) => `${id}${name.toUpperCase()}`;
  const ended = (execution: { state: string }) => execution.state !== 'running';
  const saved = async (person: SlackPerson, text: string) => {
    const before = person.ephemerals(channel).length;
    await person.command(`save ${text}`, { channel });
    await fake.waitFor(
      () =>
        person
          .ephemerals(channel)
          .slice(before)
          .some((m) => read(m).includes('Saved')),
      'saved',
    );
  };

  it.skipIf(skip)(
    'does Halt all again and completes it, when the bot died halting',
    async () => {
      const storeUrl = url();
      let bot = await startBot(storeUrl);
      const id = as('U0STEPHALT');
      await login(id, sim.seed.users.owner);
      const guid = sim.createAttackDirectly(sim.seed.teams.platform.id);
      const halt = new RegExp(`^/attacks/${guid}/halt$`);
      sim.faults.inject({ kind: 'hang', method: 'POST', path: halt });
      const execution = await fake.runStep('halt_all_attacks', { team: 'Platform', reason: 'outage' }, { usedBy: id });
      bot = await killWhen(bot, unanswered(halt), storeUrl);

      await fake.waitFor(() => ended(execution), 'the step finished', recoveryMs);
      expect(execution.state).toBe('completed');
      expect(execution.outputs).toEqual({ halted_count: 1, halted_ids: [guid] });
      expect(execution.completions).toBe(1);
      await kill(bot);
    },
    90_000,
  );

  it.skipIf(skip)(
    'completes Run saved attack with the attack its start made, when the bot died posting its card',
    async () => {
      const storeUrl = url();
      let bot = await startBot(storeUrl);
      const id = as('U0STEPRUN');
      const person = await login(id, sim.seed.users.solo);
      await saved(person, 'crash-cpu cpu -l 60 -c 1');
      fake.faults.inject({ kind: 'hang', method: 'chat.postMessage', times: 1 });
      const execution = await fake.runStep('run_saved_attack', { name: 'crash-cpu', channel }, { usedBy: id });
      bot = await killWhen(bot, () => fake.faults.held('chat.postMessage') === 1, storeUrl);

      const [attack] = attacks();
      expect(attack).toBeDefined();
      await fake.waitFor(() => ended(execution), 'the step finished', recoveryMs);
      expect(execution.state).toBe('completed');
      expect(execution.outputs).toEqual({ attack_id: attack!.guid });
      expect(execution.completions).toBe(1);
      await fake.waitFor(() => cardsOf(attack!.guid).length > 0, 'the card', recoveryMs);
      expect(creates()).toBe(1);
      await kill(bot);
    },
    90_000,
  );

  it.skipIf(skip)(
    'completes Run saved attack that waits for the end with its final stage, though the attack ended while no bot ran',
    async () => {
      const storeUrl = url();
      const bot = await startBot(storeUrl);
      const id = as('U0STEPWAIT');
      const person = await login(id, sim.seed.users.solo);
      await saved(person, 'wait-cpu cpu -l 60 -c 1');
      fake.faults.inject({ kind: 'hang', method: 'chat.postMessage', times: 1 });
      const execution = await fake.runStep(
        'run_saved_attack',
        { name: 'wait-cpu', channel, wait_for_end: true },
        { usedBy: id },
      );
      await vi.waitFor(() => expect(fake.faults.held('chat.postMessage')).toBe(1), { timeout: 15_000, interval: 5 });
      await kill(bot);
      fake.faults.clear();
      const [attack] = attacks();
      expect(attack).toBeDefined();
      sim.clock.advance(120_000);
      const again = await startBot(storeUrl);

      await fake.waitFor(() => ended(execution), 'the step finished', recoveryMs);
      expect(execution.state).toBe('completed');
      expect(execution.outputs).toEqual({ attack_id: attack!.guid, final_stage: 'Successful' });
      expect(execution.completions).toBe(1);
      expect(creates()).toBe(1);
      await kill(again);
    },
    90_000,
  );

  it.skipIf(skip)(
    'fails Run saved attack once, saying what to check, when its create was never answered',
    async () => {
      const storeUrl = url();
      let bot = await startBot(storeUrl);
      const id = as('U0STEPLOST');
      const person = await login(id, sim.seed.users.solo);
      await saved(person, 'lost-cpu cpu -l 60 -c 1');
      sim.faults.inject({ kind: 'hang', method: 'POST', path: '/attacks/new' });
      const execution = await fake.runStep('run_saved_attack', { name: 'lost-cpu', channel }, { usedBy: id });
      bot = await killWhen(bot, unanswered('/attacks/new'), storeUrl);

      await fake.waitFor(() => ended(execution), 'the step finished', recoveryMs);
      expect(execution.state).toBe('failed');
      expect(execution.error).toMatch(/could not tell whether it started\. Check with \/chaos list/);
      expect(execution.completions).toBe(1);
      expect(creates()).toBe(1);
      await kill(bot);
    },
    90_000,
  );

  it.skipIf(skip)(
    'fails Start game day once, saying what to check, when the bot died starting it',
    async () => {
      const storeUrl = url();
      let bot = await startBot(storeUrl);
      const id = as('U0STEPGAMEDAY');
      await login(id, sim.seed.users.owner);
      fake.faults.inject({ kind: 'hang', method: 'chat.postMessage', times: 1 });
      const execution = await fake.runStep('start_game_day', { channel, title: 'Crash drill' }, { usedBy: id });
      bot = await killWhen(bot, () => fake.faults.held('chat.postMessage') === 1, storeUrl);

      await fake.waitFor(() => ended(execution), 'the step finished', recoveryMs);
      expect(execution.state).toBe('failed');
      expect(execution.error).toMatch(/"Start game day".*Check with \/chaos gameday status/);
      // A later pass leaves it alone: failed once.
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect(execution.completions).toBe(1);
      await kill(bot);
    },
    90_000,
  );
});
