// `npm run bench -- scale`: one bot, many milestones, measured (issue 38). The composed bot (what
// `npm start` runs, in a process of its own: bench/scale-bot.ts) drives N repositories on the fake
// GitHub, each an M-issue milestone with a seeded, realistic graph (chains, fan-outs, joins, a few
// epics, about 20 ready at the widest), with fake agents that sleep a fixed work time and then really
// commit (the runner pushes), a review leg (the fake reviewer), CI on every pushed branch (the fake CI,
// its `check_run` sent as GitHub's App webhook) and merges. A few issues are red first: their worker
// commits a `broken` file, CI fails, the bot resumes it with the failure, the fix goes green. And the
// bot is killed (-9) once mid-run and started again over the same files, as a crashed one would be.
// Figures, each beside its goal:
// - makespan ratio: the run's wall clock (command sent → last issue closed) over the ideal list
//   schedule of the same graphs with the same session cap and work time (src/plan/ideal-schedule.ts);
// - forge requests per merged issue (all, and those counted against the rate limit: not 304);
// - the bot's CPU per merged issue, its reconcile p99, its peak RSS, dashboard edits per issue;
// - where the time between "ready" and "worker started" and between "PR green" and "merged" goes.
// Sizes: `small` (1 × 20: the short run a change is iterated with), `medium` (10 × 30, or
// BLITZ_SCALE_MEDIUM_REPOS × BLITZ_SCALE_MEDIUM_ISSUES; figures `scale.medium_…`) and `full` (10 × 100),
// by BLITZ_SCALE_SIZES (default small and full). BLITZ_SCALE_WORK_MS, BLITZ_SCALE_SESSIONS (per run),
// BLITZ_SCALE_TICK_SECONDS (the cron; default the composed bot's 60), BLITZ_SCALE_RED (issues red first
// per repository), BLITZ_SCALE_RESTART (0: no kill -9 of the bot mid-run), BLITZ_SCALE_SEED,
// BLITZ_SCALE_DB (sqlite | postgres).
// BLITZ_SCALE_FORGE=gitea: the same on the fake Gitea (a token, its webhooks signed and posted to the
// bot, CI a commit status, which Gitea sends no webhook for, so the bot polls it); the figures are
// written as `scale.gitea.…` (`scale.gitea.small_…` for the small size), beside Gitea's goal of 12
// requests per merged issue. Its small size is the one to run: `BLITZ_SCALE_FORGE=gitea
// BLITZ_SCALE_SIZES=small npm run bench -- scale`.
import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { stringify } from 'yaml';
import { idealListSchedule } from '../src/plan/ideal-schedule.ts';
import { openRunStore } from '../src/store/open-store.ts';
import { removeDir, tempDir, testEnv } from '../test/support/git.ts';
import { testSchemas } from '../test/support/pg.ts';
import { type Bench, type Figure, percentile, round } from './figures.ts';
import { type Steps, stepLines, timelineSteps } from './scale-timeline.ts';
import { type ScaleForge, type ScaleWorld, startScaleWorld } from './scale-world.ts';

const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const WORK_MS = num('BLITZ_SCALE_WORK_MS', 5000);
const SESSIONS = num('BLITZ_SCALE_SESSIONS', 4);
const TICK_SECONDS = num('BLITZ_SCALE_TICK_SECONDS', 60);
const RED = num('BLITZ_SCALE_RED', 2);
const SEED = num('BLITZ_SCALE_SEED', 38);
/** GitHub's one second between writes, scaled: the fake has no secondary limit to keep (tests use 1 ms). */
const GITHUB_SECOND_MS = num('BLITZ_SCALE_GITHUB_SECOND_MS', 10);
/** 0: no kill -9 and restart of the bot mid-run. */
const RESTART = num('BLITZ_SCALE_RESTART', 1) !== 0;
const FORGE: ScaleForge = process.env.BLITZ_SCALE_FORGE === 'gitea' ? 'gitea' : 'github';

export const goals = {
  makespan_ratio: 1.15,
  requests_per_merged_issue: 8,
  rate_limited_requests_per_merged_issue: 6,
  rss_peak_mb: 400,
} as const;

/** Gitea's goal (issue 38): 12 requests per merged issue; it answers no request with a 304. */
const giteaGoals = { requests_per_merged_issue: 12, rate_limited_requests_per_merged_issue: 12 } as const;

/** `medium` (10 × 30 unless BLITZ_SCALE_MEDIUM_REPOS / _ISSUES say) is for looking into one figure. */
const sizes = {
  small: { repos: 1, issues: 20 },
  medium: { repos: num('BLITZ_SCALE_MEDIUM_REPOS', 10), issues: num('BLITZ_SCALE_MEDIUM_ISSUES', 30) },
  full: { repos: 10, issues: 100 },
} as const;
type Size = keyof typeof sizes;

const scaleAgent = join(import.meta.dirname, 'scale-agent.sh');
const scaleReviewer = join(import.meta.dirname, 'scale-reviewer.sh');

interface BotStats {
  cpuMs: number;
  /** The part of cpuMs its spawn host spent (starting the bot's commands). */
  hostCpuMs: number;
  rssPeakMb: number;
  /** The parts of rssPeakMb, and the bot's heap, external and array buffer peaks (scale-bot.ts). */
  botRssPeakMb: number;
  hostRssPeakMb: number;
  heapUsedMb: number;
  externalMb: number;
  arrayBuffersMb: number;
  /** The bot's time in garbage collection (ms) and its full collections. */
  gcMs: number;
  gcMajor: number;
  reconcileMs: number[];
  /** Commands the bot started, by kind (runner/command-count.ts). */
  commands: Record<string, number>;
}

/** The node flags of package.json's `start` script (`tsx --max-old-space-size=… src/main.ts serve`). */
const startFlags = (): string[] => {
  const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8')) as {
    scripts: { start: string };
  };
  return pkg.scripts.start.split(/\s+/).filter((a) => a.startsWith('--'));
};

const startBotProcess = async (specPath: string): Promise<{ child: ChildProcess; port: number }> => {
  // BLITZ_SCALE_PROFILE=<dir>: the bot's CPU profile (.cpuprofile) is written there when it exits.
  const profile = process.env.BLITZ_SCALE_PROFILE;
  // BLITZ_SCALE_HEAP_DIR=<dir>: a heap snapshot of the bot is written there on each `kill -USR2 <pid>`.
  const heapDir = process.env.BLITZ_SCALE_HEAP_DIR;
  // The node flags `npm start` gives the bot (its heap's size), or BLITZ_SCALE_NODE_FLAGS to try others.
  const nodeFlags = (process.env.BLITZ_SCALE_NODE_FLAGS ?? startFlags().join(' ')).split(' ').filter(Boolean);
  const child = spawn(
    process.execPath,
    [
      ...(profile ? ['--cpu-prof', '--cpu-prof-dir', profile] : []),
      ...(heapDir ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${heapDir}`] : []),
      ...nodeFlags,
      '--import',
      'tsx',
      join(import.meta.dirname, 'scale-bot.ts'),
      specPath,
    ],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const first = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the scale bot exited (${code}) before listening`)));
    createInterface({ input: child.stdout! }).once('line', resolve);
  });
  child.removeAllListeners('exit');
  return { child, port: (JSON.parse(first) as { port: number }).port };
};

const stopBotProcess = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The ideal makespan (ms): each repository's run on its own cap, all at once; the longest. */
const idealMs = (w: ScaleWorld): number =>
  Math.max(
    ...w.repos.map((r) => {
      const epics = new Set(r.graph.epics);
      const s = idealListSchedule(
        r.graph.issues.map((i) => ({
          id: String(i.number),
          blockedBy: (i.blockedBy ?? []).map(String),
          work: epics.has(i.number!) ? 0 : WORK_MS,
        })),
        SESSIONS,
      );
      if (!s.ok) throw new Error(`the generated graph is not a schedule: ${s.error.code}`);
      return s.value.makespan;
    }),
  );

const runScale = async (size: Size, db: 'sqlite' | 'postgres'): Promise<Figure[]> => {
  const { repos, issues } = sizes[size];
  const prefix = `scale.${FORGE === 'gitea' ? 'gitea.' : ''}${size === 'full' ? '' : `${size}_`}`;
  const goal = FORGE === 'gitea' ? giteaGoals : goals;
  const w = await startScaleWorld({ repos, issues, seed: SEED, forge: FORGE });
  const dir = tempDir('blitz-scale-');
  const pg = db === 'postgres' ? testSchemas() : undefined;
  let child: ChildProcess | undefined;
  try {
    const databaseUrl = pg ? pg.urlFor(await pg.create()) : `sqlite:${join(dir, 'blitz.db')}`;
    // A few issues per repository are red first: broken, then fixed on the resume CI's failure asks for.
    const red = w.repos.flatMap((r) =>
      r.graph.issues
        .filter((i) => !r.graph.epics.includes(i.number!))
        .slice(3, 3 + RED)
        .map((i) => `${r.repo.owner}/${r.repo.name}#${i.number}`),
    );
    const workIssues = w.repos.reduce((s, r) => s + r.graph.issues.length - r.graph.epics.length, 0);
    const totalWork = workIssues;
    const configPath = join(dir, 'blitz.config.yml');
    writeFileSync(
      configPath,
      stringify({
        runner: {
          workspace: join(dir, 'workspace'),
          maxSessions: SESSIONS,
          retries: 0,
          attemptTimeoutMinutes: 15,
        },
        // The fake agent and reviewer in POSIX sh (bench/scale-agent.sh, bench/scale-reviewer.sh): the
        // node ones' modes the bench uses, a shell and two git commands a worker instead of a node
        // process, so that a full run on a small host measures the bot, not the node starts of its world.
        roster: [
          {
            name: 'fake',
            tool: 'custom',
            command: ['/bin/sh', scaleAgent, '{prompt_file}'],
            resume: ['/bin/sh', scaleAgent, '--resume', '{prompt_file}'],
            roles: ['blitz'],
            tiers: ['execution', 'design', 'subtle'],
            env: { SCALE_AGENT_DELAY_MS: String(WORK_MS), SCALE_AGENT_BROKEN: red.join(' ') },
          },
          {
            name: 'fake-reviewer',
            tool: 'custom',
            command: ['/bin/sh', scaleReviewer, '--verdict', 'clean', '{prompt_file}'],
            resume: ['/bin/sh', scaleReviewer, '{prompt_file}'],
            roles: ['review'],
            tiers: ['execution'],
          },
        ],
        // The provider's budget, as an operator's probe says it: the sessions asked for (without a
        // probe a run goes one worker at a time). `echo`, not a node process, asked before each wave.
        budget: ['echo', JSON.stringify({ recommendedMaxSessions: SESSIONS })],
        modelNotesPath: join(dir, 'models.md'),
      }),
    );
    // One spec (and stats file) per bot process: a restart is a new process over the same files.
    const lives: string[] = [];
    const spawnBot = async () => {
      const statsFile = join(dir, `stats-${lives.length}.json`);
      const specPath = join(dir, `spec-${lives.length}.json`);
      lives.push(statsFile);
      writeFileSync(
        specPath,
        JSON.stringify({
          vars: {
            PORT: '0',
            HOST: '127.0.0.1',
            LOG_LEVEL: 'silent',
            DATABASE_URL: databaseUrl,
            BLITZ_CONFIG: configPath,
            STATUS_TOKEN: 'scale-bench-status-token-0123456789',
            ...w.botVars,
            DATA_DIR: join(dir, 'data'),
          },
          baseEnv: testEnv(),
          statsFile,
          tickSeconds: TICK_SECONDS,
          supervisionSeconds: 15,
          githubSecondMs: GITHUB_SECOND_MS,
          sessions: SESSIONS,
        }),
      );
      const started = await startBotProcess(specPath);
      w.webhookTo(started.port);
      return started.child;
    };
    child = await spawnBot();

    const commandAt = performance.now();
    for (const r of w.repos) await w.events.comment(r.repo, r.trigger, '/blitz M1', 'alice');
    const doneAt = new Map<string, number>();
    const deadline = commandAt + num('BLITZ_SCALE_TIMEOUT_MS', 20 * 60_000);
    const mergedNow = () => w.world.log.filter((e) => e.action === 'merge').length;
    let restarted = !RESTART;
    let timedOut = false;
    while (doneAt.size < w.repos.length) {
      // Past the deadline the run is stopped and measured as it stands: its ratio is then a lower bound.
      if (performance.now() > deadline) {
        timedOut = true;
        break;
      }
      if (child.exitCode !== null) throw new Error(`the scale bot exited (${child.exitCode}) mid-run`);
      // A crash mid-run: kill -9 once two fifths of the issues merged, then the same bot again over
      // the same files (its workers ran on; webhooks sent meanwhile failed, and recovery asks for them).
      if (!restarted && mergedNow() >= (2 * totalWork) / 5) {
        restarted = true;
        child.kill('SIGKILL');
        await new Promise((resolve) => child!.once('exit', resolve));
        child = await spawnBot();
      }
      await w.events.reviewsSince();
      for (const r of w.repos) {
        const key = `${r.repo.owner}/${r.repo.name}`;
        if (doneAt.has(key)) continue;
        if (r.graph.issues.every((i) => r.repo.issues.get(i.number!)?.state === 'closed'))
          doneAt.set(key, performance.now());
      }
      // The bench only watches; the bot's own ticks and webhooks drive the runs.
      await sleep(100);
    }
    const wallMs = timedOut ? deadline - commandAt : Math.max(...doneAt.values()) - commandAt;
    const closed = w.repos.reduce(
      (n, r) => n + r.graph.issues.filter((i) => r.repo.issues.get(i.number!)?.state === 'closed').length,
      0,
    );
    const clockOffset = performance.now() - Date.now();
    await stopBotProcess(child);
    // Every process's own: CPU adds up, the peak is the highest (a killed one's last second is lost).
    const each = lives.map((f) => ({
      ...(JSON.parse(readFileSync(f, 'utf8')) as Omit<BotStats, 'reconcileMs'>),
      reconcileMs: (existsSync(`${f}.reconciles`) ? readFileSync(`${f}.reconciles`, 'utf8') : '')
        .split('\n')
        .filter(Boolean)
        .map(Number),
    }));
    const peak = (
      k: 'rssPeakMb' | 'botRssPeakMb' | 'hostRssPeakMb' | 'heapUsedMb' | 'externalMb' | 'arrayBuffersMb',
    ) => Math.max(...each.map((x) => x[k] ?? 0));
    const stats: BotStats = {
      cpuMs: each.reduce((a, b) => a + b.cpuMs, 0),
      hostCpuMs: each.reduce((a, b) => a + (b.hostCpuMs ?? 0), 0),
      rssPeakMb: peak('rssPeakMb'),
      botRssPeakMb: peak('botRssPeakMb'),
      hostRssPeakMb: peak('hostRssPeakMb'),
      heapUsedMb: peak('heapUsedMb'),
      externalMb: peak('externalMb'),
      arrayBuffersMb: peak('arrayBuffersMb'),
      gcMs: each.reduce((a, b) => a + (b.gcMs ?? 0), 0),
      gcMajor: each.reduce((a, b) => a + (b.gcMajor ?? 0), 0),
      reconcileMs: each.flatMap((x) => x.reconcileMs),
      commands: {},
    };
    for (const x of each)
      for (const [kind, n] of Object.entries(x.commands ?? {}))
        stats.commands[kind] = (stats.commands[kind] ?? 0) + n;
    const gitKinds = Object.entries(stats.commands).filter(([kind]) => kind.startsWith('git '));
    const gitCommands = gitKinds.reduce((a, [, n]) => a + n, 0);

    const merged = w.world.log.filter(
      (e) =>
        e.action === 'merge' &&
        e.target !== undefined &&
        w.repos.some(
          (r) =>
            r.repo.issues.get(e.target!)?.pull?.base !== r.repo.defaultBranch &&
            `${r.repo.owner}/${r.repo.name}` === e.repo,
        ),
    ).length;
    const requests: { status: number; path: string; operationId?: string; body?: unknown }[] =
      w.fake.requests;
    const notModified = requests.filter((r) => r.status === 304).length;
    const dashboardEdits = requests.filter((r) => r.operationId === w.commentEditOp).length;

    const runs = await openRunStore(databaseUrl);
    const steps: Steps = new Map();
    try {
      const all = await runs.listRuns();
      for (const r of w.repos) {
        const run = all.find((x) => x.repo === `${r.repo.owner}/${r.repo.name}`);
        const attempts = run ? await runs.ledger.listByRun(run.id) : [];
        const epics = new Set(r.graph.epics);
        timelineSteps(
          {
            world: w.world,
            repo: r.repo,
            stamps: w.stamps,
            ciAt: w.ciAt,
            attempts,
            commandAt,
            issues: r.graph.issues.map((i) => i.number!).filter((n) => !epics.has(n)),
            epics,
            clockOffset,
          },
          steps,
        );
      }
    } finally {
      await runs.close();
    }
    const ideal = idealMs(w);
    console.log(
      `## scale ${size} (${repos} × ${issues}, ${FORGE}, ${db}): ${round(wallMs / 1000, 1)} s wall, ideal ${round(ideal / 1000, 1)} s ` +
        `(work ${WORK_MS} ms, ${SESSIONS} sessions a run, cron ${TICK_SECONDS} s, ${red.length} red first, ${lives.length - 1} kill -9 and restart); ` +
        `${merged} merged, ${requests.length} requests (${notModified} × 304); ${w.fake.violations.length} contract violations`,
    );
    const byOp = new Map<string, number>();
    for (const r of requests) {
      const q = String((r.body as { query?: unknown } | undefined)?.query ?? '');
      const op = r.path.endsWith('/graphql')
        ? `graphql ${/^\s*(?:query|mutation)\s+(\w+)/.exec(q)?.[1] ?? '?'}`
        : (r.operationId ?? r.path);
      byOp.set(op, (byOp.get(op) ?? 0) + 1);
    }
    // BLITZ_BENCH_SEQUENCE=<file>: every request in order (status, operation, path), to read one run closely.
    if (process.env.BLITZ_BENCH_SEQUENCE)
      appendFileSync(
        process.env.BLITZ_BENCH_SEQUENCE,
        `## scale ${size}\n${requests
          .map((r) => {
            const q = String((r.body as { query?: unknown } | undefined)?.query ?? '');
            const name = /^\s*(?:query|mutation)\s+(\w+)/.exec(q)?.[1];
            return `${r.status} ${name ? `graphql ${name}` : (r.operationId ?? '')} ${r.path}`;
          })
          .join('\n')}\n`,
      );
    console.log('  requests by operation:');
    for (const [op, n] of [...byOp].sort((a, b) => b[1] - a[1]).slice(0, 15))
      console.log(`    ${String(n).padStart(5)} ${op}`);
    console.log(
      `  git commands: ${gitCommands}, ${round(gitCommands / Math.max(1, merged), 1)} per merged issue; by subcommand:`,
    );
    for (const [kind, n] of gitKinds.sort((a, b) => b[1] - a[1]).slice(0, 10))
      console.log(`    ${String(n).padStart(5)} ${kind}`);
    console.log('  where the time goes (per issue):');
    for (const line of stepLines(steps)) console.log(line);

    const per = (n: number) => round(n / Math.max(1, merged), 1);
    const figures: Figure[] = [
      {
        name: `${prefix}makespan_ratio`,
        value: round(wallMs / ideal, 2),
        unit: timedOut ? `x (at least: stopped at the deadline, ${closed} of ${issues * repos} closed)` : 'x',
      },
      { name: `${prefix}closed_issues`, value: closed, unit: 'issues (epics included)' },
      { name: `${prefix}makespan_goal`, value: goals.makespan_ratio, unit: 'x' },
      { name: `${prefix}wall_s`, value: round(wallMs / 1000, 1), unit: 's' },
      { name: `${prefix}ideal_s`, value: round(ideal / 1000, 1), unit: 's' },
      { name: `${prefix}merged_issues`, value: merged, unit: 'issues' },
      { name: `${prefix}work_issues`, value: workIssues, unit: 'issues' },
    ];
    // The small run's figures carry its prefix (`scale.small_…`); the full run's are the issue's keys.
    return [
      ...figures,
      { name: `${prefix}requests_per_merged_issue`, value: per(requests.length), unit: 'requests' },
      {
        name: `${prefix}requests_per_merged_issue_goal`,
        value: goal.requests_per_merged_issue,
        unit: 'requests',
      },
      {
        name: `${prefix}rate_limited_requests_per_merged_issue`,
        value: per(requests.length - notModified),
        unit: 'requests',
      },
      {
        name: `${prefix}rate_limited_requests_per_merged_issue_goal`,
        value: goal.rate_limited_requests_per_merged_issue,
        unit: 'requests',
      },
      { name: `${prefix}bot_cpu_ms_per_merged_issue`, value: per(stats.cpuMs), unit: 'ms' },
      // Its parts: the bot's own process, and the spawn host that starts its commands.
      {
        name: `${prefix}bot_cpu_ms_per_merged_issue_spawn_host`,
        value: per(stats.hostCpuMs),
        unit: 'ms',
      },
      { name: `${prefix}git_commands_per_merged_issue`, value: per(gitCommands), unit: 'commands' },
      {
        name: `${prefix}reconcile_pass_p99_ms`,
        value: round(percentile(stats.reconcileMs, 99), 1),
        unit: 'ms',
      },
      { name: `${prefix}rss_peak_mb`, value: round(stats.rssPeakMb, 0), unit: 'MB' },
      { name: `${prefix}rss_peak_mb_goal`, value: goals.rss_peak_mb, unit: 'MB' },
      // What the peak is made of: the bot's own and its spawn host's, and the bot's heap beside them.
      { name: `${prefix}rss_peak_bot_mb`, value: round(stats.botRssPeakMb, 0), unit: 'MB' },
      { name: `${prefix}rss_peak_spawn_host_mb`, value: round(stats.hostRssPeakMb, 0), unit: 'MB' },
      { name: `${prefix}heap_used_peak_mb`, value: round(stats.heapUsedMb, 0), unit: 'MB' },
      { name: `${prefix}external_peak_mb`, value: round(stats.externalMb, 0), unit: 'MB' },
      { name: `${prefix}bot_gc_ms_per_merged_issue`, value: per(stats.gcMs), unit: 'ms' },
      { name: `${prefix}bot_full_gcs`, value: stats.gcMajor, unit: 'collections' },
      {
        name: `${prefix}dashboard_edits_per_issue`,
        value: round(dashboardEdits / Math.max(1, workIssues), 2),
        unit: 'edits',
      },
      ...[...steps].flatMap(([name, xs]) => {
        const key = name
          .replace(/[^a-z0-9]+/gi, '_')
          .replace(/^_|_$/g, '')
          .toLowerCase();
        return [
          { name: `${prefix}step.${key}.p50_ms`, value: round(percentile(xs, 50), 0), unit: 'ms' },
          { name: `${prefix}step.${key}.p95_ms`, value: round(percentile(xs, 95), 0), unit: 'ms' },
        ];
      }),
    ];
  } finally {
    if (child) await stopBotProcess(child);
    await w.close();
    await pg?.dropAll();
    removeDir(dir);
  }
};

const bench: Bench = async () => {
  const wanted = (process.env.BLITZ_SCALE_SIZES ?? 'small,full').split(',') as Size[];
  const db = (process.env.BLITZ_SCALE_DB ?? 'sqlite') as 'sqlite' | 'postgres';
  const figures: Figure[] = [];
  for (const size of wanted) figures.push(...(await runScale(size, db)));
  return figures;
};

export default bench;
