import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Suites start HTTPS servers on ephemeral ports; two workers match the machine's two cores.
    maxWorkers: 2,
    // One run covers the bot (test/) and every package under packages/, each with its own config.
    projects: [
      {
        extends: true,
        test: {
          name: 'bot',
          include: ['test/**/*.test.ts'],
          environment: 'node',
          testTimeout: 20_000,
          hookTimeout: 30_000,
        },
      },
      'packages/*',
    ],
  },
});
