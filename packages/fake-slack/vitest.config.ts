import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'fake-slack',
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
