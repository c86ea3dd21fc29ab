// The store test suite both engines run (test/integration/store-sqlite.test.ts and
// store-postgres.test.ts): the same cases and assertions for Store, RunStore, the attempt ledger and
// the runner registry, plus what several replicas on one database need. A "replica" is a second store
// opened on the same database: a second connection on SQLite, a second pool on Postgres.
import { afterEach } from 'vitest';
import type { AttemptLedger } from '../../src/runner/types.ts';
import type { RunStore } from '../../src/store/run-store.ts';
import type { RunnerRegistry } from '../../src/store/runner-tokens.ts';
import type { Store } from '../../src/store/types.ts';
import { describeGuardedWriteCases } from './store-suite-guarded.ts';
import { describeIntakeCases } from './store-suite-intake.ts';
import { describeRunnerCases } from './store-suite-ledger.ts';
import { describeRunCases } from './store-suite-runs.ts';

export type RunStoreWithLedger = RunStore & { ledger: AttemptLedger };

/** One empty database for one test; every open is a new connection to it. */
export interface StoreDatabase {
  openStore(): Promise<Store>;
  openRunStore(): Promise<RunStoreWithLedger>;
  openRunnerRegistry(): Promise<RunnerRegistry>;
}

export interface StoreEngine {
  name: string;
  freshDatabase(): Promise<StoreDatabase>;
}

/** A test's database; what it opens is closed after the test. */
export interface FreshDatabase {
  store(): Promise<Store>;
  runs(): Promise<RunStoreWithLedger>;
  registry(): Promise<RunnerRegistry>;
}

export const describeStoreSuite = (engine: StoreEngine): void => {
  const opened: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
  });
  const track = async <T extends { close(): Promise<void> }>(open: Promise<T>): Promise<T> => {
    const s = await open;
    opened.push(s);
    return s;
  };
  const fresh = async (): Promise<FreshDatabase> => {
    const db = await engine.freshDatabase();
    return {
      store: () => track(db.openStore()),
      runs: () => track(db.openRunStore()),
      registry: () => track(db.openRunnerRegistry()),
    };
  };
  describeIntakeCases(engine.name, fresh);
  describeRunCases(engine.name, fresh);
  describeGuardedWriteCases(engine.name, fresh);
  describeRunnerCases(engine.name, fresh);
};
