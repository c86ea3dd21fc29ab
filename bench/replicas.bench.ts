// Replica figures: webhook deliveries per second, each received and processed end to end — the
// delivery recorded (deduplicated across replicas), leased, processed into a dispatch of its issue
// (run row and pg-boss job in one transaction), marked processed — with 1 and 2 bot replicas on one
// PostgreSQL; with 2, each delivery is sent to ONE of them in turn (a round-robin balancer: the
// scaling figure, against 1 replica), and again with every delivery sent to both, as a balancer
// retrying would (correctness: each delivery dispatched once). Baseline in the same run: 1 replica on
// SQLite with the in-process queue. Beside each rate, the bot's CPU per delivery (this process, where
// every replica runs): with 2 replicas in one process the rate only grows where the wait is PostgreSQL.
import { join } from 'node:path';
import { createDeliveryQueue, type DeliveryQueue } from '../src/intake/delivery-queue.ts';
import { createReceiver } from '../src/intake/receive.ts';
import { silentLogger } from '../src/observability/logger.ts';
import { createMetrics } from '../src/observability/metrics.ts';
import { createDispatcher } from '../src/queue/dispatcher.ts';
import { InProcessQueue } from '../src/queue/in-process-queue.ts';
import { PgBossQueue } from '../src/queue/pg-boss-queue.ts';
import type { JobQueue } from '../src/queue/types.ts';
import { openRunStore, openStore } from '../src/store/open-store.ts';
import { tempDir } from '../test/support/git.ts';
import { pgTestUrl, postgresAvailable, testSchemas } from '../test/support/pg.ts';
import { type Bench, type Figure, round } from './figures.ts';

const DELIVERIES = 1000;
/** Deliveries each replica handles before the clock starts: its pools' connections are opened. */
const WARM_UP = 8;
const runId = 'bench-run';
const entry = {
  name: 'noop',
  tool: 'custom',
  roles: ['blitz'],
  tiers: ['execution'],
  command: ['true'],
  resume: ['true'],
};

const job = (n: number) => ({
  kind: 'attempt' as const,
  runId,
  issue: { repo: { owner: 'bench', name: 'repo' }, number: n },
  title: `#${n}`,
  body: '',
  branchStyle: 'blitz' as const,
  runSlug: 'b',
  baseBranch: 'main',
  cloneUrl: 'file:///nowhere',
  entry: entry as never,
  tier: 'execution' as const,
});

const replica = async (db: string, queue: JobQueue, name: string) => {
  const store = await openStore(db);
  const runs = await openRunStore(db);
  const dispatcher = createDispatcher({ queue, store: runs, localHost: name });
  const deliveries = createDeliveryQueue({ logger: silentLogger() });
  const receive = createReceiver({
    store,
    queue: deliveries,
    metrics: createMetrics(),
    logger: silentLogger(),
    holder: name,
    process: async (work) => {
      const n = Number(work.deliveryId.split('-')[1]);
      await dispatcher.attempt(job(n), 1, (w) =>
        w.upsertRunIssue(runId, 'bench/repo', n, { state: 'dispatched', attempts: 1 }),
      );
    },
  });
  return {
    runs,
    deliveries: deliveries as DeliveryQueue,
    receive: (n: number) =>
      receive({
        forge: 'gitea',
        deliveryId: `d-${n}`,
        event: 'issues',
        payload: {},
        normalize: () => ({ outcome: 'accepted', events: [] }),
      }),
    close: async () => {
      await deliveries.drain();
      await Promise.all([store.close(), runs.close()]);
    },
  };
};

/**
 * Deliveries per second with `queues.length` replicas: each delivery sent to one replica in turn
 * (`round-robin`) or to every replica (`doubled`).
 */
const measure = async (
  db: string,
  queues: JobQueue[],
  spread: 'round-robin' | 'doubled' = 'round-robin',
): Promise<{ rate: number; cpuMs: number }> => {
  const rs = await Promise.all(queues.map((q, i) => replica(db, q, `bench-${i}`)));
  try {
    await rs[0]!.runs.createRun({
      id: runId,
      forge: 'gitea',
      repo: 'bench/repo',
      kind: 'blitz',
      milestoneNumber: 1,
      milestoneTitle: 'B',
      slug: 'b',
      options: {},
      state: 'running',
      integrationBranch: 'main',
    });
    // Not timed: each replica's first deliveries open its connections (store, run store, pg-boss),
    // which would otherwise dominate a short run; the figure is the steady rate.
    for (const [i, r] of rs.entries())
      await Promise.all(
        Array.from({ length: WARM_UP }, (_, j) => r.receive(DELIVERIES + 1 + i * WARM_UP + j)),
      );
    await Promise.all(rs.map((r) => r.deliveries.idle()));
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    // Eight senders at a time, as a forge delivering concurrently.
    let next = 1;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next <= DELIVERIES) {
          const n = next++;
          if (spread === 'doubled') await Promise.all(rs.map((r) => r.receive(n)));
          else await rs[n % rs.length]!.receive(n);
        }
      }),
    );
    await Promise.all(rs.map((r) => r.deliveries.idle()));
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(c0);
    const rows = await rs[0]!.runs.listRunIssues(runId);
    const expected = DELIVERIES + rs.length * WARM_UP;
    if (rows.length !== expected) throw new Error(`expected ${expected} dispatched rows, got ${rows.length}`);
    return { rate: DELIVERIES / seconds, cpuMs: (cpu.user + cpu.system) / 1000 / DELIVERIES };
  } finally {
    for (const r of rs) await r.close();
  }
};

const bench: Bench = async () => {
  const { rate: sqlite, cpuMs: sqliteCpu } = await measure(
    `sqlite:${join(tempDir('blitz-bench-rep-'), 'blitz.db')}`,
    [new InProcessQueue()],
  );
  const cpuUnit = 'ms CPU of the bot process(es) per delivery (PostgreSQL itself not counted)';
  const figures: Figure[] = [
    { name: 'replicas.baseline.sqlite_1.deliveries_per_s', value: round(sqlite, 1), unit: 'deliveries/s' },
    { name: 'replicas.baseline.sqlite_1.cpu_per_delivery_ms', value: round(sqliteCpu, 3), unit: cpuUnit },
  ];
  if (!(await postgresAvailable())) return figures;
  const schemas = testSchemas();
  try {
    let one = 0;
    for (const [n, spread] of [
      [1, 'round-robin'],
      [2, 'round-robin'],
      [2, 'doubled'],
    ] as const) {
      const schema = await schemas.create();
      const queues: PgBossQueue[] = [];
      for (let i = 0; i < n; i++)
        queues.push(
          await PgBossQueue.open({
            connectionString: pgTestUrl(),
            schema: `${schema}_boss`,
            logger: silentLogger(),
          }),
        );
      try {
        const { rate, cpuMs } = await measure(schemas.urlFor(schema), queues, spread);
        const name =
          n === 1 ? 'postgres_1' : `postgres_2_${spread === 'doubled' ? 'doubled' : 'round_robin'}`;
        if (n === 1) one = rate;
        figures.push(
          { name: `replicas.${name}.deliveries_per_s`, value: round(rate, 1), unit: 'deliveries/s' },
          { name: `replicas.${name}.cpu_per_delivery_ms`, value: round(cpuMs, 3), unit: cpuUnit },
          {
            name: `replicas.${name}_over_sqlite_1.ratio`,
            value: round(rate / sqlite, 2),
            unit: 'x (goal >= 0.5 for postgres_1)',
          },
        );
        if (n === 2)
          figures.push({
            name: `replicas.${name}_over_postgres_1.ratio`,
            value: round(rate / one, 2),
            unit: spread === 'doubled' ? 'x (correctness: each delivery dispatched once)' : 'x (goal >= 1.6)',
          });
      } finally {
        await queues[0]!.dropSchema(`${schema}_boss`);
        for (const q of queues) await q.close();
      }
    }
  } finally {
    await schemas.dropAll();
  }
  return figures;
};

export default bench;
