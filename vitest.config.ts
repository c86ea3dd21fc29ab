import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';
import { SlowFirstSequencer } from './test/support/slow-first-sequencer.ts';

export default defineConfig({
  test: {
    // Tests that start blitz-bot as a process run dist/main.js; this builds dist/ when it is stale.
    // The fake GitHub checks every exchange against GitHub's OpenAPI document, read by each test
    // process from a compact copy that the second setup writes once (test/support/contract/).
    globalSetup: ['test/support/build-dist.ts', 'test/support/contract/prepare.ts'],
    // The real agent CLIs run in their own tiers: vitest.agents.config.ts (`npm run test:agents`) and
    // vitest.milestone.config.ts (`npm run test:milestone`).
    exclude: [...configDefaults.exclude, 'test/agents/**', 'test/milestone/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // One file more than there are cores: most integration files spend their time waiting on the
    // processes, git and sockets they drive, not on this CPU (vitest's default is cores − 1).
    maxWorkers: availableParallelism() + 1,
    // Without an earlier run's durations (a clean clone), the files marked slow start first.
    sequence: { sequencer: SlowFirstSequencer },
    // `npm run test:unit` (the pure core beside its sources) and `npm run test:integration` (test/:
    // real git, processes, HTTP, SQLite and PostgreSQL) run one half each.
    projects: [
      // The pure core's tests share one module graph per worker (isolate: false): importing it
      // afresh for each of ~85 small files was most of their time; none relies on a fresh one.
      { extends: true, test: { name: 'unit', include: ['src/**/*.test.ts'], isolate: false } },
      // Each integration test waits on events, so its timeout only stops a hang: on a loaded machine
      // (load 12–15 on 2 cores) the longest milestone runs took over 30 s, and passed given longer.
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
