// The blitz loop, end to end on the fake GitHub with a real origin and fake agents:
// 1. dispatch latency: from a signed pull_request.closed(merged) delivery and the blocker's
//    issues.closed (GitHub sends both)
//    to the spawn of the worker for the issue it unblocked, median over 50, beside the runner's own
//    spawn time for one attempt measured in the same run (the part no orchestrator can save);
// 2. forge requests per merged issue over a whole 8-issue run (from the fake's request log).
import type { RunnerEvent } from '../src/runner/types.ts';
import { startBlitzHarness } from '../test/support/blitz-harness.ts';
import { fixture, githubExample, signedGithubRequest } from '../test/support/signing.ts';
import type { SeedIssue } from '../test/support/world.ts';
import type { Bench, Figure } from './figures.ts';
import { median, round } from './figures.ts';

const PAIRS = Number(process.env.BLITZ_BENCH_PAIRS ?? 50);

const latency = async (): Promise<Figure[]> => {
  // A_i: plain issues outside the milestone; B_i in the milestone, blocked by A_i.
  const issues: SeedIssue[] = [];
  for (let i = 1; i <= PAIRS; i++) issues.push({ number: i, title: `blocker ${i}`, milestone: undefined });
  for (let i = 1; i <= PAIRS; i++)
    issues.push({ number: PAIRS + i, title: `work ${i}`, body: `Add src/w${i}.ts`, blockedBy: [i] });
  const started = new Map<number, (t: number) => void>();
  const spawnTimes: number[] = [];
  let h: Awaited<ReturnType<typeof startBlitzHarness>> | undefined;
  const onRunnerEvent = (e: RunnerEvent) => {
    if (e.type !== 'attempt.started' || !h) return;
    const t = performance.now();
    void h.bot.runs.ledger.get(e.attemptId).then((a) => a && started.get(a.issue.number)?.(t));
  };
  h = await startBlitzHarness({
    forge: 'github',
    issues,
    maxSessions: PAIRS + 1,
    agentEnv: { FAKE_AGENT_MODE: 'stall' },
    onRunnerEvent,
  });
  const x = h;
  try {
    await x.comment('/blitz M1');
    await x.round();
    // Baseline: the runner alone starting one attempt (clone fetch, worktree, prompt, spawn).
    const run = (await x.liveRun())!;
    const samples: number[] = [];
    for (let i = 1; i <= PAIRS; i++) {
      const target = PAIRS + i;
      const spawned = new Promise<number>((resolve) => started.set(target, resolve));
      x.world.setIssueState(x.repo, x.world.issue(x.repo, i)!, 'closed', 'alice');
      const p = fixture('github', 'pull_request.closed.merged');
      const repo = p.repository as Record<string, unknown>;
      Object.assign(repo, {
        name: 'app',
        full_name: 'acme/app',
        owner: { ...(repo.owner as object), login: 'acme' },
      });
      delete p.installation;
      const req = signedGithubRequest({ secret: 'blitz-github-secret', event: 'pull_request', payload: p });
      // GitHub sends the blocker's own issues.closed beside the merged PR; the run learns from that one.
      const c = githubExample('issues', 'reopened');
      Object.assign(c, { action: 'closed', repository: p.repository });
      delete c.installation;
      Object.assign(c.issue as Record<string, unknown>, { number: i, state: 'closed' });
      const closed = signedGithubRequest({ secret: 'blitz-github-secret', event: 'issues', payload: c });
      const t0 = performance.now();
      await x.bot.post('/api/github/webhooks', req);
      await x.bot.post('/api/github/webhooks', closed);
      samples.push((await spawned) - t0);
      await x.bot.orch.idle();
    }
    const attempts = await x.bot.runs.ledger.listByRun(run.id);
    for (const a of attempts.slice(0, 5)) {
      const t0 = performance.now();
      await x.bot.runner.execute({
        ...a.job,
        runId: 'baseline',
        issue: { ...a.job.issue, number: 9000 + spawnTimes.length },
      });
      spawnTimes.push(performance.now() - t0);
    }
    // Stop the run first (as a person would), or it would dispatch again for the cancelled workers.
    await x.comment('/blitz cancel');
    await x.round();
    for (const a of await x.bot.runs.ledger.listOpen())
      await x.bot.runner.execute({ kind: 'cancel', attemptId: a.id });
    return [
      { name: 'blitz.dispatch_after_merge.median_ms', value: round(median(samples), 1), unit: 'ms' },
      { name: 'blitz.runner_spawn_alone.median_ms', value: round(median(spawnTimes), 1), unit: 'ms' },
      {
        name: 'blitz.dispatch_over_spawn.ratio',
        value: round(median(samples) / median(spawnTimes), 2),
        unit: 'x',
      },
    ];
  } finally {
    trace('closing latency harness');
    await x.close();
  }
};

const requestsPerIssue = async (): Promise<Figure[]> => {
  const milestone: SeedIssue[] = [
    { number: 1, title: 'a', body: 'a' },
    { number: 2, title: 'b', body: 'b', blockedBy: [1] },
    { number: 3, title: 'c', body: 'c', blockedBy: [2] },
    { number: 4, title: 'd', body: 'd', blockedBy: [3] },
    { number: 5, title: 'e', body: 'e', blockedBy: [3] },
    { number: 6, title: 'f', body: 'f', blockedBy: [4, 5] },
    { number: 7, title: 'Epic: g', body: '- [ ] #4', blockedBy: [4, 5] },
  ];
  const h = await startBlitzHarness({ forge: 'github', issues: milestone, dashboardIntervalMs: 0 });
  try {
    await h.comment('/blitz M1');
    await h.drive(async () => {
      const run = await h.liveRun();
      return (
        !!run && ['done', 'blocked'].includes(run.state) && (await h.bot.runs.ledger.listOpen()).length === 0
      );
    });
    const merged = h.world.count('merge') - 1; // the milestone PR into main is not an issue
    const total = h.fakeGithub!.requests.length;
    return [
      { name: 'blitz.forge_requests_per_merged_issue', value: round(total / merged, 1), unit: 'requests' },
      { name: 'blitz.forge_requests_whole_run', value: total, unit: 'requests' },
    ];
  } finally {
    await h.close();
  }
};

const trace = (what: string) => {
  if (process.env.BLITZ_DEBUG) console.error(`[blitz bench] ${what}`);
};

const bench: Bench = async () => {
  const first = await latency();
  trace('latency done');
  const second = await requestsPerIssue();
  trace('requests done');
  return [...first, ...second];
};

export default bench;
