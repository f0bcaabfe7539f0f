/**
 * The demo: the platform simulator, the fake Slack, the bot and the playground page, wired as the
 * end-to-end tests wire them (the bot's test/e2e/harness.ts), for a person to use without a Slack workspace.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { startFakeSlack, type FakeSlack } from '@faultline/fake-slack';
import { privilegesOfTeamRole, startSimulator, type Simulator } from '@faultline/platform-sim';
import type { DestinationStream } from 'pino';
import { Agent } from 'undici';
import {
  backgroundJobs,
  createBot,
  createLogger,
  loadConfig,
  manifestSteps,
  messageShortcuts,
  startBot,
} from './bot.ts';
import { claimDataDir, demoKeeper, loadSaved, restorePlatform, STORE_FILE } from './demo-state.ts';
import type { DemoLogin, LoginHints } from './directory.ts';
import { type PlaygroundLogger, startPlayground } from './server.ts';

export interface DemoOptions {
  /**
   * Holds the bot's store (`demo.db`), what the page and the platform showed (demo-state.ts) and
   * the session key (`demo-session.key`), all kept across restarts; created when missing.
   */
  dataDir: string;
  /** Starts from the seed: forgets what earlier runs kept (the session key stays). */
  fresh?: boolean;
  /** The playground's port; 0 picks a free one. */
  port: number;
  /** Default 127.0.0.1. */
  host?: string;
  /**
   * The person's settings: any variable of the configuration table, over the demo's own defaults
   * ({@link demoDefaults}), checked as the bot checks them. Those that wire the parts together
   * (tokens, the platform and Slack addresses, the store, the session key) are the demo's.
   */
  environment?: NodeJS.ProcessEnv;
  /** Where the bot's JSON log lines go; default stdout. */
  logDestination?: DestinationStream;
}

/** Two-person approval in the demo: what the README's examples start (up to 300 s) never needs it. */
export const demoApprovalRules = 'length>600';

/** The demo's settings where the product's defaults would hide or slow what the demo is for. */
export function demoDefaults(sim: Simulator): Record<string, string> {
  return {
    // Simulated stages last seconds; cards that lag them by the production default look stuck.
    POLL_SECONDS: '3',
    // A step's countdown long enough to press Veto, short enough not to wait on a walkthrough.
    COUNTDOWN_SECONDS: '15',
    // "Still watching?" soon enough to try it on one attack.
    PRESENCE_MINUTES: '2',
    APPROVAL_RULES: demoApprovalRules,
    // The secure page offered first, the Slack form beside it.
    LOGIN_MODE: 'both',
    // The demo's people (alice, bob, carol) may log in as any of the demo company's logins, whose
    // e-mails are not theirs in Slack: the e-mail match would refuse every one.
    LOGIN_EMAIL_MATCH: 'off',
    // The simulator plays Acme Demo's identity provider: "Log in with SSO" goes straight to it.
    SSO_COMPANY: sim.seed.company.name,
    // The simulator's tracker integration works with these, so filing a ticket works out of the box.
    TRACKER_PROJECT_ID: sim.seed.tracker.projectId,
    TRACKER_ISSUE_TYPE_ID: sim.seed.tracker.issueTypeId,
    // The demo company's monitoring integrations, so guards (`--guard a:1234567`) read its monitors and alerts.
    MONITORING_A_INTEGRATION: sim.seed.monitoring.a.integrationName,
    MONITORING_A_DOMAIN: sim.seed.monitoring.a.domain,
    MONITORING_B_URI: sim.seed.monitoring.b.uri,
    // Slackbot's tools, for the page's Ask Slackbot box.
    MCP_ENABLED: 'true',
  };
}

/** What the demo has turned on that a workspace only has when configured, for the banner. */
export interface DemoFeatures {
  approvalRules: string;
  loginMode: string;
  /** Minutes before "Still watching?"; 0: never asked. */
  presenceMinutes: number;
  /** Slackbot's tools (MCP_ENABLED), which the page's Ask Slackbot box calls. */
  slackbot: boolean;
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
  /** The bot's configuration, as built from the demo's defaults and the person's settings. */
  config: ReturnType<typeof loadConfig>;
  /** Stops the page, the bot (finishing work in flight), the fake Slack and the simulator. */
  stop(): Promise<void>;
}

const SESSION_KEY_FILE = 'demo-session.key';

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

export async function startDemo(options: DemoOptions): Promise<Demo> {
  const dataDir = resolve(options.dataDir);
  await mkdir(dataDir, { recursive: true });
  // First, before anything in the folder changes: a demo running on it keeps it all.
  const lock = await claimDataDir(dataDir);
  // Everything started so far, stopped in reverse if a later part fails to start.
  const stops: Array<() => Promise<void>> = [() => lock.release()];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  };
  try {
    const sessionKey = await demoSessionKey(dataDir);
    const saved = await loadSaved(dataDir, options.fresh ?? false);
    const environment = options.environment ?? {};
    const command = environment['SLASH_COMMAND']?.trim() || '/chaos';

    const sim = await startSimulator();
    stops.push(() => sim.stop());
    if (saved.platform !== undefined) restorePlatform(sim, saved.platform);

    const signingSecret = randomBytes(24).toString('hex');
    const botToken = `xoxb-demo-${randomBytes(12).toString('hex')}`;
    const fake = await startFakeSlack({
      signingSecret,
      botToken,
      teamDomain: 'faultline-demo',
      commandName: command,
      steps: manifestSteps(),
      ...(saved.history !== undefined ? { history: saved.history } : {}),
    });
    stops.push(() => fake.stop());

    // The simulator's certificate is its own; only the bot's platform client and the page's panel trust it.
    const agent = new Agent({ connect: { ca: sim.ca } });
    stops.push(() => agent.close());

    const hints = demoLogins(sim);
    // The page comes first: the bot's PUBLIC_URL is its address, where it passes the login page on.
    let logger: PlaygroundLogger | undefined;
    const playground = await startPlayground({
      fake,
      host: options.host ?? '127.0.0.1',
      port: options.port,
      command,
      hints,
      logger: {
        warn: (fields, message) => logger?.warn(fields, message),
        debug: (fields, message) => logger?.debug(fields, message),
      },
      simulator: { controlUrl: sim.controlUrl, dispatcher: agent },
      shortcuts: messageShortcuts(),
    });
    stops.push(() => playground.stop());

    const settings = { ...demoDefaults(sim), ...environment };
    const config = loadConfig({
      ...settings,
      // What joins the demo's parts together, whatever the environment says.
      SLACK_BOT_TOKEN: botToken,
      SLACK_APP_TOKEN: '',
      SLACK_SIGNING_SECRET: signingSecret,
      SLACK_API_URL: fake.apiUrl,
      PLATFORM_API_URL: sim.url,
      PUBLIC_URL: playground.url,
      // The page answers Slack's web-client address: the login page's Back to Slack comes back to it.
      SLACK_CLIENT_URL: `${playground.url}client/`,
      SESSION_KEY: sessionKey,
      SESSION_KEY_PREVIOUS: '',
      STORE_URL: `sqlite://${join(dataDir, STORE_FILE)}`,
    });
    const features: DemoFeatures = {
      approvalRules: settings['APPROVAL_RULES']?.trim() ?? '',
      loginMode: config.login.mode,
      presenceMinutes: config.presenceMinutes,
      slackbot: config.mcpEnabled,
    };
    const built = createBot(config, {
      logger: createLogger(config.logLevel, options.logDestination),
      dispatcher: agent,
      // The platform's time, as the end-to-end tests keep them: real time unless a test moves the simulator on.
      now: () => sim.clock.now(),
    });
    logger = built.services.logger.child({ component: 'playground' });
    const bot = await startBot(built, { port: 0, host: '127.0.0.1', jobs: backgroundJobs(built.services) });
    stops.push(() => bot.stop());
    fake.setBotUrl(`http://127.0.0.1:${bot.port}/slack/events`);
    playground.routeLoginPageTo(`http://127.0.0.1:${bot.port}`);
    if (config.mcpEnabled) playground.askSlackbotAt(`http://127.0.0.1:${bot.port}/mcp`);

    // Kept as the demo runs, so that even a demo killed outright comes back close to where it was,
    // and once more when it stops: after every part has stopped, before the lock goes.
    const save = demoKeeper(dataDir, fake, sim);
    const saving = setInterval(() => {
      save().catch((error: unknown) => logger?.warn({ err: error }, 'The demo could not keep its state'));
    }, 5_000);
    stops.splice(1, 0, async () => {
      clearInterval(saving);
      await save();
    });
    await lock.announce(playground.url);

    let stopping: Promise<void> | undefined;
    return {
      playgroundUrl: playground.url,
      simulatorUrl: sim.url,
      botUrl: `http://127.0.0.1:${bot.port}`,
      sim,
      fake,
      hints,
      features,
      config,
      stop: () => (stopping ??= stopAll()),
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
