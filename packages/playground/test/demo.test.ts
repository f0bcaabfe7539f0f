import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { connect } from 'node:net';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { demoBanner } from '../src/demo-banner.ts';
import { demoSessionKey, startDemo, type Demo } from '../src/demo.ts';
import type { MessageState, PersonState } from '../src/view-state.ts';

/** The demo as `npm run demo` starts it, driven through the playground's API as the page drives it. */

interface LogLine {
  level: string;
  msg: string;
}

const logs: LogLine[] = [];
let demo: Demo;

beforeAll(async () => {
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) logs.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  demo = await startDemo({
    dataDir: mkdtempSync(join(tmpdir(), 'faultline-demo-')),
    port: 0,
    environment: { LOG_LEVEL: 'debug' },
    logDestination: destination,
  });
});

afterAll(async () => {
  await demo?.stop();
});

afterEach(() => {
  expect(logs.filter((line) => line.level === 'error' || line.level === 'fatal')).toEqual([]);
  expect(demo.fake.failures()).toEqual([]);
  const logText = logs.map((line) => JSON.stringify(line)).join('\n');
  expect(logText).not.toContain(demo.hints.password);
});

/** The playground's API as the page uses it, for one demo. */
function client(target: () => Demo) {
  async function post(
    path: string,
    body: Record<string, unknown>,
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await fetch(new URL(path, target().playgroundUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  async function state(person: string, channel = 'C0GENERAL'): Promise<PersonState> {
    const response = await fetch(new URL(`/api/state?person=${person}&channel=${channel}`, target().playgroundUrl));
    return (await response.json()) as PersonState;
  }

  /** Polls the person's state until `check` finds what it looks for; fails naming `what` after a bound. */
  async function eventually<T>(person: string, check: (seen: PersonState) => T | undefined, what: string): Promise<T> {
    const deadline = Date.now() + 10_000;
    let seen: PersonState | undefined;
    while (Date.now() < deadline) {
      seen = await state(person);
      const found = check(seen);
      if (found !== undefined) return found;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`Gave up waiting for ${what}; last seen: ${JSON.stringify(seen).slice(0, 2_000)}`);
  }

  async function command(person: string, text: string): Promise<void> {
    expect(await post('/api/command', { person, channel: 'C0GENERAL', text })).toEqual({ status: 200, body: {} });
  }

  async function replyTo(person: string, text: string, expected: string): Promise<MessageState> {
    const before = (await state(person)).timeline.length;
    await command(person, text);
    return eventually(
      person,
      (seen) => seen.timeline.slice(before).find((message) => read(message).includes(expected)),
      `a reply to ${text}`,
    );
  }

  /** Runs a command and waits for a message, to the person or in the channel, that says `expected`. */
  async function answered(person: string, text: string, expected: string): Promise<MessageState> {
    const before = (await state(person)).timeline.length;
    await command(person, text);
    return eventually(
      person,
      (seen) => seen.timeline.slice(before).find((message) => `${message.text} ${read(message)}`.includes(expected)),
      `a reply to ${text} saying ${expected}`,
    );
  }

  /** Logs in with a one-team login through the modal. */
  async function logIn(person: string, user: { email: string; password: string }): Promise<void> {
    await command(person, '/chaos login');
    const login = await eventually(person, modalTitled('Log in to the platform'), 'the login modal');
    await post('/api/modal/submit', {
      person,
      viewId: login.viewId,
      fields: [
        { blockId: 'login_email', actionId: 'login_email', value: user.email },
        { blockId: 'login_password', actionId: 'login_password', value: user.password },
      ],
    });
    const done = await eventually(person, modalTitled('Logged in'), 'the logged-in confirmation');
    await post('/api/modal/close', { person, viewId: done.viewId });
  }

  return { post, state, eventually, command, replyTo, answered, logIn };
}

const modalTitled = (title: string) => (seen: PersonState) => (seen.modal?.title === title ? seen.modal : undefined);
const read = (message: MessageState) => JSON.stringify(message.blocks).replace(/[*`]/g, '');
const { post, state, eventually, command, replyTo } = client(() => demo);

describe('npm run demo', () => {
  it('prints where the page is and how to log in', () => {
    const banner = demoBanner(demo);
    expect(banner).toContain(`Open ${demo.playgroundUrl} in a browser`);
    // The page's is the only address a person needs, so the only one shown.
    expect(banner.match(/\w+:\/\/\S+/g)).toEqual([demo.playgroundUrl]);
    expect(banner).toContain('"Acting as" (top left) picks who you are: alice, bob or carol.');
    expect(banner).toMatch(/owner@acme\.test +Acme Demo: Platform \(owner\), Payments \(owner\), Search \(owner\)/);
    // The login to try a refusal with says which it is.
    expect(banner).toMatch(/observer@acme\.test +Acme Demo: Platform \(observer: cannot start or halt attacks\)/);
    expect(banner).toContain(`password ${demo.sim.seed.users.owner.password}`);
    expect(banner).toContain(`MFA code: ${demo.sim.seed.mfaCode}`);
  });

  it('says which features a workspace configures are on, and how to turn each off', () => {
    const banner = demoBanner(demo);
    expect(banner).toContain('Two-person approval is on: APPROVAL_RULES=length>600 (APPROVAL_RULES= turns it off).');
    expect(banner).toContain(
      'The secure login page is on: /chaos login offers it first (LOGIN_MODE=both; LOGIN_MODE=modal turns it off).',
    );
    expect(banner).toContain("Slackbot's tools are on: the page's Ask Slackbot box calls them as the person acting");
    const off = demoBanner({
      ...demo,
      features: { approvalRules: '', loginMode: 'modal', presenceMinutes: 0, slackbot: false },
    });
    expect(off).toContain('Two-person approval is off; start the demo with APPROVAL_RULES=length>600');
    expect(off).toContain('The secure login page is off (LOGIN_MODE=modal)');
    expect(off).not.toContain('Log in with SSO');
    expect(off).toContain('Presence checks are off (PRESENCE_MINUTES=0)');
    expect(off).toContain("Slackbot's tools are off (MCP_ENABLED=false)");
  });

  it('asks "Still watching?" after 2 minutes, and says so', () => {
    expect(demo.config.presenceMinutes).toBe(2);
    expect(demoBanner(demo)).toContain(
      'Presence checks: an attack running 2 minutes asks whoever watches it "Still watching?" (PRESENCE_MINUTES=2; PRESENCE_MINUTES=0 turns them off).',
    );
  });

  it('says what a restart keeps, and how to start from the seed', () => {
    expect(demoBanner(demo)).toContain('kept when the demo stops; ./run.sh --fresh starts again from the seed.');
  });

  it('says single sign-on can be tried, and who signs in with it; with LOGIN_MODE=sso, that nothing else is offered', () => {
    const { email } = demo.sim.seed.sso;
    expect(demoBanner(demo)).toContain(`Log in with SSO signs in ${email}`);
    const ssoOnly = demoBanner({ ...demo, features: { ...demo.features, loginMode: 'sso' } });
    expect(ssoOnly).not.toContain('offers it first');
    expect(ssoOnly).toContain('single sign-on is the only way in (LOGIN_MODE=sso;');
    expect(ssoOnly).toContain(`Log in with SSO signs in ${email}`);
    // No password to type, so none shown, nor the logins that need one.
    expect(ssoOnly).not.toContain(demo.hints.password);
    expect(ssoOnly).not.toContain('MFA code');
    for (const login of demo.hints.logins) expect(ssoOnly).not.toContain(login.email);
  });

  it('logs in with several teams through the modal and the team picker, then answers whoami', async () => {
    const { owner } = demo.sim.seed.users;
    await command('U0ALICE', '/chaos login');
    const login = await eventually('U0ALICE', modalTitled('Log in to the platform'), 'the login modal');
    expect(login).toMatchObject({ submit: 'Log in', close: 'Cancel' });

    await post('/api/modal/submit', {
      person: 'U0ALICE',
      viewId: login.viewId,
      fields: [
        { blockId: 'login_email', actionId: 'login_email', value: owner.email },
        { blockId: 'login_password', actionId: 'login_password', value: owner.password },
      ],
    });
    const picker = await eventually('U0ALICE', modalTitled('Choose a team'), 'the team picker');
    expect(picker).toMatchObject({ submit: 'Use this team', close: 'Cancel' });
    expect(JSON.stringify(picker.blocks)).toContain('You belong to 3 teams');

    expect(
      (
        await post('/api/choose', {
          person: 'U0ALICE',
          surface: { kind: 'modal', viewId: picker.viewId },
          label: 'Team',
          option: 'Payments',
        })
      ).status,
    ).toBe(200);
    await post('/api/modal/submit', { person: 'U0ALICE', viewId: picker.viewId });
    const done = await eventually('U0ALICE', modalTitled('Logged in'), 'the logged-in confirmation');
    expect(done).toMatchObject({ submit: null, close: 'Done' });
    expect(JSON.stringify(done.blocks)).toContain('Logged in as *owner@acme.test* at *Acme Demo*');

    await post('/api/modal/close', { person: 'U0ALICE', viewId: done.viewId });
    expect((await state('U0ALICE')).modal).toBeNull();

    const whoami = await replyTo('U0ALICE', '/chaos whoami', 'Current team');
    expect(whoami.ephemeral).toBe(true);
    expect(read(whoami)).toContain('Current team\\nPayments');
    // Somebody else in the channel sees none of it.
    expect((await state('U0BOB')).timeline.filter((message) => message.ephemeral)).toEqual([]);
  });

  it('logs in with one team at once', async () => {
    const { solo } = demo.sim.seed.users;
    await command('U0CAROL', '/chaos login');
    const login = await eventually('U0CAROL', modalTitled('Log in to the platform'), 'the login modal');
    await post('/api/modal/submit', {
      person: 'U0CAROL',
      viewId: login.viewId,
      fields: [
        { blockId: 'login_email', actionId: 'login_email', value: solo.email },
        { blockId: 'login_password', actionId: 'login_password', value: solo.password },
      ],
    });
    const done = await eventually('U0CAROL', modalTitled('Logged in'), 'the logged-in confirmation');
    expect(JSON.stringify(done.blocks)).toContain('Team: *Platform*');
  });

  it('shows a wrong password as an error on the field and keeps the modal open', async () => {
    await command('U0BOB', '/chaos login');
    const login = await eventually('U0BOB', modalTitled('Log in to the platform'), 'the login modal');
    await post('/api/modal/submit', {
      person: 'U0BOB',
      viewId: login.viewId,
      fields: [
        { blockId: 'login_email', actionId: 'login_email', value: 'solo@acme.test' },
        { blockId: 'login_password', actionId: 'login_password', value: 'not-the-password' },
      ],
    });
    const refused = await eventually(
      'U0BOB',
      (seen) => (Object.keys(seen.modal?.errors ?? {}).length > 0 ? seen.modal : undefined),
      'a field error',
    );
    expect(refused).toMatchObject({
      viewId: login.viewId,
      errors: { Password: 'E-mail or password not accepted. Check them and try again.' },
    });
    await post('/api/modal/close', { person: 'U0BOB', viewId: login.viewId });
  });
});

/** An address of this machine that is not loopback, where a server on every interface would answer. */
const outside = Object.values(networkInterfaces())
  .flat()
  .find((address) => address !== undefined && !address.internal && address.family === 'IPv4')?.address;

/** Whether a TCP connection to `port` at `host` is taken. */
function answers(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe.skipIf(outside === undefined)('where the demo listens', () => {
  it('is loopback only: the page, the simulator and the bot are not reached from another machine', async () => {
    for (const url of [demo.playgroundUrl, demo.simulatorUrl, demo.botUrl]) {
      const { port } = new URL(url);
      expect(await answers('127.0.0.1', Number(port)), url).toBe(true);
      expect(await answers(outside!, Number(port)), url).toBe(false);
    }
  });
});

describe('the demo session key', () => {
  it('is made once, readable by its owner only, and kept', async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'faultline-key-')), 'nested');
    const key = await demoSessionKey(dataDir);
    expect(Buffer.from(key, 'base64')).toHaveLength(32);
    expect(statSync(join(dataDir, 'demo-session.key')).mode & 0o777).toBe(0o600);
    expect(await demoSessionKey(dataDir)).toBe(key);
  });

  it('refuses a file that does not hold a key, without printing it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'faultline-key-'));
    writeFileSync(join(dataDir, 'demo-session.key'), 'not-a-key\n');
    const failure = demoSessionKey(dataDir);
    await expect(failure).rejects.toThrow(/demo-session\.key does not hold a session key/);
    await expect(failure).rejects.not.toThrow(/not-a-key/);
  });
});

describe('a restart', () => {
  /** The demos' error and warning lines: a restarted bot that finds what it stored gone logs them. */
  const complaints: string[] = [];
  const quiet = new Writable({
    write(chunk, _encoding, done) {
      complaints.push(
        ...String(chunk)
          .split('\n')
          .filter((line) => /"level":"(warn|error|fatal)"/.test(line)),
      );
      done();
    },
  });
  afterEach(() => {
    expect(complaints.splice(0)).toEqual([]);
  });

  it('keeps the logins, the saved attacks and the messages, and the session key; --fresh forgets them', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'faultline-restart-'));
    let current = await startDemo({ dataDir, port: 0, logDestination: quiet });
    const api = client(() => current);
    try {
      await api.logIn('U0ALICE', current.sim.seed.users.solo);
      await api.answered('U0ALICE', '/chaos save web-cpu cpu -l 30 -c 1 --target-tags role=web', 'Saved *web-cpu*');
      await api.answered('U0ALICE', '/chaos gameday start Restart drill', 'Restart drill');
      await api.command('U0ALICE', '/chaos attack cpu -l 600 -c 1 --target-tags role=web --yes');
      const [attack] = await current.fake.waitFor(() => {
        const attacks = [...current.sim.state.attacks.keys()];
        return attacks.length > 0 ? attacks : undefined;
      }, 'the attack on the platform');
      const before = (await api.state('U0ALICE')).timeline.map((message) => message.ts);
      const key = readFileSync(join(dataDir, 'demo-session.key'), 'utf8');
      await current.stop();

      current = await startDemo({ dataDir, port: 0, logDestination: quiet });
      expect(readFileSync(join(dataDir, 'demo-session.key'), 'utf8')).toBe(key);
      // The page shows what it showed, and the bot still knows who is logged in and what was saved.
      expect((await api.state('U0ALICE')).timeline.map((message) => message.ts)).toEqual(
        expect.arrayContaining(before),
      );
      expect(read(await api.replyTo('U0ALICE', '/chaos whoami', 'Current team'))).toContain('solo@acme.test');
      await api.answered('U0ALICE', '/chaos saved', 'web-cpu');
      await api.answered('U0ALICE', '/chaos gameday status', 'Restart drill');
      // The platform still runs the attack the card follows.
      expect(current.sim.state.attacks.get(attack!)?.createUser).toBe('solo@acme.test');
      await current.stop();

      current = await startDemo({ dataDir, port: 0, fresh: true, logDestination: quiet });
      expect(readFileSync(join(dataDir, 'demo-session.key'), 'utf8')).toBe(key);
      expect((await api.state('U0ALICE')).timeline).toEqual([]);
      expect(read(await api.replyTo('U0ALICE', '/chaos whoami', 'login_open'))).not.toContain('solo@acme.test');
    } finally {
      await current.stop();
    }
  });

  it('is refused while the demo runs on the same folder, which carries on untouched', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'faultline-twice-'));
    const first = await startDemo({ dataDir, port: 0, logDestination: quiet });
    const api = client(() => first);
    try {
      await api.logIn('U0BOB', first.sim.seed.users.solo);
      const files = readdirSync(dataDir).filter((name) => !name.endsWith('.partial'));
      const lock = readFileSync(join(dataDir, 'demo.lock'), 'utf8');
      for (const fresh of [false, true]) {
        await expect(startDemo({ dataDir, port: 0, fresh, logDestination: quiet })).rejects.toThrow(
          `A demo is already running at ${first.playgroundUrl}: open that page, or stop that demo (Ctrl-C where it runs) before starting another.`,
        );
      }
      // Nothing deleted, not even by --fresh, and the lock still names the first demo.
      expect(readdirSync(dataDir)).toEqual(expect.arrayContaining(files));
      expect(readFileSync(join(dataDir, 'demo.lock'), 'utf8')).toBe(lock);
      expect(read(await api.replyTo('U0BOB', '/chaos whoami', 'Current team'))).toContain('solo@acme.test');
    } finally {
      await first.stop();
    }
  });
});

describe("the demo's settings", () => {
  it("are the product's variables over the demo's defaults; those that join the parts stay the demo's", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'faultline-settings-'));
    const quiet = new Writable({ write: (_chunk, _encoding, done) => done() });
    const configured = await startDemo({
      dataDir,
      port: 0,
      logDestination: quiet,
      environment: {
        PRESENCE_MINUTES: '1',
        POLL_SECONDS: '7',
        MAX_ATTACK_SECONDS: '120',
        APPROVAL_RULES: '',
        SLACK_APP_TOKEN: 'xapp-1-elsewhere',
        STORE_URL: 'memory://',
        MCP_ENABLED: 'false',
      },
    });
    try {
      expect(configured.config).toMatchObject({
        mcpEnabled: false,
        presenceMinutes: 1,
        pollSeconds: 7,
        maxAttackSeconds: 120,
        countdownSeconds: 15,
        approvalRules: [],
        storeUrl: `sqlite://${join(dataDir, 'demo.db')}`,
        slack: { socketMode: false, apiUrl: configured.fake.apiUrl },
      });
      const banner = demoBanner(configured);
      expect(banner).toContain(
        'an attack running 1 minute asks whoever watches it "Still watching?" (PRESENCE_MINUTES=1;',
      );
      expect(banner).toContain('Two-person approval is off');
      // The bot answers with the settings it was given.
      const api = client(() => configured);
      await api.logIn('U0CAROL', configured.sim.seed.users.solo);
      await api.command('U0CAROL', '/chaos attack cpu -l 300 --target-tags role=web');
      await api.eventually(
        'U0CAROL',
        (seen) =>
          seen.timeline.find((message) =>
            `${message.text}${read(message)}`.includes('Attacks may run at most 120 seconds here.'),
          ),
        'the length refused at MAX_ATTACK_SECONDS',
      );
    } finally {
      await configured.stop();
    }
  });
});

describe('stopping', () => {
  it('closes the page, the bot, the fake Slack and the simulator', async () => {
    await demo.stop();
    for (const url of [demo.playgroundUrl, demo.sim.httpUrl, demo.fake.apiUrl]) {
      await expect(fetch(url)).rejects.toThrow();
    }
  });
});
