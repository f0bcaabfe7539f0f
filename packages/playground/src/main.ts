/**
 * `npm run demo`: Faultline without a Slack workspace. Starts the platform simulator, the fake
 * Slack, the bot and the playground page (PLAYGROUND_PORT, default 3100; LOG_LEVEL, default
 * info). Stored sessions and the key that encrypts them live in ./data.
 */
import { ConfigError } from './bot.ts';
import { demoBanner, startDemo, type Demo } from './demo.ts';

function playgroundPort(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return 3100;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error('PLAYGROUND_PORT must be a port number');
    process.exit(2);
  }
  return port;
}

let demo: Demo;
try {
  demo = await startDemo({
    dataDir: 'data',
    port: playgroundPort(process.env.PLAYGROUND_PORT),
    logLevel: process.env.LOG_LEVEL?.trim() || 'info',
  });
} catch (error) {
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
console.log(demoBanner(demo));

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    demo.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('The demo did not stop cleanly:', error instanceof Error ? error.message : error);
        process.exit(1);
      },
    );
  });
}
