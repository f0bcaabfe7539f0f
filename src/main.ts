import { createPlatformClient } from './client/index.ts';
import { ConfigError, loadConfig } from './config.ts';
import { createLogger } from './logger.ts';
import { SessionCipher } from './store/cipher.ts';
import { createKeyValueStore } from './store/keyValue.ts';
import { SessionStore } from './store/sessions.ts';
import { startBot } from './app.ts';

let config;
try {
  config = loadConfig(process.env);
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(error.message);
  process.exit(2);
}

const logger = createLogger(config.logLevel);
const store = createKeyValueStore(config.storeUrl);
const deps = {
  config,
  logger,
  store,
  platform: createPlatformClient({ baseUrl: config.platform.apiUrl, logger: logger.child({ component: 'platform' }) }),
  sessions: new SessionStore(store, new SessionCipher(config.sessionKeys.current, config.sessionKeys.previous)),
  clock: { now: () => Date.now() },
};

const bot = await startBot(deps);
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    bot.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}
