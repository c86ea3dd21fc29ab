// The two store engines side by side, in the same run: delivery records per second (each a
// transaction with the dedupe insert) and a run-store read/write mix (read the run, patch an issue,
// list the issues, update the run's progress), both with 8 callers at once, first on SQLite (a file,
// WAL), then on PostgreSQL (a fresh schema on PG_TEST_URL). The ratio postgres/sqlite is printed;
// without a reachable PostgreSQL only the SQLite figures are printed.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { openRunStore, openStore } from '../src/store/open-store.ts';
import { removeDir, tempDir } from '../test/support/git.ts';
import { postgresAvailable, testSchemas } from '../test/support/pg.ts';
import { newRun } from '../test/support/store-suite-fixtures.ts';
import type { Bench, Figure } from './figures.ts';
import { round } from './figures.ts';

const DELIVERIES = 3000;
const MIX_ROUNDS = 1500;
const CALLERS = 8;

/** Runs `total` operations with `callers` at once; returns operations per second. */
const perSecond = async (total: number, op: (i: number) => Promise<unknown>): Promise<number> => {
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CALLERS }, async () => {
      while (next < total) await op(next++);
    }),
  );
  return total / (Number(process.hrtime.bigint() - started) / 1e9);
};

const measure = async (url: string): Promise<{ deliveries: number; mix: number }> => {
  const store = await openStore(url);
  const runs = await openRunStore(url);
  try {
    const deliveries = await perSecond(DELIVERIES, (i) =>
      store.recordDelivery({
        forge: 'github',
        deliveryId: i % 10 === 9 ? `repeat-${i - 1}` : randomUUID(),
        event: 'issue_comment',
        action: 'created',
        outcome: 'accepted',
        events: [{ kind: 'comment', issueNumber: i }],
      }),
    );
    await runs.createRun(newRun('bench-run'));
    const mix = await perSecond(MIX_ROUNDS, async (i) => {
      await runs.getRun('bench-run');
      await runs.upsertRunIssue('bench-run', 'acme/app', i % 50, { state: 'working', attempts: i });
      await runs.listRunIssues('bench-run');
      if (i % 4 === 0) await runs.updateRun('bench-run', { progress: { wave: i } });
    });
    return { deliveries, mix };
  } finally {
    await Promise.all([store.close(), runs.close()]);
  }
};

const bench: Bench = async () => {
  const dir = tempDir('blitz-store-bench-');
  const figures: Figure[] = [];
  try {
    const sqlite = await measure(`sqlite:${join(dir, 'blitz.db')}`);
    figures.push(
      { name: 'store.sqlite.deliveries_per_s', value: round(sqlite.deliveries, 0), unit: 'records/s' },
      { name: 'store.sqlite.run_mix_per_s', value: round(sqlite.mix, 0), unit: 'rounds/s' },
    );
    if (!(await postgresAvailable())) return figures;
    const schemas = testSchemas();
    try {
      const postgres = await measure(schemas.urlFor(await schemas.create()));
      figures.push(
        { name: 'store.postgres.deliveries_per_s', value: round(postgres.deliveries, 0), unit: 'records/s' },
        { name: 'store.postgres.run_mix_per_s', value: round(postgres.mix, 0), unit: 'rounds/s' },
        {
          name: 'store.deliveries_postgres_over_sqlite',
          value: round(postgres.deliveries / sqlite.deliveries, 3),
          unit: 'ratio',
        },
        {
          name: 'store.run_mix_postgres_over_sqlite',
          value: round(postgres.mix / sqlite.mix, 3),
          unit: 'ratio',
        },
      );
    } finally {
      await schemas.dropAll();
    }
    return figures;
  } finally {
    removeDir(dir);
  }
};

export default bench;
