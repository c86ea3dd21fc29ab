import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Tests that start blitz-bot as a process run dist/main.js; this builds dist/ when it is stale.
    globalSetup: ['test/support/build-dist.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
