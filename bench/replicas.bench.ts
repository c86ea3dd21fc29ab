// Replica figures: webhook deliveries per second, each received and processed end to end — a signed
// GitHub `issue_comment` POSTed to the real webhook route, verified, normalised, recorded
// (deduplicated across replicas), answered 202, then leased, processed into a dispatch of its issue
// (run row and pg-boss job in one transaction) and marked processed — with 1 and 2 bot replicas on one
// PostgreSQL. Each replica is a process of its own (`test/support/replica-process.ts`), as replicas behind a
// balancer are; this process only sends. With 2, each delivery goes to ONE of them in turn (a
// round-robin balancer: the scaling figure, against 1 replica), and again every delivery goes to both,
// as a balancer retrying would (correctness: each delivery answered 202 once, processed by one replica
// once and dispatched once).
// Baseline in the same run: 1 replica on SQLite with the in-process queue.
//
// The load is the same for every case: IN_FLIGHT requests outstanding at all times, shared among the
// replicas. A balancer faces whatever concurrency its clients bring, so the figure is capacity: with
// a handful of senders each waiting for its 202 (the bench's first form, 8 of them) the rate was the
// latency of one durable commit times 8, whatever the number of replicas. Deliveries name one of
// REPOS repositories, so a replica's lanes (one per repository) work side by side as in a real
// installation. Beside each rate, the CPU per delivery of the replicas, of the PostgreSQL backends
// serving them and of the sender, and the rate this host's cores would allow at that CPU if the bench
// had them all: on a small shared host that ceiling, not the bot, is what 2 replicas run into. Beside
// 2 ÷ 1, the ratio of the CPU a delivery costs the bot (replicas and backends) with 2 replicas and with
// 1: at 1.0 a second replica does the same work per delivery, so its rate is what cores it is given
// allow; and how busy the host was (all of it, and the bench's share), which says whether the rate
// measured was the bot's or the host's limit, and whether the host had a core for each replica at all.
// Beside the CPU, what a delivery costs in PostgreSQL statements and in involuntary context switches
// (a process preempted for another: more busy processes than cores); BLITZ_BENCH_REPLICAS_DETAIL=1 prints
// the statements by kind, the replicas' CPU on their JavaScript thread and on their other threads, and
// each backend's CPU. Nothing here is projected: every figure is measured.
//
// Each replica is warmed before the clock starts with WARM_UP deliveries at the case's concurrency:
// a fresh Node process runs its first thousands of deliveries in the interpreter and baseline code
// while V8 compiles the hot paths. Timed from the 17th delivery (as before), half the CPU per delivery
// was that warm-up, paid once per process: twice with 2 replicas, each over half the deliveries.
// Tables are analysed after the warm-up, as autovacuum has long done on a running database: planned
// on the empty table's statistics, each "processed" mark read the whole delivery index.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { silentLogger } from '../src/observability/logger.ts';
import { PgBossQueue } from '../src/queue/pg-boss-queue.ts';
import { openRunStore } from '../src/store/open-store.ts';
import type { Queryable } from '../src/store/pg-pool.ts';
import { removeDir, tempDir } from '../test/support/git.ts';
import { pgTestUrl, postgresAvailable, type TestSchemas, testSchemas } from '../test/support/pg.ts';
import { type KillOutcome, killReplicaUnderLoad } from '../test/support/replica-kill.ts';
import { githubExample, signedGithubRequest } from '../test/support/signing.ts';
import { type Bench, type Figure, median, round } from './figures.ts';

const DELIVERIES = 2000;
/** Rounds of the cases compared (1 replica on SQLite, 1 and 2 on PostgreSQL). */
const ROUNDS = 3;
/** Requests outstanding at once, over all replicas. */
const IN_FLIGHT = 64;
const REPOS = 32;
/**
 * Deliveries each replica handles before the clock starts: its pools' connections are opened and V8
 * has optimised its hot code (per replica, so 2 replicas are as warm as 1). After 2,000 V8's compiler
 * threads were still at work in the timed window, each replica's share of it over half the
 * deliveries with 2: 0.22–0.25 ms of other threads' CPU per delivery with 1 replica, 0.30–0.34 with 2;
 * after 6,000, 0.16 and 0.14.
 */
const WARM_UP = 6000;
const SECRET = 'bench-replica-secret';
const runId = 'bench-run';

/**
 * The repository of delivery `n`, spread by a hash: a balancer's turn does not pick a repository, so
 * each replica sees all of them. (`n % REPOS` gave replica k of 2 only the repositories of its parity:
 * half the lanes each, so a shared dispatch transaction gathered half as many dispatches.)
 */
const repoOf = (n: number): number => Math.floor(((Math.imul(n, 0x9e3779b1) >>> 0) / 2 ** 32) * REPOS);

/** The signed request of delivery `d-<n>`: a `/blitz` command on issue n of one of REPOS repositories. */
const requestFor = (n: number) => {
  const payload = githubExample('issue_comment', 'created');
  const repo = payload.repository as Record<string, unknown>;
  repo.name = `repo${repoOf(n)}`;
  repo.full_name = `bench/repo${repoOf(n)}`;
  (repo.owner as Record<string, unknown>).login = 'bench';
  (payload.comment as Record<string, unknown>).body = '/blitz M1';
  (payload.issue as Record<string, unknown>).number = n;
  return signedGithubRequest({ secret: SECRET, event: 'issue_comment', payload, deliveryId: `d-${n}` });
};

/** The replicas' connections say who they are, so their backends can be told from other clients'. */
const APP_NAME = 'blitz-bench-replica';

/**
 * CPU time (ms) of the PostgreSQL backends serving the replicas, per pid, from /proc (empty when the
 * server runs on another host): what the database spends per delivery, beside the replicas. Other
 * clients of the same server (tests running beside the bench) are not counted.
 */
const backendCpu = async (admin: Queryable | undefined): Promise<Map<number, number>> => {
  const cpu = new Map<number, number>();
  if (!admin) return cpu;
  const { rows } = await admin.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE application_name = $1',
    [APP_NAME],
  );
  for (const { pid } of rows) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (!stat.includes('(postgres)')) continue; // the server runs elsewhere: this pid is another's
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      cpu.set(pid, (Number(fields[11]) + Number(fields[12])) * (1000 / CLOCK_TICKS));
    } catch {
      // not on this host, or gone meanwhile
    }
  }
  return cpu;
};

/** Linux's USER_HZ: /proc's CPU times are in these. */
const CLOCK_TICKS = 100;

/** The host's CPU time so far, busy and in all, over every core (ticks; zeros where /proc is missing). */
const hostCpu = (): { busy: number; total: number } => {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
    const [user, nice, system, idle, iowait, irq, softirq, steal] = line.split(/\s+/).slice(1, 9).map(Number);
    const busy = user! + nice! + system! + irq! + softirq! + steal!;
    return { busy, total: busy + idle! + iowait! };
  } catch {
    return { busy: 0, total: 0 };
  }
};

interface Replica {
  url: string;
  child: ChildProcess;
  /** Kept-alive connections, as a balancer holds to its backends (fetch's client costs the sender 2× the CPU). */
  agent: Agent;
}

const startReplica = async (name: string, args: string[]): Promise<Replica> => {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(import.meta.dirname, '..', 'test', 'support', 'replica-process.ts'),
      args[0]!,
      name,
      ...args.slice(1),
    ],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, BENCH_WEBHOOK_SECRET: SECRET, PGAPPNAME: APP_NAME },
    },
  );
  const first = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`replica ${name} exited (${code}) before listening`)));
    createInterface({ input: child.stdout! }).once('line', resolve);
  });
  child.removeAllListeners('exit');
  const { port } = JSON.parse(first) as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    agent: new Agent({ keepAlive: true, maxSockets: IN_FLIGHT }),
  };
};

const stopReplica = (r: Replica) =>
  new Promise<void>((resolve) => {
    if (r.child.exitCode !== null) return resolve();
    r.agent.destroy();
    r.child.once('exit', () => resolve());
    r.child.kill('SIGTERM');
  });

/** POSTs one request to a replica over its kept-alive connections; returns the status. */
const send = (r: Replica, req: { body: string; headers: Record<string, string> }): Promise<number> =>
  new Promise((resolve, reject) => {
    const out = request(
      `${r.url}/api/github/webhooks`,
      { method: 'POST', headers: req.headers, agent: r.agent },
      (res) => {
        res.resume();
        res.once('end', () =>
          res.statusCode === 202 || res.statusCode === 200
            ? resolve(res.statusCode)
            : reject(new Error(`replica answered ${res.statusCode}`)),
        );
      },
    );
    out.once('error', reject);
    out.end(req.body);
  });

interface Control {
  cpuMs: number;
  processed: number;
  /** PostgreSQL statements sent, by kind. */
  statements: Record<string, number>;
  /** System calls and context switches (/proc/self/io and status), by name. */
  os: Record<string, number>;
}

const control = async (r: Replica, what: 'mark' | 'idle'): Promise<Control> => {
  const res = await fetch(`${r.url}/bench/${what}`, { method: 'POST' });
  const body = (await res.json()) as Partial<Control>;
  return {
    cpuMs: body.cpuMs ?? 0,
    processed: body.processed ?? 0,
    statements: body.statements ?? {},
    os: body.os ?? {},
  };
};

/** Counts summed over the replicas. */
const sum = (xs: readonly Record<string, number>[]): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const x of xs) for (const [k, v] of Object.entries(x)) out[k] = (out[k] ?? 0) + v;
  return out;
};

/**
 * Deliveries per second with `n` replicas started by `start`: each delivery sent to one replica in
 * turn (`round-robin`) or to every replica (`doubled`).
 */
const measure = async (
  db: string,
  start: (name: string) => Promise<Replica>,
  n: number,
  spread: 'round-robin' | 'doubled' = 'round-robin',
  /** A pool on the PostgreSQL server, to find the replicas' backends. */
  admin?: Queryable,
  /** Run after the warm-up, before the clock starts (PostgreSQL: analyse the tables). */
  afterWarmUp?: () => Promise<void>,
): Promise<{
  rate: number;
  cpuMs: number;
  pgCpuMs: number;
  senderCpuMs: number;
  /** Share of the host's CPU (all cores) busy while timed, whoever used it. */
  hostBusy: number;
  /** Share of the host's CPU the bench's processes (replicas, backends, sender) used while timed. */
  benchShare: number;
  /** PostgreSQL statements the replicas sent per delivery. */
  statements: number;
  /** Times a replica was preempted for another process, per delivery. */
  preempted: number;
}> => {
  const runs = await openRunStore(db);
  await runs.createRun({
    id: runId,
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
  const rs = await Promise.all(Array.from({ length: n }, (_, i) => start(`bench-${i}`)));
  try {
    const requests = Array.from({ length: DELIVERIES + 1 + n * WARM_UP }, (_, i) => requestFor(i));
    // Not timed: each replica's first deliveries open its connections (store, run store, pg-boss)
    // and get its code optimised; each replica is sent its own at the concurrency it sees when timed.
    await Promise.all(
      rs.map(async (r, i) => {
        let j = 0;
        await Promise.all(
          Array.from({ length: IN_FLIGHT / n }, async () => {
            while (j < WARM_UP) await send(r, requests[DELIVERIES + 1 + i * WARM_UP + j++]!);
          }),
        );
      }),
    );
    await Promise.all(rs.map((r) => control(r, 'idle')));
    await afterWarmUp?.();
    await Promise.all(rs.map((r) => control(r, 'mark')));
    const pg0 = await backendCpu(admin);
    const sender0 = process.cpuUsage();
    const host0 = hostCpu();
    const t0 = performance.now();
    let next = 1;
    let accepted = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT / (spread === 'doubled' ? n : 1) }, async () => {
        while (next <= DELIVERIES) {
          const k = next++;
          const targets = spread === 'doubled' ? rs : [rs[k % rs.length]!];
          for (const status of await Promise.all(targets.map((r) => send(r, requests[k]!))))
            if (status === 202) accepted++;
        }
      }),
    );
    const done = await Promise.all(rs.map((r) => control(r, 'idle')));
    const seconds = (performance.now() - t0) / 1000;
    const host1 = hostCpu();
    let pgCpuMs = 0;
    const perBackend: string[] = [];
    for (const [pid, ms] of await backendCpu(admin)) {
      pgCpuMs += (ms - (pg0.get(pid) ?? 0)) / DELIVERIES;
      perBackend.push(`${((ms - (pg0.get(pid) ?? 0)) / DELIVERIES).toFixed(3)} ms (pid ${pid})`);
    }
    const statements = sum(done.map((d) => d.statements));
    const os = sum(done.map((d) => d.os));
    if (process.env.BLITZ_BENCH_REPLICAS_DETAIL) {
      const per = (x: number) => (x / DELIVERIES).toFixed(3);
      console.error(`## ${n} replica(s), ${spread}: per delivery`);
      for (const [k, v] of Object.entries(statements).sort((a, b) => b[1] - a[1]))
        console.error(`  ${per(v)} statements ${k}`);
      for (const [k, v] of Object.entries(os)) console.error(`  ${per(v)} ${k}`);
      for (const d of done)
        console.error(`  ${(d.cpuMs / Math.max(1, d.processed)).toFixed(3)} ms CPU, a replica`);
      for (const b of perBackend) console.error(`  ${b} CPU, a backend`);
    }
    const sender = process.cpuUsage(sender0);
    const rows = await runs.listRunIssues(runId);
    const expected = DELIVERIES + n * WARM_UP;
    if (rows.length !== expected) throw new Error(`expected ${expected} dispatched rows, got ${rows.length}`);
    if (accepted !== DELIVERIES) throw new Error(`expected ${DELIVERIES} deliveries taken, ${accepted} were`);
    const processed = done.reduce((a, d) => a + d.processed, 0);
    if (processed !== DELIVERIES)
      throw new Error(`expected ${DELIVERIES} deliveries processed, ${processed} were`);
    const cpuMs = done.reduce((a, d) => a + d.cpuMs, 0) / DELIVERIES;
    const senderCpuMs = (sender.user + sender.system) / 1000 / DELIVERIES;
    const hostTotal = host1.total - host0.total;
    return {
      rate: DELIVERIES / seconds,
      cpuMs,
      pgCpuMs,
      senderCpuMs,
      hostBusy: hostTotal > 0 ? (host1.busy - host0.busy) / hostTotal : Number.NaN,
      benchShare: ((cpuMs + pgCpuMs + senderCpuMs) * DELIVERIES) / (seconds * 1000 * availableParallelism()),
      statements: Object.values(statements).reduce((a, b) => a + b, 0) / DELIVERIES,
      preempted: (os.nonvoluntary_ctxt_switches ?? Number.NaN) / DELIVERIES,
    };
  } finally {
    await Promise.all(rs.map(stopReplica));
    await runs.close();
  }
};

type Case = 'sqlite_1' | 'postgres_1' | 'postgres_2_round_robin' | 'postgres_2_doubled';
type Measured = Awaited<ReturnType<typeof measure>>;

/** One measurement of a case on a fresh database (SQLite file, or schema and pg-boss schema). */
const measureCase = async (c: Case, schemas: TestSchemas | undefined): Promise<Measured> => {
  if (c === 'sqlite_1') {
    const dir = tempDir('blitz-bench-rep-');
    try {
      const db = `sqlite:${join(dir, 'blitz.db')}`;
      return await measure(db, (name) => startReplica(name, [db, runId]), 1);
    } finally {
      removeDir(dir);
    }
  }
  if (!schemas) throw new Error('PostgreSQL cases need the test schemas');
  const schema = await schemas.create();
  const boss = `${schema}_boss`;
  // pg-boss's schema made once here, so the replicas starting side by side do not race to make it.
  const queue = await PgBossQueue.open({
    connectionString: pgTestUrl(),
    schema: boss,
    logger: silentLogger(),
  });
  const db = schemas.urlFor(schema);
  try {
    const n = c === 'postgres_1' ? 1 : 2;
    const spread = c === 'postgres_2_doubled' ? 'doubled' : 'round-robin';
    return await measure(
      db,
      (name) => startReplica(name, [db, runId, pgTestUrl(), boss]),
      n,
      spread,
      schemas.admin,
      async () => {
        const { rows } = await schemas.admin.query<{ t: string }>(
          `SELECT format('%I.%I', schemaname, tablename) AS t FROM pg_tables WHERE schemaname = ANY($1)`,
          [[schema, boss]],
        );
        await schemas.admin.query(`ANALYZE ${rows.map((r) => r.t).join(', ')}`);
      },
    );
  } finally {
    await queue.dropSchema(boss);
    await queue.close();
  }
};

const bench: Bench = async () => {
  const pg = await postgresAvailable();
  const schemas = pg ? testSchemas() : undefined;
  const order: Case[] = pg ? ['sqlite_1', 'postgres_1', 'postgres_2_round_robin'] : ['sqlite_1'];
  const got = new Map<Case, Measured[]>();
  const ratios: { pg1OverSqlite: number[]; pg2OverPg1: number[]; cpu2OverCpu1: number[] } = {
    pg1OverSqlite: [],
    pg2OverPg1: [],
    cpu2OverCpu1: [],
  };
  /** CPU per delivery of the replicas and their backends: the work a delivery costs the bot. */
  const botCpu = (m: Measured | undefined) => (m ? m.cpuMs + m.pgCpuMs : Number.NaN);
  let killed: KillOutcome | undefined;
  try {
    // Rounds, each case once per round in an order turned by one each round: a neighbour's load
    // that comes and goes hits every case alike, and each ratio is taken within its round.
    for (let round = 0; round < ROUNDS; round++) {
      const inRound = new Map<Case, Measured>();
      for (let k = 0; k < order.length; k++) {
        const c = order[(k + round) % order.length]!;
        const m = await measureCase(c, schemas);
        inRound.set(c, m);
        got.set(c, [...(got.get(c) ?? []), m]);
      }
      const [sq, one, two] = order.map((c) => inRound.get(c)?.rate ?? Number.NaN);
      if (pg) {
        ratios.pg1OverSqlite.push(one! / sq!);
        ratios.pg2OverPg1.push(two! / one!);
        ratios.cpu2OverCpu1.push(
          botCpu(inRound.get('postgres_2_round_robin')) / botCpu(inRound.get('postgres_1')),
        );
      }
    }
    // Correctness under a retrying balancer, once: every delivery sent to both replicas.
    if (schemas) got.set('postgres_2_doubled', [await measureCase('postgres_2_doubled', schemas)]);
    // A replica killed (-9) under load, once: what it held goes to the survivor, nothing lost or doubled.
    if (schemas) killed = await killReplicaUnderLoad(schemas, { deliveries: 2000, inFlight: IN_FLIGHT });
  } finally {
    await schemas?.dropAll();
  }
  const cpuUnit = 'ms CPU of the replica process(es) per delivery, median';
  const figures: Figure[] = [];
  for (const [c, ms] of got) {
    const med = (f: (m: Measured) => number) => median(ms.map(f));
    figures.push(
      {
        name: `replicas.${c}.deliveries_per_s`,
        value: round(
          med((m) => m.rate),
          1,
        ),
        unit: `deliveries/s, median of ${ms.length}`,
      },
      {
        name: `replicas.${c}.cpu_per_delivery_ms`,
        value: round(
          med((m) => m.cpuMs),
          3,
        ),
        unit: cpuUnit,
      },
    );
    if (c !== 'sqlite_1')
      figures.push({
        name: `replicas.${c}.postgres_cpu_per_delivery_ms`,
        value: round(
          med((m) => m.pgCpuMs),
          3,
        ),
        unit: 'ms CPU of the PostgreSQL backends serving the replicas per delivery, median (0: server not on this host)',
      });
    figures.push({
      name: `replicas.${c}.sender_cpu_per_delivery_ms`,
      value: round(
        med((m) => m.senderCpuMs),
        3,
      ),
      unit: 'ms CPU of the bench process (the sender) per delivery, median',
    });
    if (c !== 'sqlite_1') {
      const cores = availableParallelism();
      figures.push(
        {
          name: `replicas.${c}.bot_cpu_per_delivery_ms`,
          value: round(med(botCpu), 3),
          unit: 'ms CPU of the replicas and their PostgreSQL backends per delivery, median',
        },
        {
          name: `replicas.${c}.statements_per_delivery`,
          value: round(
            med((m) => m.statements),
            3,
          ),
          unit: 'PostgreSQL statements the replicas sent per delivery (BEGIN and COMMIT included), median',
        },
        {
          name: `replicas.${c}.cpu_ceiling_deliveries_per_s`,
          value: round((cores * 1000) / med((m) => m.cpuMs + m.pgCpuMs + m.senderCpuMs), 1),
          unit: `deliveries/s this host's ${cores} cores allow at the CPU per delivery above (replicas, backends, sender), were they all the bench's`,
        },
      );
    }
    figures.push(
      {
        name: `replicas.${c}.host_cpu_busy`,
        value: round(
          med((m) => m.hostBusy),
          2,
        ),
        unit: 'share of all cores busy while timed, whoever used them (1: the host was saturated), median',
      },
      {
        name: `replicas.${c}.preempted_per_delivery`,
        value: round(
          med((m) => m.preempted),
          3,
        ),
        unit: 'times a replica was preempted for another process (involuntary context switches) per delivery, median',
      },
      {
        name: `replicas.${c}.bench_cpu_share`,
        value: round(
          med((m) => m.benchShare),
          2,
        ),
        unit: "share of all cores the bench's processes used while timed (the rest: other work on the host), median",
      },
    );
  }
  const spread = (xs: number[]) =>
    `median of ${xs.length} rounds; spread ${round(Math.min(...xs), 2)}–${round(Math.max(...xs), 2)}`;
  if (pg) {
    figures.push(
      {
        name: 'replicas.postgres_1_over_sqlite_1.ratio',
        value: round(median(ratios.pg1OverSqlite), 2),
        unit: `x (goal >= 0.5; ${spread(ratios.pg1OverSqlite)})`,
      },
      {
        name: 'replicas.postgres_2_round_robin_over_postgres_1.ratio',
        value: round(median(ratios.pg2OverPg1), 2),
        unit: `x (${spread(ratios.pg2OverPg1)}; bounded by the host's cores: see cpu_per_delivery_ratio)`,
      },
      // Issue 38's figure for the replicas row: what a 2-core host can show and a bigger one keeps.
      {
        name: 'replicas.cpu_per_delivery_ratio',
        value: round(median(ratios.cpu2OverCpu1), 2),
        unit: 'x (goal <= 1.1): bot CPU per delivery, 2 replicas round robin over 1',
      },
      {
        name: 'replicas.postgres_2_round_robin_over_postgres_1.bot_cpu_per_delivery_ratio',
        value: round(median(ratios.cpu2OverCpu1), 2),
        unit: `x: CPU per delivery (replicas and backends) with 2 replicas ÷ with 1 (${spread(ratios.cpu2OverCpu1)}); 1.0: a second replica adds no work per delivery, so the rate is the cores' to give (both runs here share this host's ${availableParallelism()}: see cpu_ceiling and host_cpu_busy)`,
      },
    );
    // A core for each replica (and one for the sender, one for PostgreSQL's backends), or not: without
    // them the replicas take turns on the cores they share, and 2 ÷ 1 measures this host's cores.
    const cores = availableParallelism();
    const needed = 2 + 2;
    figures.push({
      name: 'replicas.postgres_2_round_robin.host_cores',
      value: cores,
      unit: `cores on this host; 2 replicas, the sender and PostgreSQL need ${needed} for a core each: ${cores >= needed ? 'yes' : 'no, so the second replica had no core of its own and the rate ratio is bounded by the host, not the bot'}`,
    });
    const doubled = got.get('postgres_2_doubled')?.[0];
    if (doubled)
      figures.push({
        name: 'replicas.postgres_2_doubled_over_postgres_1.ratio',
        value: round(doubled.rate / median((got.get('postgres_1') ?? []).map((m) => m.rate)), 2),
        unit: 'x (correctness: each delivery answered 202 once, processed once, dispatched once)',
      });
  }
  if (killed)
    figures.push(
      {
        name: 'replicas.kill_9.deliveries',
        value: killed.deliveries,
        unit: `deliveries, one replica of 2 killed (-9) halfway; ${killed.resent} resent to the survivor, ${killed.resumed} taken over by its retry pass`,
      },
      { name: 'replicas.kill_9.lost', value: killed.lost + killed.unprocessed, unit: 'deliveries (goal 0)' },
      { name: 'replicas.kill_9.doubled', value: killed.doubled, unit: 'dispatches (goal 0)' },
    );
  return figures;
};

export default bench;
