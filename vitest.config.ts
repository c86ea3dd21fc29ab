import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The real agent CLIs run in their own tier: vitest.agents.config.ts, `npm run test:agents`.
    exclude: [...configDefaults.exclude, 'test/agents/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
