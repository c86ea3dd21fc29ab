// Chooses the queue engine from DATABASE_URL, beside the store: SQLite → the in-process queue,
// PostgreSQL → pg-boss in its own schema of the same database (`<schema>_jobs`, or `pgboss`).
// pg-boss is imported only then.
import type { Logger } from '../observability/logger.ts';
import { parseDatabaseUrl } from '../store/open-store.ts';
import { InProcessQueue } from './in-process-queue.ts';
import type { JobQueue } from './types.ts';

export const queueSchemaFor = (storeSchema: string | undefined): string =>
  storeSchema ? `${storeSchema}_jobs` : 'pgboss';

export const openJobQueue = async (databaseUrl: string, opts: { logger: Logger }): Promise<JobQueue> => {
  const location = parseDatabaseUrl(databaseUrl);
  if (location.engine === 'sqlite') return new InProcessQueue();
  const { PgBossQueue } = await import('./pg-boss-queue.ts');
  return PgBossQueue.open({
    connectionString: location.url,
    schema: queueSchemaFor(location.schema),
    logger: opts.logger,
  });
};
