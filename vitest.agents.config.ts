// The compatibility tier (`npm run test:agents`): the real agent CLIs, installed by
// scripts/install-agents.ts, against a loopback mock model. Kept out of `npm test`'s config.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/agents/**/*.test.ts'],
    testTimeout: 400_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
