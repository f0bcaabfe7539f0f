/**
 * The demo: the platform simulator, the fake Slack, the bot and the playground page, wired as the
 * end-to-end tests wire them (the bot's test/e2e/harness.ts), for a person to use without a Slack workspace.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { startFakeSlack, type FakeSlack } from '@faultline/fake-slack';
import { privilegesOfTeamRole, startSimulator, type Simulator } from '@faultline/platform-sim';
import type { DestinationStream } from 'pino';
import { Agent } from 'undici';
import {
  backgroundJobs,
  createDeps,
  createLogger,
  loadConfig,
  manifestSteps,
  messageShortcuts,
  startBot,
} from './bot.ts';
import { PLAYGROUND_PEOPLE, type DemoLogin, type LoginHints } from './directory.ts';
import { type PlaygroundLogger, startPlayground } from './server.ts';

export interface DemoOptions {
  /** Holds the store (`demo.db`, emptied at each start) and the session key (`demo-session.key`, kept); created when missing. */
  dataDir: string;
  /** The playground's port; 0 picks a free one. */
  port: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** A LOG_LEVEL value, checked as the bot's configuration checks it; default info. */
  logLevel?: string;
  /** Where the bot's JSON log lines go; default stdout. */
  logDestination?: DestinationStream;
  /** APPROVAL_RULES for the demo's bot; default {@link demoApprovalRules}, '' for none. */
  approvalRules?: string;
  /** LOGIN_MODE for the demo's bot; default `both`: the secure page offered first, the Slack form beside it. */
  loginMode?: string;
}

/** Two-person approval in the demo: what the README's examples start (up to 300 s) never needs it. */
export const demoApprovalRules = 'length>600';

/** What the demo has turned on that a workspace only has when configured, for the banner. */
export interface DemoFeatures {
  approvalRules: string;
  loginMode: string;
}

export interface Demo {
  /** The page to open. */
  playgroundUrl: string;
  /** The simulator's HTTPS API base (self-signed certificate). */
  simulatorUrl: string;
  /** The bot's own address: Slack's endpoint and the login page the playground passes on. */
  botUrl: string;
  sim: Simulator;
  fake: FakeSlack;
  hints: LoginHints;
  features: DemoFeatures;
  /** Stops the page, the bot (finishing work in flight), the fake Slack and the simulator. */
  stop(): Promise<void>;
}

const SESSION_KEY_FILE = 'demo-session.key';
const COMMAND = '/chaos';
const STORE_FILE = 'demo.db';

/** The demo's session key, made once and kept so stored sessions stay readable across restarts. */
export async function demoSessionKey(dataDir: string): Promise<string> {
  const file = join(dataDir, SESSION_KEY_FILE);
  let key: string;
  try {
    key = (await readFile(file, 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await mkdir(dataDir, { recursive: true });
    key = randomBytes(32).toString('base64');
    // 'wx': two demos starting at once must not each write a different key.
    await writeFile(file, `${key}\n`, { mode: 0o600, flag: 'wx' }).catch(async (writeError: NodeJS.ErrnoException) => {
      if (writeError.code !== 'EEXIST') throw writeError;
      key = (await readFile(file, 'utf8')).trim();
    });
  }
  if (Buffer.from(key, 'base64').length !== 32) {
    throw new Error(
      `${file} does not hold a session key (32 random bytes in base64); delete it and start again to make a new one.`,
    );
  }
  return key;
}

/** What a team role cannot do of what the demo is for, as a login's summary says it: ": cannot start or halt attacks". */
function cannotText(role: Parameters<typeof privilegesOfTeamRole>[0]): string {
  const privileges: readonly string[] = privilegesOfTeamRole(role);
  const cannot = [
    ...(privileges.includes('EXPERIMENTS_RUN') ? [] : ['start']),
    ...(privileges.includes('HALT_WRITE') ? [] : ['halt']),
  ];
  return cannot.length ? `: cannot ${cannot.join(' or ')} attacks` : '';
}

/** The seeded platform logins, each with what it shows off. */
export function demoLogins(sim: Simulator): LoginHints {
  const { state, seed } = sim;
  const logins: DemoLogin[] = Object.values(seed.users).map(({ email, id }) => {
    const user = state.users.get(id);
    const company = user === undefined ? '' : (state.companies.get(user.companyId)?.name ?? '');
    const teams =
      user === undefined
        ? []
        : [...user.teamRoles].map(
            ([teamId, role]) =>
              `${state.teams.get(teamId)?.name ?? teamId} (${role.replace(/^TEAM_/, '').toLowerCase()}${cannotText(role)})`,
          );
    const mfa = user?.mfaCode !== undefined ? ', asks for the MFA code' : '';
    return { email, summary: `${company}: ${teams.join(', ')}${mfa}` };
  });
  return { password: seed.users.owner.password, mfaCode: seed.mfaCode, logins };
}

/**
 * What the console shows once the demo runs. The page's address is the only one in it: the
 * simulator and the bot listen on ports of their own that nobody needs to open.
 */
export function demoBanner(demo: Demo, options: { logFile?: string } = {}): string {
  const width = Math.max(...demo.hints.logins.map((login) => login.email.length));
  const people = PLAYGROUND_PEOPLE.map((person) => person.name);
  return [
    'Faultline demo: the bot, a stand-in for Slack and the platform simulator, all on this machine.',
    '',
    `  Open ${demo.playgroundUrl} in a browser.`,
    '',
    `The page is a small Slack workspace. "Acting as" (top left) picks who you are: ${people.slice(0, -1).join(', ')} or ${people.at(-1)}.`,
    'Switch to see what someone else sees, or to act as them: start an attack as one person, halt it as another.',
    'Its Simulator panel turns a monitor to Alert, as an incident would: see "A guard firing, in the demo" in the README.',
    '',
    `Type /chaos login in the page. Every demo login has the password ${demo.hints.password}:`,
    ...demo.hints.logins.map((login) => `  ${login.email.padEnd(width)}  ${login.summary}`),
    `MFA code: ${demo.hints.mfaCode}`,
    '',
    ...featureLines(demo.features, demo.sim.seed.sso.email),
    '',
    ...(options.logFile !== undefined
      ? [`The bot's log goes to ${options.logFile}; set LOG_LEVEL (such as LOG_LEVEL=debug) to print it here instead.`]
      : []),
    'To run against a real Slack workspace instead, see "Running against Slack" in the README.',
    'Ctrl-C stops everything.',
  ].join('\n');
}

/** Which of the features a workspace configures are on in this demo, and how to change that. */
function featureLines({ approvalRules, loginMode }: DemoFeatures, ssoEmail: string): string[] {
  const page =
    loginMode === 'modal'
      ? ['The secure login page is off (LOGIN_MODE=modal): /chaos login opens the Slack form only.']
      : loginMode === 'sso'
        ? [
            'Single sign-on only: /chaos login offers Log in with SSO alone, no password (LOGIN_MODE=sso; LOGIN_MODE=both brings the password back).',
          ]
        : [
            `The secure login page is on: /chaos login offers it${loginMode === 'page' ? ' alone' : ' first'} (LOGIN_MODE=${loginMode}; LOGIN_MODE=modal turns it off).`,
          ];
  return [
    approvalRules === ''
      ? 'Two-person approval is off; start the demo with APPROVAL_RULES=length>600 (for example) to try it.'
      : `Two-person approval is on: APPROVAL_RULES=${approvalRules} (APPROVAL_RULES= turns it off).`,
    ...page,
    ...(loginMode === 'modal'
      ? []
      : [`Log in with SSO signs in ${ssoEmail}, who has no password, at the simulator's identity provider.`]),
    'The README\'s "Approval and the secure login page, in the demo" and "Single sign-on, in the demo" walk through them.',
  ];
}

export async function startDemo(options: DemoOptions): Promise<Demo> {
  const dataDir = resolve(options.dataDir);
  const sessionKey = await demoSessionKey(dataDir);
  // The simulator and the fake Slack start from their seed every time, so what the last run
  // stored (sessions, live cards the poller would keep looking for) refers to nothing any more.
  for (const file of [STORE_FILE, `${STORE_FILE}-journal`, `${STORE_FILE}-wal`, `${STORE_FILE}-shm`])
    await rm(join(dataDir, file), { force: true });
  // Everything started so far, stopped in reverse if a later part fails to start.
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  };
  try {
    const sim = await startSimulator();
    stops.push(() => sim.stop());

    const signingSecret = randomBytes(24).toString('hex');
    const botToken = `xoxb-demo-${randomBytes(12).toString('hex')}`;
    const fake = await startFakeSlack({
      signingSecret,
      botToken,
      teamDomain: 'faultline-demo',
      steps: manifestSteps(),
    });
    stops.push(() => fake.stop());

    // The simulator's certificate is its own; only the bot's platform client and the page's panel trust it.
    const agent = new Agent({ connect: { ca: sim.ca } });
    stops.push(() => agent.close());

    const hints = demoLogins(sim);
    const features: DemoFeatures = {
      approvalRules: options.approvalRules ?? demoApprovalRules,
      loginMode: options.loginMode ?? 'both',
    };
    // The page comes first: the bot's PUBLIC_URL is its address, where it passes the login page on.
    let logger: PlaygroundLogger | undefined;
    const playground = await startPlayground({
      fake,
      host: options.host ?? '127.0.0.1',
      port: options.port,
      command: COMMAND,
      hints,
      logger: {
        warn: (fields, message) => logger?.warn(fields, message),
        debug: (fields, message) => logger?.debug(fields, message),
      },
      simulator: { controlUrl: sim.controlUrl, dispatcher: agent },
      shortcuts: messageShortcuts(),
    });
    stops.push(() => playground.stop());

    const config = loadConfig({
      SLACK_BOT_TOKEN: botToken,
      SLACK_SIGNING_SECRET: signingSecret,
      SLACK_API_URL: fake.apiUrl,
      SLASH_COMMAND: COMMAND,
      PLATFORM_API_URL: sim.url,
      SESSION_KEY: sessionKey,
      STORE_URL: `sqlite://${join(dataDir, STORE_FILE)}`,
      LOG_LEVEL: options.logLevel ?? 'info',
      // Simulated stages last seconds; cards that lag them by the production default look stuck.
      POLL_SECONDS: '3',
      // A step's countdown long enough to press Veto, short enough not to wait on a walkthrough.
      COUNTDOWN_SECONDS: '15',
      // The simulator's tracker integration works with these, so filing a ticket works out of the box.
      TRACKER_PROJECT_ID: sim.seed.tracker.projectId,
      TRACKER_ISSUE_TYPE_ID: sim.seed.tracker.issueTypeId,
      // The demo company's monitoring integrations, so guards (`--guard a:1234567`) read its monitors and alerts.
      MONITORING_A_INTEGRATION: sim.seed.monitoring.a.integrationName,
      MONITORING_A_DOMAIN: sim.seed.monitoring.a.domain,
      MONITORING_B_URI: sim.seed.monitoring.b.uri,
      APPROVAL_RULES: features.approvalRules,
      PUBLIC_URL: playground.url,
      LOGIN_MODE: features.loginMode,
      // The demo's people (alice, bob, carol) may log in as any of the demo company's logins, whose
      // e-mails are not theirs in Slack: the e-mail match would refuse every one.
      LOGIN_EMAIL_MATCH: 'off',
      // The simulator plays Acme Demo's identity provider: "Log in with SSO" goes straight to it.
      SSO_COMPANY: sim.seed.company.name,
      // Slackbot's tools, for the page's Ask Slackbot box.
      MCP_ENABLED: 'true',
    });
    const deps = createDeps(config, {
      logger: createLogger(config.logLevel, options.logDestination),
      dispatcher: agent,
      // The platform's time, as the end-to-end tests keep them: real time unless a test moves the simulator on.
      now: () => sim.clock.now(),
    });
    logger = deps.logger.child({ component: 'playground' });
    const bot = await startBot(deps, { port: 0, host: '127.0.0.1', jobs: backgroundJobs(deps) });
    stops.push(() => bot.stop());
    fake.setBotUrl(`http://127.0.0.1:${bot.port}/slack/events`);
    playground.routeLoginPageTo(`http://127.0.0.1:${bot.port}`);
    playground.askSlackbotAt(`http://127.0.0.1:${bot.port}/mcp`);

    let stopping: Promise<void> | undefined;
    return {
      playgroundUrl: playground.url,
      simulatorUrl: sim.url,
      botUrl: `http://127.0.0.1:${bot.port}`,
      sim,
      fake,
      hints,
      features,
      stop: () => (stopping ??= stopAll()),
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
