// Slow for a reason: a whole milestone blitzed to the end on each forge, on real git.
// Acceptance: one signed `/blitz M1` drives a milestone to the end on the contract-checked fake
// forge (GitHub and Gitea), a real bare origin and fake agents that really commit and push.
// Milestone: a chain 1 → 2 → 3, a diamond 3 → {4, 5} → 6, an epic (#7) whose children are 4 and 5,
// and #8 blocked by an issue that does not exist (a dependency edge, and `Blocked by #99` in its body).
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { dashboardMarker } from '../../src/dashboard/render.ts';
import { reviewMarkerTag } from '../../src/review/index.ts';
import type { RunnerEvent } from '../../src/runner/types.ts';
import { type BlitzHarness, startBlitzHarness } from '../support/blitz-harness.ts';
import type { SeedIssue } from '../support/world.ts';

const milestone: SeedIssue[] = [
  { number: 1, title: 'Chain A: the data model', body: 'Add `src/a.ts`.' },
  { number: 2, title: 'Chain B: the store', body: 'Add `src/b.ts`.', blockedBy: [1] },
  { number: 3, title: 'Chain C: the API', body: 'Add `src/c.ts`.', blockedBy: [2] },
  { number: 4, title: 'Diamond left: list view', body: 'Add `src/d.ts`.', blockedBy: [3] },
  { number: 5, title: 'Diamond right: detail view', body: 'Add `src/e.ts`.', blockedBy: [3] },
  { number: 6, title: 'Diamond bottom: navigation', body: 'Add `src/f.ts`.', blockedBy: [4, 5] },
  { number: 7, title: 'Epic: the views', body: '- [ ] #4\n- [ ] #5', blockedBy: [4, 5] },
  {
    number: 8,
    title: 'Needs the ghost',
    body: 'Add `src/g.ts`.\n\nBlocked by #99',
    blockedBy: ['acme/app#99'],
  },
];
const workable = [1, 2, 3, 4, 5, 6];
/**
 * Gitea leaves out of a dependency list the blockers that do not exist or cannot be read, so there
 * only the body's `Blocked by #99` reveals it; on both forges the run fails closed on it.
 */
const blockersOf = new Map(
  milestone.map((i) => [i.number!, (i.blockedBy ?? []).filter((b) => typeof b === 'number')]),
);

let h: BlitzHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Spawns seen by the runner, with the blockers that were still open in the tracker at that moment. */
const spawnWatcher = () => {
  const spawned: number[] = [];
  const violations: string[] = [];
  let harness: BlitzHarness | undefined;
  const onRunnerEvent = (e: RunnerEvent) => {
    if (e.type !== 'attempt.started' || !harness) return;
    void harness.bot.runs.ledger.get(e.attemptId).then((a) => {
      if (!a || !harness) return;
      const n = a.issue.number;
      spawned.push(n);
      for (const b of blockersOf.get(n) ?? [])
        if (harness.world.issue(harness.repo, b as number)?.state !== 'closed')
          violations.push(`#${n} started while #${b} was open`);
    });
  };
  return { spawned, violations, onRunnerEvent, attach: (x: BlitzHarness) => (harness = x) };
};

const finished = (x: BlitzHarness) => async () => {
  const run = await x.liveRun();
  const open = await x.bot.runs.ledger.listOpen();
  return run !== undefined && ['done', 'blocked'].includes(run.state) && open.length === 0;
};

const expectMilestoneFinished = async (x: BlitzHarness) => {
  const { world, repo } = x;
  const worked = workable;
  for (const n of worked) {
    expect(world.issue(repo, n)?.state, `#${n}`).toBe('closed');
    expect(world.count('close', 'acme/app', n), `#${n} closed once`).toBe(1);
  }
  // The epic closes after its children, once.
  expect(world.count('close', 'acme/app', 7)).toBe(1);
  const closeAt = (n: number) => world.log.findIndex((e) => e.action === 'close' && e.target === n);
  expect(closeAt(7)).toBeGreaterThan(closeAt(4));
  expect(closeAt(7)).toBeGreaterThan(closeAt(5));
  const comments = world.commentsOn(repo, x.trigger);
  if (process.env.BLITZ_DEBUG) console.log(comments.map((c) => c.body).join('\n-----\n'));
  const run = (await x.liveRun())!;
  // The issue with the unknown blocker is reported once and left open; the run stops blocked on it.
  expect(world.issue(repo, 8)?.state).toBe('open');
  expect(
    comments.filter((c) => c.body.startsWith('blitz: #8 is blocked by') && c.body.includes('fail closed')),
  ).toHaveLength(1);
  expect(run.state).toBe('blocked');
  expect(comments.some((c) => c.body.includes('BLOCKED') && c.body.includes('#8'))).toBe(true);
  // A redelivered `/blitz M1` is the same delivery: it is not answered a second time.
  expect(comments.filter((c) => c.body.includes('already running'))).toHaveLength(0);
  // One dashboard comment, edited in place, never duplicated.
  const dashboards = comments.filter((c) => c.body.includes(dashboardMarker(run.id)));
  expect(dashboards).toHaveLength(1);
  expect(world.count('edit_comment', 'acme/app', x.trigger)).toBeGreaterThan(0);
  expect(dashboards[0]!.body).toContain('#8');
  // The graph the dashboard drew is kept in the run, so the status page can draw it after a restart.
  const graph = new Map((run.progress.graph ?? []).map((g) => [g.number, g]));
  for (const n of worked) expect(graph.get(n)?.state, `#${n} in the kept graph`).toBe('closed');
  expect(graph.get(7)?.epic).toBe(true);
  expect(graph.get(8)?.state).not.toBe('closed');
  // Each issue got one worker: no double dispatch, whatever was delivered twice.
  const attempts = await x.bot.runs.ledger.listByRun(run.id);
  const perIssue = new Map<number, number>();
  for (const a of attempts) perIssue.set(a.issue.number, (perIssue.get(a.issue.number) ?? 0) + 1);
  expect(Object.fromEntries(perIssue)).toEqual(Object.fromEntries(worked.map((n) => [n, 1])));
  // Every merged PR went into the integration branch, which now holds every worker's file.
  const files = await x.origin.git.ok(['ls-tree', '-r', '--name-only', 'blitz/m1']);
  for (const n of worked) expect(files).toContain(`fake-${n}.txt`);
  // Each merged issue's branch left origin once its issue closed (issue 18), by a git push: the
  // forge's API was never asked to delete one (issue 19: one request per merged issue saved).
  const prs = [...repo.issues.values()].filter((i) => i.pull?.base === 'blitz/m1');
  expect(prs.length).toBeGreaterThanOrEqual(worked.length);
  for (const pr of prs) expect(await x.origin.git.resolve(pr.pull!.head), pr.pull!.head).toBeUndefined();
  const requests: { method: string }[] = x.fakeGithub?.requests ?? x.fakeGitea?.requests ?? [];
  expect(requests.filter((r) => r.method === 'DELETE')).toEqual([]);
  // Each close names the merge commit that brought the issue's PR in (Gitea's merge answer names none:
  // it is found in git, not read back from the forge).
  for (const n of worked) {
    const pr = prs.find((p) => p.pull!.merged && p.pull!.head.startsWith(`m1/${n}-`));
    expect(pr, `#${n} merged PR`).toBeDefined();
    const named = world
      .commentsOn(repo, n)
      .map((c) => /by merge commit ([0-9a-f]{40})/.exec(c.body)?.[1])
      .find((sha) => sha !== undefined);
    expect(named, `#${n} close comment`).toBe(pr!.pull!.mergeCommitSha);
    expect(await x.origin.git.ok(['show', '-s', '--format=%P', named!])).toContain(pr!.pull!.headSha);
  }
};

describe.each(['github', 'gitea'] as const)('blitz end to end on %s', (forge) => {
  it('drives the milestone: edges respected, webhooks twice change nothing, each issue closed once, epic after its children', async () => {
    const watch = spawnWatcher();
    h = await startBlitzHarness({
      forge,
      issues: milestone,
      deliverTwice: true,
      review: true,
      onRunnerEvent: watch.onRunnerEvent,
    });
    watch.attach(h);
    await h.comment('/blitz M1', 'alice');
    await h.drive(finished(h));
    expect(watch.violations).toEqual([]);
    expect([...watch.spawned].sort()).toEqual(workable);
    await expectMilestoneFinished(h);
    // Each issue PR got one advisory review comment from the review leg, and the dashboard does not say it was skipped.
    const prs = [...h.repo.issues.values()].filter((i) => i.pull?.base === 'blitz/m1');
    for (const pr of prs)
      expect(
        h.world.commentsOn(h.repo, pr.number).filter((c) => c.body.includes(reviewMarkerTag)),
      ).toHaveLength(1);
    const dashboard = h.world.commentsOn(h.repo, h.trigger).find((c) => c.body.includes('blitz-dashboard'))!;
    expect(dashboard.body).not.toContain('review legs');
    // The dependency handoff: #6 started after #4 and #5 merged, and its prompt names, for each, the
    // title, the merge commit and the file it added (the runner's diffstat); #1 had nothing to hand off.
    const attempts = await h.bot.runs.ledger.listByRun((await h.liveRun())!.id);
    const promptOf = (n: number) =>
      readFileSync(attempts.find((a) => a.issue.number === n)!.promptPath, 'utf8');
    const six = promptOf(6);
    for (const n of [4, 5]) {
      const pr = prs.find((p) => p.pull!.merged && p.pull!.head.startsWith(`m1/${n}-`))!;
      expect(six).toContain(`#${n} ${milestone[n - 1]!.title}\nmerged as ${pr.pull!.mergeCommitSha}`);
      expect(six).toMatch(new RegExp(`fake-${n}\\.txt +\\| +1 \\+`));
    }
    expect(six).not.toContain('Chain C: the API');
    expect(promptOf(1)).not.toContain('already merged into');
  }, 240_000);

  it('a bot killed mid-run (workers left running) and started again over the same files finishes the same way', async () => {
    const watch = spawnWatcher();
    h = await startBlitzHarness({
      forge,
      issues: milestone,
      onRunnerEvent: watch.onRunnerEvent,
      agentEnv: { FAKE_AGENT_MODE: 'slow-push', FAKE_AGENT_DELAY_MS: '1500' },
    });
    watch.attach(h);
    await h.comment('/blitz M1', 'alice');
    const x = h;
    await x.drive(async () => {
      const closed = workable.filter((n) => x.world.issue(x.repo, n)?.state === 'closed').length;
      return closed >= 2 && (await x.bot.runs.ledger.listOpen()).length > 0;
    });
    const livePids = (await x.bot.runs.ledger.listOpen()).map((a) => a.pid);
    expect(livePids.length).toBeGreaterThan(0);
    await x.restart();
    await x.drive(finished(x));
    expect(watch.violations).toEqual([]);
    await expectMilestoneFinished(x);
  }, 240_000);

  it('a `/blitz M1` from a read-only user starts nothing and gets one refusal', async () => {
    h = await startBlitzHarness({ forge, issues: milestone.slice(0, 2), deliverTwice: true });
    await h.comment('/blitz M1', 'rita');
    await h.round();
    expect(await h.bot.runs.listRuns()).toEqual([]);
    expect(h.world.count('create_branch')).toBe(0);
    expect(h.world.count('open_pull')).toBe(0);
    const bot = h.world.commentsOn(h.repo, h.trigger).filter((c) => c.author === h!.world.botLogin);
    expect(bot).toHaveLength(1);
    expect(bot[0]!.body).toContain('@rita');
  }, 60_000);
});
