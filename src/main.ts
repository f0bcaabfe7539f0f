import { startBot } from './app.ts';
import { createDeps } from './bootstrap.ts';
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

const deps = createDeps(config);
// What runs on its own (card refresh, guards, freezes, approvals, session warnings, unsent cards): one table.
const bot = await startBot(deps, { jobs: backgroundJobs(deps) });
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    bot.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        deps.logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}
