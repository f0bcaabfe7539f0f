/**
 * `npm run demo` (`./run.sh` without Slack credentials): Faultline without a Slack workspace.
 * Starts the platform simulator, the fake Slack, the bot and the playground page
 * (PLAYGROUND_PORT, default 3100). What the demo did is kept in ./data across restarts; `--fresh`
 * starts from the seed instead. The console shows the banner and nothing else: the bot's JSON
 * log lines go to ./data/demo.log at info level, or, when LOG_LEVEL is set, to the console at that
 * level. The bot's other settings are the configuration table's variables over the demo's
 * defaults (demo.ts).
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from './bot.ts';
import { startDemo, type Demo } from './demo.ts';
import { demoBanner } from './demo-banner.ts';
import { DemoRunningError } from './demo-state.ts';

const DATA_DIR = 'data';
const LOG_FILE = join(DATA_DIR, 'demo.log');

function playgroundPort(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return 3100;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error('PLAYGROUND_PORT must be a port number');
    process.exit(2);
  }
  return port;
}

const args = process.argv.slice(2);
const unknown = args.filter((arg) => arg !== '--fresh');
if (unknown.length > 0) {
  console.error(
    `The demo takes no ${unknown[0]}; ./run.sh --fresh starts it from the seed, ./run.sh alone where it stopped.`,
  );
  process.exit(2);
}

const askedLevel = process.env.LOG_LEVEL?.trim() || undefined;
let logFile: WriteStream | undefined;
if (askedLevel === undefined) {
  await mkdir(DATA_DIR, { recursive: true });
  logFile = createWriteStream(LOG_FILE, { flags: 'a', mode: 0o600 });
}

let demo: Demo;
try {
  demo = await startDemo({
    dataDir: DATA_DIR,
    fresh: args.includes('--fresh'),
    port: playgroundPort(process.env.PLAYGROUND_PORT),
    environment: process.env,
    ...(logFile !== undefined ? { logDestination: logFile } : {}),
  });
} catch (error) {
  if (error instanceof DemoRunningError) {
    console.error(error.message);
    process.exit(1);
  }
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(2);
  }
  if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
    console.error('The playground port is taken: set PLAYGROUND_PORT to another one (0 picks a free port).');
    process.exit(1);
  }
  throw error;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    demo.stop().then(
      () => (logFile === undefined ? process.exit(0) : logFile.end(() => process.exit(0))),
      (error: unknown) => {
        console.error('The demo did not stop cleanly:', error instanceof Error ? error.message : error);
        process.exit(1);
      },
    );
  });
}
// Only now, with Ctrl-C handled: someone may press it as soon as the banner shows.
console.log(demoBanner(demo, logFile !== undefined ? { logFile: LOG_FILE } : {}));
