import { startBot } from './app.ts';
import { createBot } from './bootstrap.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { backgroundJobs } from './jobs/backgroundJobs.ts';

let config: Config;
try {
  config = loadConfig(process.env);
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(error.message);
  process.exit(2);
}

const built = createBot(config);
// What runs on its own (card refresh, guards, freezes, approvals, session warnings, unsent cards): one table.
const bot = await startBot(built, { jobs: backgroundJobs(built.services) }).catch((error: unknown) => {
  // A port taken or a store unreachable: say so and stop, for the supervisor to start again.
  built.services.logger.error({ err: error }, 'could not start');
  process.exit(1);
});
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    bot.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        built.services.logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}
