import { WebClient } from '@slack/web-api';
import type { Dispatcher } from 'undici';
import { CardStore } from './attacks/cards.ts';
import { AttackRecorder } from './attacks/recorder.ts';
import { CatalogueCache } from './attacks/catalogue.ts';
import { Poller } from './attacks/poller.ts';
import { SavedAttacks } from './attacks/saved.ts';
import { Watches } from './attacks/watches.ts';
import { GameDays } from './gamedays/gamedays.ts';
import { Freezes } from './guardrails/freezes.ts';
import { GuardStore } from './guardrails/guards.ts';
import { createPlatformClient } from './client/index.ts';
import type { Config } from './config.ts';
import type { Services } from './services.ts';
import type { Metrics } from './metrics.ts';
import type { Recorder } from './attacks/events.ts';
import type { KeyValueStore } from './store/keyValue.ts';
import type { PlatformClient } from './client/index.ts';
import { boltLogger, createLogger, type Logger } from './logger.ts';
import { createMetrics } from './metrics.ts';
import { Messenger, type MessengerOptions } from './slack/messenger.ts';
import { SlackAttackProjection } from './slack/record.ts';
import { People, SlackPeopleDirectory } from './slack/people.ts';
import { SlackGameDayBoard } from './slack/gamedayBoard.ts';
import { SlackFiles, SlackGameDayReports } from './slack/gamedayReports.ts';
import {
  slackApprovalBoard,
  slackFreezeNotices,
  slackLinkNotices,
  slackPresenceBoard,
  slackSessionWarnings,
  slackStartNotices,
  slackWatchBoard,
} from './slack/notices.ts';
import { SlackStepEnds } from './slack/workflowSteps.ts';
import { WorkflowService } from './workflow/service.ts';
import { listeners } from './listeners.ts';
import { SessionCipher } from './store/cipher.ts';
import { createKeyValueStore } from './store/keyValue.ts';
import { SessionStore } from './store/sessions.ts';
import { TicketService } from './tickets/service.ts';
import { GuardrailService } from './guardrails/service.ts';
import { GameDayService } from './gamedays/service.ts';
import { AttackService } from './attacks/service.ts';
import { approvedStepStarts, stepApprovalClosed } from './gamedays/planStepState.ts';
import { LoginService } from './login/service.ts';

/** How long one Slack Web API request may take before it is abandoned (and retried). */
export const slackRequestTimeoutMs = 5_000;

/**
 * Options of the Slack Web API clients: the configured base URL, a time limit per request and a
 * short retry budget, so a call Slack never answers ends (a few attempts, about 25 s at most)
 * rather than holding a person's reply, or a shutdown, forever.
 */
export function slackClientOptions(config: Config, timeoutMs = slackRequestTimeoutMs) {
  return {
    slackApiUrl: config.slack.apiUrl,
    timeout: timeoutMs,
    // The default retries a failing call for up to half an hour; a chat reply that late is useless.
    retryConfig: { retries: 3, factor: 2, minTimeout: 250, maxTimeout: 2_000 },
  };
}

/**
 * The client that asks Slack for people's names: a name is never worth holding up a ticket or a
 * halt, so it does not retry or wait out a rate limit; the user id stands in instead.
 */
function namesClient(config: Config, logger: Logger): WebClient {
  return new WebClient(config.slack.botToken, {
    slackApiUrl: config.slack.apiUrl,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: 2_000,
    logger: boltLogger(logger),
  });
}

/**
 * What the process runs on: the services every way in receives, and the few parts below them
 * that the app (probes, shutdown), the jobs' leases and the tests read.
 */
export interface Bot {
  services: Services;
  config: Config;
  metrics: Metrics;
  store: KeyValueStore;
  platform: PlatformClient;
  /** People's stored sessions (tests log people in and out directly). */
  sessions: SessionStore;
  /** Where what happened to an attack is said (a test watches the card refresher's redraws). */
  events: Recorder;
}

export interface BotOverrides {
  logger?: Logger;
  dispatcher?: Dispatcher;
  storeNamespace?: string;
  now?: () => number;
  messenger?: MessengerOptions;
  /** Time limit of one Slack Web API request (tests make a hung call end quickly). */
  slackTimeoutMs?: number;
}

/**
 * Builds every service from the configuration, once, each with the parts it uses. The process
 * entry points and the end-to-end tests share this, so tests exercise the same wiring that
 * production runs.
 */
export function createBot(config: Config, overrides: BotOverrides = {}): Bot {
  const logger = overrides.logger ?? createLogger(config.logLevel);
  const store = createKeyValueStore(config.storeUrl, overrides.storeNamespace);
  const now = overrides.now ?? Date.now;
  const webOptions = { ...slackClientOptions(config, overrides.slackTimeoutMs), logger: boltLogger(logger) };
  const calls = new WebClient(config.slack.botToken, webOptions);
  const slack = new Messenger(
    { calls, cardUpdates: new WebClient(config.slack.botToken, { ...webOptions, rejectRateLimitedCalls: true }) },
    logger,
    { slackApiUrl: config.slack.apiUrl, ...overrides.messenger },
  );
  const platform = createPlatformClient({
    baseUrl: config.platform.apiUrl,
    logger: logger.child({ component: 'platform' }),
    ...(overrides.dispatcher ? { dispatcher: overrides.dispatcher } : {}),
  });
  const sessions = new SessionStore(
    store,
    new SessionCipher(config.sessionKeys.current, config.sessionKeys.previous),
    now,
  );
  const cards = new CardStore(store);
  const watches = new Watches(store);
  const guards = new GuardStore(store);
  const gameDays = new GameDays({ store, board: new SlackGameDayBoard(slack, now), logger, now, cards, guards });
  const metrics = createMetrics();
  const workflow = new WorkflowService({
    store,
    logger,
    ends: new SlackStepEnds(calls, logger, config.slack.command),
    // A run a stopped bot left, done again as its delivery would have done it.
    runAgain: async ({ callbackId, actor, inputs, executionId }) => {
      const handler = listeners.steps[callbackId];
      if (!handler) throw new Error(`no workflow step ${callbackId}`);
      return handler({ actor, inputs, executionId }, services);
    },
  });
  const events = new AttackRecorder({
    cards,
    gameDays,
    workflowSteps: workflow,
    store,
    logger,
    metrics,
    now,
    projection: new SlackAttackProjection({
      messenger: slack,
      logger,
      appUrl: config.platform.appUrl,
      command: config.slack.command,
    }),
  });
  // A login waits on the profile's e-mail: like a name, it is asked once, without waiting out a limit.
  const peopleClient = namesClient(config, logger);
  const people = new People(peopleClient, logger, { now });
  const tickets = new TicketService({
    store,
    sessions,
    platform,
    cards,
    gameDays,
    recorder: events,
    logger,
    links: slack,
    directory: people,
    tracker: config.tracker,
  });
  const clock = { now };
  const login = new LoginService({
    store,
    sessions,
    platform,
    logger,
    clock,
    directory: new SlackPeopleDirectory(peopleClient, logger),
    linkNotices: slackLinkNotices(slack),
    sessionWarnings: slackSessionWarnings(slack),
    cards,
    config,
  });
  const freezes = new Freezes(store);
  const approvals = slackApprovalBoard(slack, config.slack.command);
  const freezeNotices = slackFreezeNotices(slack, config.slack.command);
  const poller = new Poller({
    cards,
    board: slackWatchBoard(slack, config.platform.appUrl, config.slack.command),
    store,
    sessions,
    platform,
    logger,
    intervalMs: config.pollSeconds * 1000,
    watches,
    now,
    events,
  });
  const presence = slackPresenceBoard(slack);
  const startNotices = slackStartNotices(slack, config.slack.command);
  const savedAttacks = new SavedAttacks(store, now);
  const catalogues = new CatalogueCache(logger, now);
  const attacks = new AttackService({
    platform,
    sessions,
    cards,
    store,
    events,
    logger,
    clock,
    presence,
    directory: people,
    gameDays,
    freezes,
    guards,
    approvals,
    catalogues,
    saved: savedAttacks,
    watches,
    startNotices,
    workflow,
    poller,
    channels: slack,
    config,
  });
  const planSteps = { gameDays, events, clock };
  const guardrails = new GuardrailService({
    store,
    guards,
    freezes,
    sessions,
    platform,
    cards,
    watches,
    gameDays,
    events,
    logger,
    clock,
    config,
    approvals,
    freezeNotices,
    workflow,
    startApproved: (ask, way) => attacks.start(ask, way),
    planApprovals: {
      approved: (ref) => approvedStepStarts(planSteps, ref),
      closed: (ref, closing) => stepApprovalClosed(planSteps, ref, closing),
    },
  });
  const reports = new SlackGameDayReports(
    { files: new SlackFiles(calls), people, messenger: slack },
    { command: config.slack.command },
  );
  const gamedays = new GameDayService({
    gameDays,
    store,
    cards,
    sessions,
    platform,
    events,
    logger,
    clock,
    config,
    reports,
    guards,
    watches,
    savedAttacks,
    guardrails,
    startStep: (ask, way) => attacks.start(ask, way),
    rehearseStep: (ask) => attacks.rehearse(ask),
  });
  const services: Services = {
    attacks,
    gamedays,
    guardrails,
    login,
    tickets,
    workflow,
    slack,
    command: config.slack.command,
    appUrl: config.platform.appUrl,
    logger,
    homes: { followHalts: async () => listeners.followHomeHalts?.(services) },
  };
  return { services, config, metrics, store, platform, sessions, events };
}
