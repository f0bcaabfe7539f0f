import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeSlack, type SlackPerson } from '@faultline/fake-slack';
import { startSimulator } from '@faultline/platform-sim';
import { describe, expect, it, type OnTestFinishedHandler, vi } from 'vitest';
import { freePort } from '../support/ports.ts';
import { hasRedisServer, RedisServer } from '../support/redisServer.ts';
import { manifestSteps, monitoringEnv } from '../e2e/harness.ts';

/**
 * The bot killed (SIGKILL) at each step of a start and of an approval, then started again on the
 * same store: exactly one attack, its card, its starter told, and the next watch pass unhindered.
 * Likewise in the middle of a Workflow Builder step: the restarted bot finishes the step once.
 * The kill moments are chosen from outside, by the simulator or the fake Slack holding a request.
 *
 * Most of a case is waiting (a bot booting, a dead start's lease running out), so the cases run
 * side by side, each in a world of its own: simulator, fake Slack, store and bot processes.
 */

const main = new URL('../../src/main.ts', import.meta.url).pathname;
const channel = 'C0GENERAL';
/** Recovery waits out a dead start's lease, and for a lost create also the client's timeout. */
const recoveryMs = 40_000;
const sessionKey = randomBytes(32).toString('base64');
/** Side by side, the cases share the machine: a bot boots slower than alone. */
const caseTimeoutMs = 150_000;

interface Bot {
  child: ChildProcess;
  exited: Promise<unknown>;
}

async function kill(bot: Bot): Promise<void> {
  bot.child.kill('SIGKILL');
  await bot.exited;
}

const read = (m: { text(): string } | undefined) => (m?.text() ?? '').replace(/[*`]/g, '');

const stores = [
  { name: 'SQLite', skip: false },
  // A redis-server of the case's own, so no other case or test run holds its job leases.
  { name: 'Redis', skip: !hasRedisServer },
];

/**
 * A case's own simulator, fake Slack and store (SQLite file or Redis server), with the bots it
 * starts on them; all of it stopped and removed when the case finishes.
 */
async function world(store: string, onTestFinished: (fn: OnTestFinishedHandler) => void) {
  const sim = await startSimulator();
  const fake = await startFakeSlack({
    signingSecret: 'crash-secret',
    botToken: 'xoxb-crash-token',
    steps: manifestSteps,
  });
  const dir = mkdtempSync(join(tmpdir(), 'faultline-crash-'));
  writeFileSync(join(dir, 'sim-ca.pem'), sim.ca);
  const redis = store === 'Redis' ? await RedisServer.start() : undefined;
  const storeUrl = redis ? redis.url : `sqlite://${join(dir, 'store.db')}`;
  const running: ChildProcess[] = [];
  let finished = false;
  onTestFinished(async () => {
    finished = true;
    for (const child of running) child.kill('SIGKILL');
    await fake.stop();
    await sim.stop();
    await redis?.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  async function startBot(): Promise<Bot> {
    // A free port can be taken by another process before the bot binds it: then start again on another.
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      // A case that timed out may still be running: it starts no bot that nothing would stop.
      if (finished) throw new Error('the case has finished');
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

  /** Saves an attack as the person, in the channel. */
  async function saved(person: SlackPerson, text: string): Promise<void> {
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
  }

  /** Kills the bot once `arrived` holds (a request held at the platform or at Slack), then starts it again. */
  async function killWhen(bot: Bot, arrived: () => boolean): Promise<Bot> {
    await vi.waitFor(() => expect(arrived()).toBe(true), { timeout: 15_000, interval: 5 });
    await kill(bot);
    sim.faults.clear();
    fake.faults.clear();
    return startBot();
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

  return {
    sim,
    fake,
    startBot,
    login,
    watcher,
    preview,
    saved,
    killWhen,
    expectWatchUnhindered,
    attacks: () => [...sim.state.attacks.values()],
    creates: () => sim.requests.filter((r) => r.method === 'POST' && r.path === '/attacks/new').length,
    cardsOf: (guid: string) =>
      fake
        .channel(channel)
        .messages()
        .filter((m) => m.text().includes(guid) && read(m).includes('Started by')),
    directMessages: (userId: string) => fake.channel(userId).messages().map(read),
    unanswered: (path: string | RegExp) => () =>
      sim.requests.some((r) => r.status === 0 && (typeof path === 'string' ? r.path === path : path.test(r.path))),
  };
}

// All cases in one pool: a case starts as soon as another ends, whichever block it is in.
describe.concurrent('a bot killed and started again', () => {
  describe.each(stores)('a bot killed mid-start, on $name', ({ name, skip }) => {
    it.skipIf(skip)(
      'starts nothing when a preview’s Start dies while it reads its guards, before any start intent',
      async ({ onTestFinished }) => {
        const { sim, startBot, watcher, preview, killWhen, expectWatchUnhindered, creates, unanswered } = await world(
          name,
          onTestFinished,
        );
        let bot = await startBot();
        const starter = await watcher('U0CRASHD', sim.seed.users.solo);
        const shown = await preview(starter, 'attack cpu -l 60 -c 1 --guard a:1234567');
        // The guard is read again at Start, before the start intent is written and the create sent.
        const guardRead = '/monitoringA/monitors/1234567';
        sim.faults.inject({ kind: 'hang', method: 'GET', path: guardRead });
        shown.click('Start').catch(() => undefined);
        bot = await killWhen(bot, unanswered(guardRead));

        await shown.click('Start');
        await expectWatchUnhindered();
        expect(creates()).toBe(0);
        await kill(bot);
      },
      caseTimeoutMs,
    );

    it.skipIf(skip)(
      'finishes a preview’s Start whose create the platform carried out but never answered',
      async ({ onTestFinished }) => {
        const {
          sim,
          fake,
          startBot,
          watcher,
          preview,
          killWhen,
          expectWatchUnhindered,
          attacks,
          creates,
          cardsOf,
          directMessages,
          unanswered,
        } = await world(name, onTestFinished);
        let bot = await startBot();
        const starter = await watcher('U0CRASHA', sim.seed.users.solo);
        const shown = await preview(starter, 'attack cpu -l 60 -c 1');
        sim.faults.inject({ kind: 'lostAnswer', method: 'POST', path: '/attacks/new' });
        shown.click('Start').catch(() => undefined);
        bot = await killWhen(bot, () => unanswered('/attacks/new')() && attacks().length === 1);

        const [attack] = attacks();
        await fake.waitFor(() => cardsOf(attack!.guid).length > 0, 'the card', recoveryMs);
        await fake.waitFor(
          () => directMessages('U0CRASHA').some((text) => text.includes(attack!.guid)),
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
      caseTimeoutMs,
    );

    it.skipIf(skip)(
      'cards a preview’s Start whose card was being posted, and tells its starter',
      async ({ onTestFinished }) => {
        const {
          sim,
          fake,
          startBot,
          watcher,
          preview,
          killWhen,
          expectWatchUnhindered,
          attacks,
          creates,
          cardsOf,
          directMessages,
        } = await world(name, onTestFinished);
        let bot = await startBot();
        const starter = await watcher('U0CRASHB', sim.seed.users.solo);
        const shown = await preview(starter, 'attack cpu -l 60 -c 1');
        fake.faults.inject({ kind: 'hang', method: 'chat.postMessage', times: 1 });
        shown.click('Start').catch(() => undefined);
        bot = await killWhen(bot, () => fake.faults.held('chat.postMessage') === 1);

        const [attack] = attacks();
        expect(attack).toBeDefined();
        await fake.waitFor(() => cardsOf(attack!.guid).length > 0, 'the card', recoveryMs);
        await fake.waitFor(
          () => directMessages('U0CRASHB').some((text) => text.includes(attack!.guid)),
          'the starter told',
          recoveryMs,
        );
        await shown.click('Start');
        await expectWatchUnhindered();
        expect(creates()).toBe(1);
        expect(cardsOf(attack!.guid)).toHaveLength(1);
        await kill(bot);
      },
      caseTimeoutMs,
    );

    it.skipIf(skip)(
      'creates nothing again for a preview’s Start whose create never reached the platform, and says so',
      async ({ onTestFinished }) => {
        const {
          sim,
          fake,
          startBot,
          watcher,
          preview,
          killWhen,
          expectWatchUnhindered,
          attacks,
          creates,
          directMessages,
          unanswered,
        } = await world(name, onTestFinished);
        let bot = await startBot();
        const starter = await watcher('U0CRASHC', sim.seed.users.solo);
        const shown = await preview(starter, 'attack cpu -l 60 -c 1');
        sim.faults.inject({ kind: 'hang', method: 'POST', path: '/attacks/new' });
        shown.click('Start').catch(() => undefined);
        bot = await killWhen(bot, unanswered('/attacks/new'));

        await fake.waitFor(
          () => directMessages('U0CRASHC').some((text) => text.includes('could not tell whether it started')),
          'the starter told',
          recoveryMs,
        );
        await shown.click('Start');
        await expectWatchUnhindered();
        expect(creates()).toBe(1);
        expect(attacks().filter((a) => a.createSource !== 'WebApp')).toEqual([]);
        await kill(bot);
      },
      caseTimeoutMs,
    );

    it.skipIf(skip)(
      'finishes an Approve killed after the create, and closes the request',
      async ({ onTestFinished }) => {
        const {
          sim,
          fake,
          startBot,
          login,
          watcher,
          preview,
          killWhen,
          expectWatchUnhindered,
          attacks,
          creates,
          cardsOf,
          directMessages,
          unanswered,
        } = await world(name, onTestFinished);
        let bot = await startBot();
        const approver = await watcher('U0CRASHAPPROVER', sim.seed.users.owner);
        const requester = await login('U0CRASHREQUESTER', sim.seed.users.solo);
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
        bot = await killWhen(bot, unanswered(/^\/attacks\/[^/]+\/annotations$/));

        const [attack] = attacks();
        expect(attack).toBeDefined();
        await fake.waitFor(() => cardsOf(attack!.guid).length > 0, 'the card', recoveryMs);
        await fake.waitFor(
          () => directMessages('U0CRASHREQUESTER').some((text) => text.includes(attack!.guid)),
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
      caseTimeoutMs,
    );
  });

  describe.each(stores)('a bot killed mid-step, on $name', ({ name, skip }) => {
    const ended = (execution: { state: string }) => execution.state !== 'running';

    it.skipIf(skip)(
      'does Halt all again and completes it, when the bot died halting',
      async ({ onTestFinished }) => {
        const { sim, fake, startBot, login, killWhen, unanswered } = await world(name, onTestFinished);
        let bot = await startBot();
        const id = 'U0STEPHALT';
        await login(id, sim.seed.users.owner);
        const guid = sim.createAttackDirectly(sim.seed.teams.platform.id);
        const halt = new RegExp(`^/attacks/${guid}/halt$`);
        sim.faults.inject({ kind: 'hang', method: 'POST', path: halt });
        const execution = await fake.runStep(
          'halt_all_attacks',
          { team: 'Platform', reason: 'outage' },
          { usedBy: id },
        );
        bot = await killWhen(bot, unanswered(halt));

        await fake.waitFor(() => ended(execution), 'the step finished', recoveryMs);
        expect(execution.state).toBe('completed');
        expect(execution.outputs).toEqual({ halted_count: 1, halted_ids: [guid] });
        expect(execution.completions).toBe(1);
        await kill(bot);
      },
      caseTimeoutMs,
    );

    it.skipIf(skip)(
      'completes Run saved attack with the attack its start made, when the bot died posting its card',
      async ({ onTestFinished }) => {
        const { sim, fake, startBot, login, killWhen, attacks, creates, cardsOf, saved } = await world(
          name,
          onTestFinished,
        );
        let bot = await startBot();
        const id = 'U0STEPRUN';
        const person = await login(id, sim.seed.users.solo);
        await saved(person, 'crash-cpu cpu -l 60 -c 1');
        fake.faults.inject({ kind: 'hang', method: 'chat.postMessage', times: 1 });
        const execution = await fake.runStep('run_saved_attack', { name: 'crash-cpu', channel }, { usedBy: id });
        bot = await killWhen(bot, () => fake.faults.held('chat.postMessage') === 1);

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
      caseTimeoutMs,
    );

    it.skipIf(skip)(
      'completes Run saved attack that waits for the end with its final stage, though the attack ended while no bot ran',
      async ({ onTestFinished }) => {
        const { sim, fake, startBot, login, attacks, creates, saved } = await world(name, onTestFinished);
        const bot = await startBot();
        const id = 'U0STEPWAIT';
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
        const again = await startBot();

        await fake.waitFor(() => ended(execution), 'the step finished', recoveryMs);
        expect(execution.state).toBe('completed');
        expect(execution.outputs).toEqual({ attack_id: attack!.guid, final_stage: 'Successful' });
        expect(execution.completions).toBe(1);
        expect(creates()).toBe(1);
        await kill(again);
      },
      caseTimeoutMs,
    );

    it.skipIf(skip)(
      'fails Run saved attack once, saying what to check, when its create was never answered',
      async ({ onTestFinished }) => {
        const { sim, fake, startBot, login, killWhen, creates, unanswered, saved } = await world(name, onTestFinished);
        let bot = await startBot();
        const id = 'U0STEPLOST';
        const person = await login(id, sim.seed.users.solo);
        await saved(person, 'lost-cpu cpu -l 60 -c 1');
        sim.faults.inject({ kind: 'hang', method: 'POST', path: '/attacks/new' });
        const execution = await fake.runStep('run_saved_attack', { name: 'lost-cpu', channel }, { usedBy: id });
        bot = await killWhen(bot, unanswered('/attacks/new'));

        await fake.waitFor(() => ended(execution), 'the step finished', recoveryMs);
        expect(execution.state).toBe('failed');
        expect(execution.error).toMatch(/could not tell whether it started\. Check with \/chaos list/);
        expect(execution.completions).toBe(1);
        expect(creates()).toBe(1);
        await kill(bot);
      },
      caseTimeoutMs,
    );

    it.skipIf(skip)(
      'fails Start game day once, saying what to check, when the bot died starting it',
      async ({ onTestFinished }) => {
        const { sim, fake, startBot, login, killWhen } = await world(name, onTestFinished);
        let bot = await startBot();
        const id = 'U0STEPGAMEDAY';
        await login(id, sim.seed.users.owner);
        fake.faults.inject({ kind: 'hang', method: 'chat.postMessage', times: 1 });
        const execution = await fake.runStep('start_game_day', { channel, title: 'Crash drill' }, { usedBy: id });
        bot = await killWhen(bot, () => fake.faults.held('chat.postMessage') === 1);

        await fake.waitFor(() => ended(execution), 'the step finished', recoveryMs);
        expect(execution.state).toBe('failed');
        expect(execution.error).toMatch(/"Start game day".*Check with \/chaos gameday status/);
        // A later pass leaves it alone: failed once.
        await new Promise((resolve) => setTimeout(resolve, 2_500));
        expect(execution.completions).toBe(1);
        await kill(bot);
      },
      caseTimeoutMs,
    );
  });
});
