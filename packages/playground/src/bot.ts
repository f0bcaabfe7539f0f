/**
 * The bot the demo runs: the one module of this package that reaches into the bot's source, and
 * only through its entry points (docs/decisions/0004-workspace-packages.md).
 */
export { startBot } from '../../../src/app.ts';
export { createDeps } from '../../../src/bootstrap.ts';
export { ConfigError, loadConfig } from '../../../src/config.ts';
export { createLogger } from '../../../src/logger.ts';
export { backgroundJobs } from '../../../src/jobs/backgroundJobs.ts';
