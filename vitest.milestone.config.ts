// The milestone tier (`npm run test:milestone`): a 20-issue milestone on each fake forge with the real
// agent CLIs (installed by scripts/install-agents.ts) against loopback mock models. Kept out of `npm
// test`'s config; one file, the forges one after another.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/milestone/**/*.test.ts'],
    globalSetup: ['test/support/contract/prepare.ts'],
    testTimeout: 600_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
