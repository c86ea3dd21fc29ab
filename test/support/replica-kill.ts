// A replica killed (-9) under load, for the kill test and the replicas bench: two replica processes
// (test/support/replica-process.ts: the real webhook route, delivery record and lease, dispatch of a
// run row and a pg-boss job together) on one PostgreSQL schema take signed deliveries round robin, a
// balancer's way; halfway, one is killed with SIGKILL. What was sent to it and got no answer is sent
// to the survivor (a balancer's retry), and the survivor's delivery retry pass runs once the dead
// replica's leases have run out (as its timer would: here at a time past them, not after a wait).
// Then the store and the queue say what became of each delivery: processed, and dispatched once.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { silentLogger } from '../../src/observability/logger.ts';
import { PgBossQueue } from '../../src/queue/pg-boss-queue.ts';
import { openRunStore, openStore } from '../../src/store/open-store.ts';
import { removeDir, tempDir } from './git.ts';
import { pgTestUrl, type TestSchemas } from './pg.ts';
import { githubExample, signedGithubRequest } from './signing.ts';

const SECRET = 'replica-kill-secret';
const trace = (what: string) => {
  if (process.env.BLITZ_DEBUG) console.error(`[replica kill] ${what}`);
};
const RUN_ID = 'kill-run';

export interface KillOutcome {
  /** The signal the killed replica ended by. */
  killedBy: NodeJS.Signals | null;
  deliveries: number;
  /** Deliveries sent to the killed replica that got no answer, and were sent to the survivor. */
  resent: number;
  /** Deliveries the survivor's retry pass took over from the dead replica. */
  resumed: number;
  /** Deliveries the store does not hold as processed. */
  unprocessed: number;
  /** Issues with no dispatch (run row and job). */
  lost: number;
  /** Issues dispatched more than once (jobs beyond the first). */
  doubled: number;
  /** Deliveries whose processing ran twice (the dead replica's work redone; its dispatch a no-op twin). */
  processedTwice: number;
}

interface Replica {
  child: ChildProcess;
  url: string;
}

const startReplica = async (name: string, args: string[], log: string): Promise<Replica> => {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, 'replica-process.ts'), args[0]!, name, ...args.slice(1)],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, BENCH_WEBHOOK_SECRET: SECRET, BENCH_PROCESSED_LOG: log },
    },
  );
  const first = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`replica ${name} exited (${code}) before listening`)));
    createInterface({ input: child.stdout! }).once('line', resolve);
  });
  child.removeAllListeners('exit');
  return { child, url: `http://127.0.0.1:${(JSON.parse(first) as { port: number }).port}` };
};

const requestFor = (n: number) => {
  const payload = githubExample('issue_comment', 'created');
  const repo = payload.repository as Record<string, unknown>;
  Object.assign(repo, { name: 'repo', full_name: 'bench/repo' });
  (repo.owner as Record<string, unknown>).login = 'bench';
  (payload.comment as Record<string, unknown>).body = '/blitz M1';
  (payload.issue as Record<string, unknown>).number = n;
  return signedGithubRequest({ secret: SECRET, event: 'issue_comment', payload, deliveryId: `d-${n}` });
};

/** The status, or undefined when no answer came (the replica is gone, or went mid-request). */
const send = async (r: Replica, n: number): Promise<number | undefined> => {
  const req = requestFor(n);
  try {
    const res = await fetch(`${r.url}/api/github/webhooks`, {
      method: 'POST',
      body: req.body,
      headers: req.headers,
    });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return undefined;
  }
};

export const killReplicaUnderLoad = async (
  schemas: TestSchemas,
  o: { deliveries: number; inFlight: number },
): Promise<KillOutcome> => {
  const schema = await schemas.create();
  const boss = `${schema}_boss`;
  const db = schemas.urlFor(schema);
  // pg-boss's schema made once here, so the replicas starting side by side do not race to make it.
  const queue = await PgBossQueue.open({
    connectionString: pgTestUrl(),
    schema: boss,
    logger: silentLogger(),
  });
  const runs = await openRunStore(db);
  const dir = tempDir('blitz-replica-kill-');
  const replicas: Replica[] = [];
  try {
    await runs.createRun({
      id: RUN_ID,
      forge: 'github',
      repo: 'bench/repo',
      kind: 'blitz',
      milestoneNumber: 1,
      milestoneTitle: 'B',
      slug: 'b',
      options: {},
      state: 'running',
      integrationBranch: 'main',
    });
    const logs = ['a', 'b'].map((x) => join(dir, `processed-${x}.log`));
    for (const [i, name] of ['replica-a', 'replica-b'].entries())
      replicas.push(await startReplica(name, [db, RUN_ID, pgTestUrl(), boss], logs[i]!));
    const [a, b] = replicas as [Replica, Replica];
    trace('replicas up');
    let next = 1;
    let answered = 0;
    let resent = 0;
    let killed = false;
    await Promise.all(
      Array.from({ length: o.inFlight }, async () => {
        while (next <= o.deliveries) {
          const n = next++;
          const to = n % 2 === 0 && !killed ? a : b;
          const sending = send(to, n);
          // Halfway, the kill lands while a delivery to that replica is on its way.
          if (to === a && !killed && answered >= o.deliveries / 2) {
            killed = true;
            a.child.kill('SIGKILL');
            trace(`killed at ${answered} answered`);
          }
          let status = await sending;
          // A balancer sends what its backend did not answer to another one.
          if (status === undefined && to === a) {
            resent++;
            status = await send(b, n);
          }
          if (status === undefined || status >= 300) throw new Error(`delivery d-${n} answered ${status}`);
          answered++;
        }
      }),
    );
    const signal = await new Promise<NodeJS.Signals | null>((resolve) =>
      a.child.exitCode !== null || a.child.signalCode !== null
        ? resolve(a.child.signalCode)
        : a.child.once('exit', (_code, sig) => resolve(sig)),
    );
    trace(`load sent, ${resent} resent`);
    await fetch(`${b.url}/bench/idle`, { method: 'POST' });
    trace('survivor idle');
    // The survivor's retry pass, at a time the dead replica's leases (120 s) have run out by.
    const at = new Date(Date.now() + 10 * 60_000).toISOString();
    const res = await fetch(`${b.url}/bench/resume`, { method: 'POST', body: JSON.stringify({ at }) });
    const { resumed } = (await res.json()) as { resumed: number };

    trace(`resumed ${resumed}`);
    const store = await openStore(db);
    const unprocessed = (
      await store.listUnprocessedDeliveries(new Date(Date.now() + 86_400_000).toISOString())
    ).length;
    trace('store read');
    await store.close();
    trace('store closed');
    const rows = await runs.listRunIssues(RUN_ID);
    trace('rows read');
    const { rows: jobs } = await schemas.admin.query<{ key: string; n: string }>(
      `SELECT singleton_key AS key, count(*)::text AS n FROM ${boss}.job WHERE singleton_key LIKE $1 GROUP BY 1`,
      [`${RUN_ID}:%`],
    );
    trace('jobs read');
    const dispatched = new Set(rows.map((r) => r.number));
    const processedIds = logs.flatMap((f) =>
      existsSync(f) ? readFileSync(f, 'utf8').split('\n').filter(Boolean) : [],
    );
    const seen = new Map<string, number>();
    for (const id of processedIds) seen.set(id, (seen.get(id) ?? 0) + 1);
    return {
      killedBy: signal,
      deliveries: o.deliveries,
      resent,
      resumed,
      unprocessed,
      lost:
        Array.from({ length: o.deliveries }, (_, i) => i + 1).filter((n) => !dispatched.has(n)).length +
        Math.max(0, o.deliveries - jobs.length),
      doubled: jobs.reduce((s, j) => s + Number(j.n) - 1, 0),
      processedTwice: [...seen.values()].filter((c) => c > 1).length,
    };
  } finally {
    for (const r of replicas)
      if (r.child.exitCode === null && r.child.signalCode === null) {
        const gone = new Promise((resolve) => r.child.once('exit', resolve));
        r.child.kill('SIGTERM');
        // A replica that does not stop in time is stopped harder (the outcome is read already).
        const hard = setTimeout(() => r.child.kill('SIGKILL'), 10_000);
        await gone;
        clearTimeout(hard);
      }
    trace('replicas stopped');
    await runs.close();
    trace('runs closed');
    await queue.dropSchema(boss);
    trace('boss dropped');
    await queue.close();
    removeDir(dir);
  }
};
