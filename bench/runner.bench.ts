// Runner figures: job start → agent spawned in the workers' bubblewrap sandbox (clone reuse + the
// attempt's own repository + prompt + the sandbox's argv + spawn; the job carries the
// base sha the clone already tracks, so no fetch — and, fewer rounds, a job without it, which fetches) on a
// 5,000-file repo, beside a bare `git worktree add` on the same clone; and the CPU a supervision
// tick costs per running worker (this process plus the git commands it waits for).
// The two are measured turn about (RUNS rounds, the order alternating) and the ratio is the median of
// the rounds' own ratios, printed with its spread: this disk's speed swings several-fold between runs,
// which made one median of each side, taken one after the other, read anywhere from 0.76× to 1.93×.
// Each spawned agent is waited for (its first log line, untimed) before the next measurement, so the
// start-up of its node processes loads neither side.
import { appendFileSync, readFileSync } from 'node:fs';
import { stat, watch } from 'node:fs/promises';
import { join } from 'node:path';
import { rosterEntrySchema } from '../src/config/blitz-config.ts';
import { silentLogger } from '../src/observability/logger.ts';
import { isAlive } from '../src/runner/exec.ts';
import { InMemoryAttemptLedger } from '../src/runner/ledger.ts';
import { Runner } from '../src/runner/runner.ts';
import { systemClock } from '../src/runner/types.ts';
import { createOrigin, gitIn, manyFiles, removeDir, tempDir, testEnv } from '../test/support/git.ts';
import { type Bench, type Figure, median, round } from './figures.ts';

const RUNS = 16;
const FETCH_RUNS = 6;
const IDLE_WORKERS = 4;
const TICKS = 5;

const entry = (mode: string) =>
  rosterEntrySchema.parse({
    name: 'bench',
    tool: 'custom',
    command: [
      'node',
      join(import.meta.dirname, '../test/support/fake-agents/fake-agent.mjs'),
      '{prompt_file}',
    ],
    resume: [
      'node',
      join(import.meta.dirname, '../test/support/fake-agents/fake-agent.mjs'),
      '--resume',
      '{prompt_file}',
    ],
    roles: ['blitz'],
    tiers: ['execution'],
    env: { FAKE_AGENT_MODE: mode, FAKE_AGENT_DELAY_MS: '600000' },
  });

/** Resolves once `file` holds something (the agent's first line); throws after a minute. */
const untilWritten = async (file: string): Promise<void> => {
  const { size } = await stat(file).catch(() => ({ size: 0 }));
  if (size > 0) return;
  const ac = new AbortController();
  const limit = setTimeout(() => ac.abort(), 60_000);
  try {
    for await (const _ of watch(file, { signal: ac.signal })) if ((await stat(file)).size > 0) return;
  } catch (err) {
    throw new Error(`runner bench: ${file} stayed empty for a minute (${String(err)})`);
  } finally {
    clearTimeout(limit);
  }
};

/** CPU time (ms) of waited-for children, from /proc/self/stat (cutime + cstime, in clock ticks). */
const childCpuMs = (): number => {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return 0;
  }
};

const bench: Bench = async () => {
  const origin = await createOrigin(manyFiles(5000));
  const workspace = tempDir('blitz-bench-ws-');
  const ledger = new InMemoryAttemptLedger();
  const make = () =>
    new Runner({
      config: {
        workspace,
        maxSessions: 8,
        stallCheckSeconds: 90,
        minFreeDiskMb: 0,
        attemptTimeoutMinutes: 60,
        buildConcurrency: 1,
        maxNudges: 6,
        retries: 0,
        // Asked for, not left to the default: the figure is the sandbox's or there is none.
        sandbox: 'bubblewrap',
      },
      ledger,
      clock: systemClock,
      events: () => undefined,
      logger: silentLogger(),
      credentials: async () => undefined,
      baseEnv: testEnv(),
    });
  const runner = make();
  // The bot's job carries the base commit it expects (issue 19): the clone already tracks it, so the
  // start fetches nothing. A job without it (a retry, an older bot) fetches: measured too, fewer rounds.
  const baseSha = await gitIn(origin.url, 'rev-parse', 'refs/heads/main');
  const job = (n: number, mode: string, withSha = true) => ({
    kind: 'attempt' as const,
    runId: 'bench',
    issue: { repo: { owner: 'bench', name: 'repo' }, number: n },
    title: `bench issue ${n}`,
    body: 'benchmark',
    branchStyle: 'blitz' as const,
    runSlug: 'bench',
    baseBranch: 'main',
    ...(withSha ? { baseSha } : {}),
    cloneUrl: origin.url,
    entry: entry(mode),
    tier: 'execution' as const,
  });
  const ids: string[] = [];
  try {
    ids.push(((await runner.execute(job(1, 'stall'))) as { attempt: { id: string } }).attempt.id); // first clone, not timed
    const repoDir = join(workspace, 'bench', 'repo');
    const startAgent = async (i: number, withSha = true): Promise<number> => {
      const t0 = performance.now();
      const res = await runner.execute(job(100 + i, 'slow-push', withSha));
      const ms = performance.now() - t0;
      if (res.kind !== 'attempt' || res.attempt.pid === undefined)
        throw new Error(`runner bench: attempt ${i} did not start (${JSON.stringify(res).slice(0, 300)})`);
      ids.push(res.attempt.id);
      // Not timed: the agent's own start-up (two node processes) is over before the next measurement,
      // so it loads neither side; its first log line says it is up.
      await untilWritten(res.attempt.logPath);
      return ms;
    };
    const bareWorktree = async (i: number): Promise<number> => {
      const t0 = performance.now();
      await gitIn(
        repoDir,
        'worktree',
        'add',
        '--quiet',
        '-b',
        `baseline-${i}`,
        join(workspace, `baseline-${i}`),
        'origin/main',
      );
      return performance.now() - t0;
    };
    // Baseline and subject interleaved, the order alternating each round: the disk's speed swings
    // several-fold between runs and within one, so each ratio is taken within its round.
    const spawn: number[] = [];
    const baseline: number[] = [];
    const ratios: number[] = [];
    const extra: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const [s, b] =
        i % 2 === 0
          ? [await startAgent(i), await bareWorktree(i)]
          : await bareWorktree(i).then(async (b) => [await startAgent(i), b]);
      spawn.push(s!);
      baseline.push(b!);
      ratios.push(s! / b!);
      extra.push(s! - b!);
    }
    // The same, for a job that carries no base sha: the start fetches.
    const fetchRatios: number[] = [];
    const fetchExtra: number[] = [];
    for (let i = RUNS; i < RUNS + FETCH_RUNS; i++) {
      const [s, b] =
        i % 2 === 0
          ? [await startAgent(i, false), await bareWorktree(i)]
          : await bareWorktree(i).then(async (b) => [await startAgent(i, false), b]);
      fetchRatios.push(s! / b!);
      fetchExtra.push(s! - b!);
    }
    // Idle workers: keep IDLE_WORKERS open attempts, cancel the rest.
    for (const id of ids.slice(IDLE_WORKERS)) await runner.execute({ kind: 'cancel', attemptId: id });
    const tickCpu = async (r: Runner): Promise<number> => {
      const cpu0 = process.cpuUsage();
      const child0 = childCpuMs();
      await r.tick();
      const cpu = process.cpuUsage(cpu0);
      return ((cpu.user + cpu.system) / 1000 + (childCpuMs() - child0)) / IDLE_WORKERS;
    };
    // Steady state: one long-lived supervisor, each live worker writing a line between ticks (so
    // none counts as stalled) and committing nothing.
    const live = make();
    await live.tick();
    const open = (await ledger.listOpen()).filter((r) => r.pid !== undefined);
    const steady: number[] = [];
    // Baseline in the same rounds: the least a tick must do per worker, ask whether its process lives
    // and stat its log, nothing else.
    const bare: number[] = [];
    for (let t = 0; t < TICKS; t++) {
      for (const r of open) appendFileSync(r.logPath, `working ${t}\n`);
      steady.push(await tickCpu(live));
      const cpu0 = process.cpuUsage();
      for (const r of open) {
        try {
          process.kill(r.pid!, 0);
        } catch {
          // gone: a tick would notice it the same way
        }
        await stat(r.logPath);
      }
      const cpu = process.cpuUsage(cpu0);
      bare.push((cpu.user + cpu.system) / 1000 / Math.max(1, open.length));
    }
    // After a restart: a fresh supervisor's first tick, remembering nothing.
    const perWorker: number[] = [];
    for (let t = 0; t < TICKS; t++) {
      for (const r of open) appendFileSync(r.logPath, `restarted ${t}\n`);
      perWorker.push(await tickCpu(make()));
    }
    // A tick over workers that ended meanwhile (killed from outside, on a shared host) checks nothing
    // and would read as nearly free: then there is no figure.
    const still = (await ledger.listOpen()).filter((r) => r.pid !== undefined && isAlive(r.pid));
    if (open.length !== IDLE_WORKERS || still.length !== IDLE_WORKERS)
      throw new Error(
        `runner bench: ${IDLE_WORKERS} live workers were to be ticked, ${open.length} were open and ${still.length} still live at the end`,
      );
    const figures: Figure[] = [
      {
        name: 'runner.spawn.median_ms',
        value: round(median(spawn), 1),
        unit: `ms, in the ${runner.jail.kind} sandbox, from a repository of its own`,
      },
      { name: 'runner.baseline_worktree.median_ms', value: round(median(baseline), 1), unit: 'ms' },
      {
        name: 'runner.spawn_over_baseline.ratio',
        value: round(median(ratios), 2),
        unit: `x (${runner.jail.kind} sandbox, attempt repository, beside git worktree add), median of ${RUNS} rounds' ratios; spread ${round(Math.min(...ratios), 2)}–${round(Math.max(...ratios), 2)}`,
      },
      { name: 'runner.spawn_over_baseline.goal', value: 1.5, unit: 'x' },
      {
        name: 'runner.spawn_minus_baseline.median_ms',
        value: round(median(extra), 1),
        unit: 'ms the runner adds to a bare worktree add (show-ref, prompt, spawn; no fetch), median of the rounds',
      },
      {
        name: 'runner.spawn_fetching_over_baseline.ratio',
        value: round(median(fetchRatios), 2),
        unit: `x, a job without base sha (the start fetches), median of ${FETCH_RUNS} rounds; spread ${round(Math.min(...fetchRatios), 2)}–${round(Math.max(...fetchRatios), 2)}`,
      },
      {
        name: 'runner.spawn_fetching_minus_baseline.median_ms',
        value: round(median(fetchExtra), 1),
        unit: 'ms the runner adds with a fetch, median of the rounds',
      },
      { name: 'runner.tick_cpu_ms_per_worker', value: round(median(steady), 2), unit: 'ms' },
      { name: 'runner.tick_cpu_ms_per_worker.goal', value: 20, unit: 'ms' },
      {
        name: 'runner.tick_baseline_cpu_ms_per_worker',
        value: round(median(bare), 3),
        unit: 'ms: whether the process lives and a stat of its log, alone, same rounds',
      },
      { name: 'runner.first_tick_cpu_ms_per_worker', value: round(median(perWorker), 2), unit: 'ms' },
    ];
    return figures;
  } finally {
    for (const id of ids) await runner.execute({ kind: 'cancel', attemptId: id }).catch(() => undefined);
    removeDir(workspace);
    removeDir(origin.root);
  }
};

export default bench;
