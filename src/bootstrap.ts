import { WebClient } from '@slack/web-api';
import type { Dispatcher } from 'undici';
import { CardStore } from './attacks/cards.ts';
import { CatalogueCache } from './attacks/catalogue.ts';
import { Poller } from './attacks/poller.ts';
import { warnExpiringSessions } from './login/expiryWarnings.ts';
import { GameDays } from './gamedays/gameDays.ts';
import { createPlatformClient } from './client/index.ts';
import type { Config } from './config.ts';
import type { Deps } from './deps.ts';
import { boltLogger, createLogger, type Logger } from './logger.ts';
import { Messenger, type MessengerOptions } from './slack/messenger.ts';
import { SessionCipher } from './store/cipher.ts';
import { createKeyValueStore } from './store/keyValue.ts';
import { SessionStore } from './store/sessions.ts';

/** Options of the Slack Web API clients: the configured base URL and a short retry budget. */
export function slackClientOptions(config: Config) {
  return {
    slackApiUrl: config.slack.apiUrl,
    // The default retries a failing call for up to half an hour; a chat reply that late is useless.
    retryConfig: { retries: 3, factor: 2, minTimeout: 250, maxTimeout: 2_000 },
  };
}

export interface DepsOverrides {
  logger?: Logger;
  dispatcher?: Dispatcher;
  storeNamespace?: string;
  now?: () => number;
  messenger?: MessengerOptions;
}

/**
 * Builds every dependency from the configuration, once. The process entry points and the
 * end-to-end tests share this, so tests exercise the same wiring that production runs.
 */
export function createDeps(config: Config, overrides: DepsOverrides = {}): Deps {
  const logger = overrides.logger ?? createLogger(config.logLevel);
  const store = createKeyValueStore(config.storeUrl, overrides.storeNamespace);
  const now = overrides.now ?? Date.now;
  const web = new WebClient(config.slack.botToken, { ...slackClientOptions(config), logger: boltLogger(logger) });
  const slack = new Messenger(web, logger, overrides.messenger);
  const platform = createPlatformClient({
    baseUrl: config.platform.apiUrl,
    logger: logger.child({ component: 'platform' }),
    ...(overrides.dispatcher ? { dispatcher: overrides.dispatcher } : {}),
  });
  const sessions = new SessionStore(store, new SessionCipher(config.sessionKeys.current, config.sessionKeys.previous), now);
  const cards = new CardStore(store);
  const deps: Deps = {
    config,
    logger,
    store,
    platform,
    sessions,
    clock: { now },
    slack,
    cards,
    poller: new Poller({ cards, messenger: slack, store, sessions, platform, logger, intervalMs: config.pollSeconds * 1000, appUrl: config.platform.appUrl, beforePass: () => warnExpiringSessions(deps), onFinished: (card) => deps.gameDays.attackFinished(card) }),
    catalogues: new CatalogueCache(logger, now),
    gameDays: new GameDays({ store, messenger: slack, logger, now, cards }),
  };
  return deps;
}
