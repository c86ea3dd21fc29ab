// The table of issues 19 and 38 (performance at scale), printed at the end of `npm run bench` from the figures
// of the same run: each row's figure now, its baseline measured in that run, the ratio and the goal,
// and whether the goal is met. A row whose bench did not run (`npm run bench <prefix>`) says so.

type Results = Record<string, { value: number; unit: string } | undefined>;

interface Row {
  figure: string;
  /** What this run measured, as printed. */
  now: (r: Results) => string | undefined;
  baseline: (r: Results) => string | undefined;
  goal: string;
  /** True when the goal is met, undefined when it cannot be told from this run; a string says more. */
  met: (r: Results) => boolean | string | undefined;
}

const v = (r: Results, name: string): number | undefined => r[name]?.value;
const fmt = (x: number | undefined, unit = ''): string | undefined =>
  x === undefined || Number.isNaN(x) ? undefined : `${x}${unit}`;
const all = (...xs: (string | undefined)[]): string | undefined =>
  xs.some((x) => x === undefined) ? undefined : xs.join(', ');
const atMost = (x: number | undefined, goal: number) => (x === undefined ? undefined : x <= goal);
const below = (x: number | undefined, goal: number) => (x === undefined ? undefined : x < goal);
const atLeast = (x: number | undefined, goal: number) => (x === undefined ? undefined : x >= goal);
const both = (...xs: (boolean | undefined)[]) =>
  xs.some((x) => x === undefined) ? undefined : xs.every(Boolean);

/** Whether the host had a core for each replica, the sender and PostgreSQL (4 for 2 replicas). */
const coresPerReplica = (cores: number | undefined): string | undefined =>
  cores === undefined ? undefined : `a core per replica: ${cores >= 4 ? 'yes' : 'no'} (${cores} cores)`;

const forgeRow = (forge: 'github' | 'gitea', goal: string, counted: number): Row => ({
  figure: `${forge === 'github' ? 'GitHub' : 'Gitea'} requests per merged issue, whole 7-issue run`,
  now: (r) =>
    all(
      fmt(v(r, `forge.${forge}.cached.requests_per_merged_issue`)),
      fmt(v(r, `forge.${forge}.cached.rate_limited_requests_per_merged_issue`), ' counted'),
      fmt(v(r, `forge.${forge}.cached.requests_whole_run`), ' requests'),
      fmt(v(r, `forge.${forge}.cached.merged_issues`), ' merged'),
    ),
  baseline: (r) => all(fmt(v(r, `forge.${forge}.baseline.requests_per_merged_issue`)), 'adapter caches off'),
  goal,
  met: (r) =>
    both(
      atMost(v(r, `forge.${forge}.cached.requests_per_merged_issue`), 12),
      atMost(v(r, `forge.${forge}.cached.rate_limited_requests_per_merged_issue`), counted),
    ),
});

const runnersRow = (engine: 'in_process' | 'postgres'): Row => ({
  figure: `jobs/s claimed over HTTP with 1, 2, 4 runners (${engine === 'in_process' ? 'in-process' : 'PostgreSQL'})`,
  now: (r) =>
    all(
      ...[1, 2, 4].map((n) => fmt(v(r, `queue.${engine}.runners_${n}.jobs_per_s`))),
      fmt(v(r, `queue.${engine}.runners_4.over_linear.ratio`), '× of linear at 4'),
    ),
  baseline: (r) =>
    all(...[1, 2, 4].map((n) => fmt(v(r, `queue.baseline.ideal.runners_${n}.jobs_per_s`))), 'ideal'),
  goal: 'within 1.5× of linear up to 4 runners (≥ 0.67×)',
  met: (r) =>
    both(
      atLeast(v(r, `queue.${engine}.runners_2.over_linear.ratio`), 0.67),
      atLeast(v(r, `queue.${engine}.runners_4.over_linear.ratio`), 0.67),
    ),
});

export const issue19Rows: Row[] = [
  forgeRow('github', '≤ 12, ≤ 8 counted against the rate limit', 8),
  forgeRow('gitea', '≤ 12 (Gitea has no rate limit: load on the server)', 12),
  {
    figure: 'webhook intake vs a bare Hono route (signature only)',
    now: (r) =>
      all(
        fmt(v(r, 'intake.ratio'), '×'),
        fmt(v(r, 'intake.github.rps'), ' req/s'),
        fmt(v(r, 'intake.github.p99_ms_at_500rps'), ' ms p99 (paced)'),
        fmt(v(r, 'intake.cpu_ratio'), '× by CPU'),
        fmt(v(r, 'intake.ratio_same_body_read'), '× of a bare route reading the body as the intake does'),
      ),
    baseline: (r) => fmt(v(r, 'intake.baseline.rps'), ' req/s'),
    goal: '≥ 0.8×, p99 < 20 ms at 500 req/s on a quiet machine',
    met: (r) => both(atLeast(v(r, 'intake.ratio'), 0.8), below(v(r, 'intake.github.p99_ms_at_500rps'), 20)),
  },
  {
    figure: 'deliveries/s, PostgreSQL vs SQLite, 1 replica',
    now: (r) =>
      all(
        fmt(v(r, 'replicas.postgres_1_over_sqlite_1.ratio'), '×'),
        fmt(v(r, 'replicas.postgres_1.deliveries_per_s'), '/s'),
      ),
    baseline: (r) => fmt(v(r, 'replicas.sqlite_1.deliveries_per_s'), '/s SQLite'),
    goal: '≥ 0.5×',
    met: (r) => atLeast(v(r, 'replicas.postgres_1_over_sqlite_1.ratio'), 0.5),
  },
  {
    // The rate of 2 replicas over 1 (once ≥ 1.6×) is bounded by a 2-core host's own CPU: it cannot be
    // shown here. What a bigger host keeps is what a delivery costs with a second replica beside it.
    figure: 'CPU per delivery, 2 replicas round robin over 1',
    now: (r) =>
      all(
        fmt(v(r, 'replicas.cpu_per_delivery_ratio'), '×'),
        fmt(v(r, 'replicas.postgres_2_round_robin_over_postgres_1.ratio'), '× the rate'),
        fmt(v(r, 'replicas.postgres_2_doubled_over_postgres_1.ratio'), '× doubled'),
        fmt(v(r, 'replicas.postgres_2_round_robin.statements_per_delivery'), ' statements per delivery'),
        fmt(v(r, 'replicas.postgres_2_round_robin.host_cpu_busy'), ' of the host busy'),
        coresPerReplica(v(r, 'replicas.postgres_2_round_robin.host_cores')),
      ),
    baseline: (r) =>
      all(
        fmt(v(r, 'replicas.postgres_1.bot_cpu_per_delivery_ms'), ' ms CPU per delivery, 1 replica'),
        fmt(v(r, 'replicas.postgres_1.statements_per_delivery'), ' statements per delivery'),
      ),
    goal: '≤ 1.1× (the doubled case stays correct)',
    met: (r) => atMost(v(r, 'replicas.cpu_per_delivery_ratio'), 1.1),
  },
  runnersRow('in_process'),
  runnersRow('postgres'),
  {
    // Issue 37's row: conflicts go back to the session that wrote the work.
    figure: 'merge conflicts, 3 conflicting pairs: issues redone from scratch, attempts per issue',
    now: (r) =>
      all(
        fmt(v(r, 'conflicts.redone_from_scratch'), ' redone'),
        fmt(v(r, 'conflicts.attempts_per_issue'), ' attempts per issue'),
        fmt(v(r, 'conflicts.resumed_sessions'), ' sessions resumed'),
        fmt(v(r, 'conflicts.refused_merge_resumes'), ' after a refused merge'),
      ),
    baseline: (r) =>
      all(
        fmt(v(r, 'conflicts.baseline.redone_from_scratch'), ' redone'),
        fmt(v(r, 'conflicts.baseline.attempts_per_issue'), ' attempts per issue'),
        'sessions that cannot resolve',
      ),
    goal: '0 redone, ≤ 1.3 attempts per issue',
    met: (r) =>
      both(
        atMost(v(r, 'conflicts.redone_from_scratch'), 0),
        atMost(v(r, 'conflicts.attempts_per_issue'), 1.3),
      ),
  },
  {
    figure: 'runner: job start → agent spawned vs `git worktree add`',
    now: (r) =>
      all(
        fmt(v(r, 'runner.spawn_over_baseline.ratio'), '×'),
        fmt(v(r, 'runner.spawn.median_ms'), ' ms'),
        fmt(v(r, 'runner.spawn_minus_baseline.median_ms'), ' ms added'),
        fmt(v(r, 'runner.spawn_fetching_over_baseline.ratio'), '× for a job that fetches'),
      ),
    baseline: (r) => fmt(v(r, 'runner.baseline_worktree.median_ms'), ' ms worktree add'),
    goal: '≤ 1.5×',
    met: (r) => atMost(v(r, 'runner.spawn_over_baseline.ratio'), 1.5),
  },
  {
    figure: 'supervision tick CPU per live worker',
    now: (r) =>
      all(
        fmt(v(r, 'runner.tick_cpu_ms_per_worker'), ' ms'),
        fmt(v(r, 'runner.first_tick_cpu_ms_per_worker'), ' ms first tick after a restart'),
      ),
    baseline: (r) => fmt(v(r, 'runner.tick_baseline_cpu_ms_per_worker'), ' ms liveness + log stat alone'),
    goal: '≤ 20 ms',
    met: (r) => atMost(v(r, 'runner.tick_cpu_ms_per_worker'), 20),
  },
  {
    figure: 'planner, 10k issues / 30k edges, full pass',
    now: (r) =>
      all(
        fmt(v(r, 'plan.full.median_ms'), ' ms wall'),
        fmt(v(r, 'plan.full.cpu_median_ms'), ' ms CPU'),
        fmt(v(r, 'plan.full.ratio_to_baseline'), '×'),
        fmt(v(r, 'plan.full.cpu_ratio_to_baseline'), '× by CPU'),
      ),
    baseline: (r) =>
      all(
        fmt(v(r, 'plan.baseline_adjacency.median_ms'), ' ms wall'),
        fmt(v(r, 'plan.baseline_adjacency.cpu_median_ms'), ' ms CPU bare adjacency build'),
      ),
    goal: '< 50 ms, ≤ 2.5×',
    // Wall time on a busy host mostly measures the neighbours: the goal read by CPU is shown beside it.
    met: (r) => {
      const wall = both(
        atMost(v(r, 'plan.full.median_ms'), 49.999),
        atMost(v(r, 'plan.full.ratio_to_baseline'), 2.5),
      );
      const cpu = both(
        atMost(v(r, 'plan.full.cpu_median_ms'), 49.999),
        atMost(v(r, 'plan.full.cpu_ratio_to_baseline'), 2.5),
      );
      return wall === undefined || cpu === undefined
        ? undefined
        : `${wall ? 'yes' : 'no'} (by CPU: ${cpu ? 'yes' : 'no'})`;
    },
  },
  {
    figure: 'scale: makespan over the ideal list schedule, 10 × 100 (1 × 20)',
    now: (r) =>
      all(
        fmt(v(r, 'scale.makespan_ratio'), '×'),
        fmt(v(r, 'scale.wall_s'), ' s'),
        fmt(v(r, 'scale.small_makespan_ratio'), '× small'),
      ),
    baseline: (r) =>
      all(fmt(v(r, 'scale.ideal_s'), ' s ideal'), fmt(v(r, 'scale.small_ideal_s'), ' s small')),
    goal: '≤ 1.15×',
    met: (r) =>
      both(atMost(v(r, 'scale.makespan_ratio'), 1.15), atMost(v(r, 'scale.small_makespan_ratio'), 1.15)),
  },
  {
    figure: 'scale: GitHub requests per merged issue, 10 × 100 with red CI, reviews and a kill -9',
    now: (r) =>
      all(
        fmt(v(r, 'scale.requests_per_merged_issue')),
        fmt(v(r, 'scale.rate_limited_requests_per_merged_issue'), ' counted'),
        fmt(v(r, 'scale.merged_issues'), ' merged'),
      ),
    baseline: () => 'forge.github.cached (the happy 7-issue run)',
    goal: '≤ 8, ≤ 6 counted against the rate limit',
    met: (r) =>
      both(
        atMost(v(r, 'scale.requests_per_merged_issue'), 8),
        atMost(v(r, 'scale.rate_limited_requests_per_merged_issue'), 6),
      ),
  },
  {
    figure: 'scale: the bot’s peak RSS, CPU and reconcile p99, 10 × 100',
    now: (r) =>
      all(
        fmt(v(r, 'scale.rss_peak_mb'), ' MB'),
        fmt(v(r, 'scale.bot_cpu_ms_per_merged_issue'), ' ms CPU per merged issue'),
        fmt(v(r, 'scale.reconcile_pass_p99_ms'), ' ms reconcile p99'),
        fmt(v(r, 'scale.dashboard_edits_per_issue'), ' dashboard edits per issue'),
      ),
    baseline: (r) => fmt(v(r, 'scale.small_rss_peak_mb'), ' MB small'),
    goal: '≤ 400 MB',
    met: (r) => atMost(v(r, 'scale.rss_peak_mb'), 400),
  },
];

const cell = (s: string | undefined) => (s ?? 'not run').replaceAll('|', '\\|');

/** The issue's table as Markdown, from this run's figures. */
export const issue19Table = (results: Results): string => {
  const lines = [
    '| figure | now | baseline (same run) | goal | met |',
    '|---|---|---|---|---|',
    ...issue19Rows.map((row) => {
      const met = row.now(results) === undefined ? undefined : row.met(results);
      const said = met === undefined ? '–' : typeof met === 'string' ? met : met ? 'yes' : 'no';
      return `| ${row.figure} | ${cell(row.now(results))} | ${cell(row.baseline(results))} | ${row.goal} | ${said} |`;
    }),
  ];
  return lines.join('\n');
};
