import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { startFakeSlack, type FakeSlack, type StepDefinition } from '@faultline/fake-slack';
import { startSimulator, type Simulator } from '@faultline/platform-sim';
import { Agent } from 'undici';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { parse } from 'yaml';
import { startBot, type RunningBot } from '../../src/app.ts';
import type { PollReport } from '../../src/attacks/poller.ts';
import { type Bot, createBot } from '../../src/bootstrap.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { backgroundJobs } from '../../src/jobs/backgroundJobs.ts';
import { createLogger } from '../../src/logger.ts';
import { dropRedisKeys } from '../support/redisKeys.ts';

const manifest = parse(readFileSync(new URL('../../manifest.yml', import.meta.url), 'utf8'));
/** The bot token's scopes, as manifest.yml asks for them: a Web API call outside them fails as in Slack. */
const manifestScopes: string[] = manifest.oauth_config.scopes.bot;
/** The custom steps manifest.yml declares: the fake Slack runs them and checks their outputs. */
export const manifestSteps: Record<string, StepDefinition> = manifest.functions;

/** The simulator's seeded tracker project and issue type, as a Faultline that files tickets is configured for them. */
export const trackerEnv = { TRACKER_PROJECT_ID: '10001', TRACKER_ISSUE_TYPE_ID: '10004' };

/** The simulator's seeded monitoring products, as a Faultline with guards is configured for them. */
export const monitoringEnv = {
  MONITORING_A_INTEGRATION: 'acme-metrics',
  MONITORING_A_DOMAIN: 'app.monitoring-a.example',
  MONITORING_B_URI: 'https://alerts.monitoring-b.example',
};

export interface LogLine {
  level: string;
  msg: string;
  [key: string]: unknown;
}

export interface StackOptions {
  /** Default memory://. */
  storeUrl?: string;
  /** Extra environment for the bot (ATTACK_CHANNELS, MAX_ATTACK_SECONDS, ...). */
  env?: Record<string, string>;
  /** A simulator shared between stacks (e.g. two bot processes). */
  sim?: Simulator;
  /** A fake Slack shared between stacks. */
  fake?: FakeSlack;
  /** Same value for stacks that share sessions; default a fresh one. */
  sessionKey?: string;
  storeNamespace?: string;
  /** `socket` runs the bot in Socket Mode (SLACK_APP_TOKEN, no signing secret); default `http`. */
  mode?: 'http' | 'socket';
  /** The slash command (SLASH_COMMAND), which people type in the fake Slack too; default `/chaos`. */
  command?: string;
  /** Time limit of one Slack Web API request; default the production one. */
  slackTimeoutMs?: number;
}

/**
 * The whole product on loopback: the platform simulator over HTTPS, the fake Slack, and the bot
 * in HTTP mode (or Socket Mode) built by the same createBot and startBot as production, logging
 * at debug level into memory so tests can read every line.
 */
export class Stack {
  readonly sim: Simulator;
  readonly fake: FakeSlack;
  readonly config: Config;
  readonly logs: LogLine[] = [];
  built!: Bot;
  bot!: RunningBot;
  /** Bot clock offset, moved together with the simulator's by advanceClock. */
  #offset = 0;
  readonly #ownsSim: boolean;
  readonly #ownsFake: boolean;
  readonly #agent: Agent;
  readonly #storeNamespace: string;
  readonly #slackTimeoutMs: number | undefined;

  private constructor(sim: Simulator, fake: FakeSlack, config: Config, options: StackOptions) {
    this.sim = sim;
    this.fake = fake;
    this.config = config;
    this.#ownsSim = !options.sim;
    this.#ownsFake = !options.fake;
    this.#agent = new Agent({ connect: { ca: sim.ca } });
    this.#storeNamespace = options.storeNamespace ?? `faultline-e2e-${randomUUID()}`;
    this.#slackTimeoutMs = options.slackTimeoutMs;
  }

  static readonly signingSecret = 'e2e-signing-secret';
  static readonly botToken = 'xoxb-e2e-bot-token';
  static readonly appToken = 'xapp-1-A0FAULTLN-1-e2e-app-token';

  static async start(options: StackOptions = {}): Promise<Stack> {
    const sim = options.sim ?? (await startSimulator());
    const socketMode = options.mode === 'socket';
    const fake =
      options.fake ??
      (await startFakeSlack({
        signingSecret: Stack.signingSecret,
        botToken: Stack.botToken,
        scopes: manifestScopes,
        steps: manifestSteps,
        ...(socketMode ? { appToken: Stack.appToken } : {}),
        ...(options.command ? { commandName: options.command } : {}),
      }));
    const config = loadConfig({
      SLACK_BOT_TOKEN: Stack.botToken,
      ...(socketMode ? { SLACK_APP_TOKEN: Stack.appToken } : { SLACK_SIGNING_SECRET: Stack.signingSecret }),
      SLACK_API_URL: fake.apiUrl,
      PLATFORM_API_URL: sim.url,
      SESSION_KEY: options.sessionKey ?? randomBytes(32).toString('base64'),
      STORE_URL: options.storeUrl ?? 'memory://',
      LOG_LEVEL: 'debug',
      // Tests poll explicitly (stack.poll()), so the timer never races them.
      POLL_SECONDS: '3600',
      ...(options.command ? { SLASH_COMMAND: options.command } : {}),
      ...options.env,
    });
    const stack = new Stack(sim, fake, config, options);
    await stack.startBot();
    return stack;
  }

  /**
   * Two replicas on one store, as HTTP mode is deployed: one namespace and session key, one
   * simulator and one fake Slack, which delivers to the first unless a test says otherwise.
   */
  static async startReplicas(
    storeUrl: string,
    options: Omit<StackOptions, 'storeUrl' | 'storeNamespace' | 'sessionKey' | 'sim' | 'fake'> = {},
  ): Promise<[Stack, Stack]> {
    const shared = {
      ...options,
      storeUrl,
      storeNamespace: `faultline-replicas-${randomUUID()}`,
      sessionKey: randomBytes(32).toString('base64'),
    };
    const first = await Stack.start(shared);
    const second = await Stack.start({ ...shared, sim: first.sim, fake: first.fake });
    first.fake.setBotUrl(`http://127.0.0.1:${first.bot.port}/slack/events`);
    return [first, second];
  }

  /** The store namespace this stack's keys live under. */
  get storeNamespace(): string {
    return this.#storeNamespace;
  }

  /** Starts (or starts again, after stopBot) the bot process on a free port; over HTTP, points the fake Slack at it. */
  async startBot(): Promise<void> {
    const logs = this.logs;
    const destination = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) logs.push(JSON.parse(line) as LogLine);
        done();
      },
    });
    this.built = createBot(this.config, {
      logger: createLogger('debug', destination),
      dispatcher: this.#agent,
      storeNamespace: this.#storeNamespace,
      now: () => Date.now() + this.#offset,
      // The fake Slack has no rate limit; pacing is measured by the benchmarks instead.
      messenger: { updatesPerMinute: 600_000, updateBurst: 10_000 },
      ...(this.#slackTimeoutMs !== undefined ? { slackTimeoutMs: this.#slackTimeoutMs } : {}),
    });
    this.bot = await startBot(this.built, {
      port: 0,
      jobs: backgroundJobs(this.built.services),
      ...(this.#slackTimeoutMs !== undefined ? { slackTimeoutMs: this.#slackTimeoutMs } : {}),
    });
    if (!this.config.slack.socketMode) this.fake.setBotUrl(`http://127.0.0.1:${this.bot.port}/slack/events`);
  }

  async stopBot(): Promise<void> {
    await this.bot.stop();
  }

  /** One pass of every background job, the card refresh last, then every card update they queued has reached Slack. */
  async poll(): Promise<PollReport> {
    const results = await this.bot.jobs.runNow();
    await this.built.services.slack.flush();
    return results.get('refresh-cards') as PollReport;
  }

  /**
   * Between tests: the simulator back to its seed, both clocks to now, and a bot process with
   * an empty store (memory://), so no card or session of one test reaches the next.
   */
  async reset(): Promise<void> {
    this.sim.reset();
    this.#offset = 0;
    if (this.config.storeUrl === 'memory://') {
      await this.stopBot();
      await this.startBot();
    }
  }

  /** Moves the platform's and the bot's clocks on together. */
  advanceClock(ms: number): void {
    this.#offset += ms;
    this.sim.clock.advance(ms);
  }

  person(id: string, profile?: { name?: string; realName?: string; teamId?: string; email?: string }) {
    return this.fake.user(id, { name: id.toLowerCase(), ...profile });
  }

  /**
   * Logs a person in through the login modal, choosing `team` when the picker follows. Their
   * Slack profile gets the login's e-mail, as a person logging in as themselves has it.
   */
  async login(
    personId: string,
    user: { email: string; password: string },
    options: { team?: string; mfaCode?: string } = {},
  ) {
    const person = this.person(personId, { email: user.email });
    await person.command('login');
    const modal = await this.fake.waitFor(
      () => person.modal()?.callbackId === 'login' && person.modal(),
      'the login modal',
    );
    const published = this.homePublishes(personId) + (options.team ? 1 : 0);
    modal.fill('Email', user.email).fill('Password', user.password);
    if (options.mfaCode) modal.fill('MFA code', options.mfaCode);
    await modal.submit();
    if (options.team) {
      const picker = await this.fake.waitFor(
        () => person.modal()?.callbackId === 'team_picker' && person.modal(),
        'the team picker',
      );
      await picker.choose('Team', options.team).submit();
    }
    await this.fake.waitFor(() => person.modal()?.title === 'Logged in', 'the logged-in confirmation');
    // App Home is redrawn after a login; let that finish so it does not mingle with what follows.
    await this.fake.waitFor(() => this.homePublishes(personId) >= published + 1, 'App Home redrawn after the login');
    return person;
  }

  /** Opens a person's App Home tab and waits for the bot to publish it. */
  async openHome(personId: string) {
    const person = this.person(personId);
    const before = this.homePublishes(personId);
    await person.openHome();
    await this.fake.waitFor(() => this.homePublishes(personId) > before, 'the Home tab');
    return person.home()!;
  }

  homePublishes(personId: string): number {
    return this.fake.callsTo('views.publish').filter((c) => c.args['user_id'] === personId).length;
  }

  /** Opens the login modal for a person (whose Slack e-mail is the one typed) and submits e-mail and password. */
  async submitLogin(personId: string, user: { email: string; password: string }) {
    const person = this.person(personId, { email: user.email });
    await person.command('login');
    const modal = await this.fake.waitFor(
      () => person.modal()?.callbackId === 'login' && person.modal(),
      'the login modal',
    );
    await modal.fill('Email', user.email).fill('Password', user.password).submit();
    return person;
  }

  /** Waits for a reply only `personId` sees in `channel` that says `text`, and returns it. */
  replySaying(personId: string, channel: string, text: string) {
    return this.fake.waitFor(
      () =>
        this.person(personId)
          .ephemerals(channel)
          .find((m) => Stack.read(m).includes(text)),
      `a reply saying “${text}”`,
    );
  }

  /** Runs a command and waits for the ephemeral reply it causes. */
  async ask(personId: string, text: string, options: { channel?: string } = {}) {
    const person = this.person(personId);
    const before = person.ephemerals().length;
    await person.command(text, options);
    return this.fake.waitFor(
      () => person.ephemerals().length > before && person.ephemerals().at(-1),
      `a reply to “${text}”`,
    );
  }

  /**
   * Starts an attack without a preview (`--yes`) as the person, in the channel, and waits for its
   * card: the attack as the simulator has it, and the card as the person sees it.
   */
  async startAttack(personId: string, text: string, channel: string) {
    const before = this.sim.state.attacks.size;
    const reply = await this.ask(personId, `${text} --yes`, { channel });
    if (!Stack.read(reply).includes('Started')) throw new Error(`“${text}” did not start: ${Stack.read(reply)}`);
    const attack = await this.fake.waitFor(
      () => this.sim.state.attacks.size > before && [...this.sim.state.attacks.values()].at(-1),
      'the attack',
    );
    const card = await this.fake.waitFor(
      () =>
        this.person(personId)
          .channel(channel)
          .messages()
          .find((m) => m.text().includes(attack.guid)),
      'the attack card',
    );
    return { attack, card };
  }

  /** Opens the attack builder in the channel, picks a type and a target kind, and gives back the modal once it shows `field`. */
  async openBuilder(personId: string, channel: string, type: string, targetKind: string, field: string) {
    const person = this.person(personId);
    await person.command('attack', { channel });
    let modal = await this.fake.waitFor(
      () => person.modal()?.callbackId === 'attack_builder' && person.modal(),
      'the builder',
    );
    await modal.select('Attack type', type);
    modal = await this.fake.waitFor(
      () => person.modal()?.text().includes('Length in seconds') && person.modal(),
      `the ${type} arguments`,
    );
    await modal.select('Target', targetKind);
    return this.fake.waitFor(
      () => person.modal()?.text().includes(field) && person.modal(),
      `the builder for ${targetKind}`,
    );
  }

  /** Fills the tracker's required fields of the ticket form open for the person and files it; the ticket as the tracker got it. */
  async fileOpenTicket(personId: string) {
    const person = this.person(personId);
    const before = this.sim.state.trackerIssues.length;
    const modal = await this.fake.waitFor(
      () => person.modal()?.callbackId === 'ticket' && person.modal(),
      'the ticket form',
    );
    await modal.choose('Priority', 'High').choose('Environment', 'Production').submit();
    await this.fake.waitFor(() => this.sim.state.trackerIssues.length > before, 'the ticket in the tracker');
    return this.sim.state.trackerIssues.at(-1)!;
  }

  /** An attack's card in a channel, as the channel shows it now. */
  cardIn(channel: string, guid: string) {
    return this.fake
      .channel(channel)
      .messages()
      .find((m) => m.text().includes(guid));
  }

  /** What the thread of an attack's card says, read, oldest first. */
  threadOf(channel: string, guid: string): string[] {
    const card = this.cardIn(channel, guid);
    return card ? this.fake.channel(channel).thread(card.ts).map(Stack.read) : [];
  }

  /** What a person reads: mrkdwn emphasis and code marks removed. */
  static read(surface: { text(): string } | undefined): string {
    return (surface?.text() ?? '').replace(/[*`]/g, '');
  }

  /**
   * What every end-to-end test must leave behind: no secret in the log (debug level included),
   * nothing logged as an error, and no call Slack would have refused.
   */
  expectClean(): void {
    const log = this.logText();
    for (const secret of this.secrets()) expect(log).not.toContain(secret);
    expect(log).not.toMatch(/Bearer [0-9a-f-]{8,}/i);
    expect(this.errorLogs()).toEqual([]);
    expect(this.fake.failures()).toEqual([]);
  }

  errorLogs(): LogLine[] {
    return this.logs.filter((line) => line.level === 'error' || line.level === 'fatal');
  }

  logText(): string {
    return this.logs.map((line) => JSON.stringify(line)).join('\n');
  }

  /** Every secret the platform handed out or was handed so far: none may appear in a log. */
  secrets(): string[] {
    const found = new Set<string>();
    for (const user of Object.values(this.sim.seed.users)) found.add(user.password);
    for (const session of this.sim.state.sessions.values()) {
      for (const value of [session.token, session.renewToken]) if (value) found.add(value);
    }
    return [...found];
  }

  async stop(): Promise<void> {
    await this.bot.stop();
    await this.#agent.close();
    if (this.#ownsFake) await this.fake.stop();
    if (this.#ownsSim) await this.sim.stop();
  }
}

/**
 * One stack for a test file: started before its first test, checked (expectClean) and reset
 * after each, stopped after its last. `assign` hands the started stack to the file.
 */
export function stackForFile(options: StackOptions, assign: (stack: Stack) => void): void {
  let stack: Stack | undefined;
  beforeAll(async () => {
    stack = await Stack.start(options);
    assign(stack);
  });
  afterEach(async () => {
    stack!.expectClean();
    await stack!.reset();
  });
  afterAll(async () => {
    await stack?.stop();
  });
}

/**
 * Two replicas on a shared Redis for every test of a describe block (see Stack.startReplicas);
 * their keys are dropped when the block ends.
 */
export function replicasForSuite(redisUrl: string, assign: (first: Stack, second: Stack) => void): void {
  let replicas: [Stack, Stack] | undefined;
  beforeAll(async () => {
    replicas = await Stack.startReplicas(redisUrl);
    assign(...replicas);
  });
  afterAll(async () => {
    if (!replicas) return;
    await dropRedisKeys(redisUrl, replicas[0].storeNamespace);
    await replicas[1].stop();
    await replicas[0].stop();
  });
}
