import type { Dispatcher } from 'undici';
import { createPlatformClient } from './client/index.ts';
import type { Config } from './config.ts';
import type { Deps } from './deps.ts';
import { createLogger, type Logger } from './logger.ts';
import { SessionCipher } from './store/cipher.ts';
import { createKeyValueStore } from './store/keyValue.ts';
import { SessionStore } from './store/sessions.ts';

/**
 * Builds every dependency from the configuration, once. The process entry points and the
 * end-to-end tests share this, so tests exercise the same wiring that production runs.
 */
export function createDeps(config: Config, overrides: { logger?: Logger; dispatcher?: Dispatcher; storeNamespace?: string; now?: () => number } = {}): Deps {
  const logger = overrides.logger ?? createLogger(config.logLevel);
  const store = createKeyValueStore(config.storeUrl, overrides.storeNamespace);
  const now = overrides.now ?? Date.now;
  return {
    config,
    logger,
    store,
    platform: createPlatformClient({
      baseUrl: config.platform.apiUrl,
      logger: logger.child({ component: 'platform' }),
      ...(overrides.dispatcher ? { dispatcher: overrides.dispatcher } : {}),
    }),
    sessions: new SessionStore(store, new SessionCipher(config.sessionKeys.current, config.sessionKeys.previous), now),
    clock: { now },
  };
}
