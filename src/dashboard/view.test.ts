import { describe, expect, it } from 'vitest';
import { priceTableOf } from '../plan/cost.ts';
import type { RunSnapshot } from '../plan/snapshot.ts';
import type { PlanIssue } from '../plan/types.ts';
import type { RunRecord } from '../store/run-store.ts';
import { renderDashboard } from './render.ts';
import { dashboardView } from './view.ts';

const issue = (number: number, over: Partial<PlanIssue> = {}): PlanIssue => ({
  repo: 'acme/app',
  number,
  title: `issue ${number}`,
  body: '',
  labels: [],
  state: 'open',
  authorTrusted: true,
  createdAt: '2026-01-01T00:00:00Z',
  blockedBy: [],
  children: [],
  ...over,
});

const run = {
  id: 'r1',
  repo: 'acme/app',
  milestoneTitle: 'M1',
  state: 'running',
  integrationBranch: 'blitz/m1',
  progress: {},
} as RunRecord;

const snap = (issues: PlanIssue[], external: RunSnapshot['external'] = []): RunSnapshot =>
  ({ issues, external, progress: [], options: { maxSessions: 2, dryRun: false } }) as unknown as RunSnapshot;

describe('dashboard view', () => {
  it('an issue blocked by a blocker nobody can read shows as blocked, not ready, and is listed as a blocker', () => {
    const v = dashboardView({
      run,
      snap: snap([issue(8, { blockedBy: ['other/x#99'] })], [{ key: 'other/x#99', state: 'unknown' }]),
      attempts: [],
      actions: [{ type: 'report_unknown_blocker', blocker: 'other/x#99', namedBy: ['acme/app#8'] }],
      closed: [],
      reviewAvailable: true,
      lapsedApprovals: new Set(),
    });
    expect(v.issues[0]!.state).toBe('blocked');
    expect(v.blockers).toEqual([{ kind: 'unknown_blocker', issue: 8, blocker: 'other/x#99' }]);
  });

  it('marks an issue a person skipped as skipped', () => {
    const s = snap([issue(4), issue(5)]);
    (s as { progress: unknown[] }).progress = [
      {
        key: 'acme/app#4',
        state: 'failed',
        attempts: [],
        skipped: true,
        branchPushed: false,
        reviewPosted: false,
      },
    ];
    const v = dashboardView({
      run,
      snap: s,
      attempts: [],
      actions: [],
      closed: [],
      reviewAvailable: true,
      lapsedApprovals: new Set(),
    });
    expect(v.issues.map((i) => [i.number, i.skipped ?? false])).toEqual([
      [4, true],
      [5, false],
    ]);
  });

  it('marks an issue the planner holds for a person (its failed or needs_person notice) as needing one', () => {
    const v = dashboardView({
      run,
      snap: snap([issue(4), issue(5), issue(6)]),
      attempts: [],
      actions: [
        { type: 'issue_notice', event: 'needs_person', issue: 'acme/app#4', key: 'k4', message: 'stalled' },
        { type: 'issue_notice', event: 'failed', issue: 'acme/app#5', key: 'k5', message: 'failed' },
        { type: 'issue_notice', event: 'needs_person', key: 'probe', message: 'the budget probe failed' },
      ],
      closed: [],
      reviewAvailable: true,
      lapsedApprovals: new Set(),
    });
    expect(v.issues.map((i) => [i.number, i.needsPerson ?? false])).toEqual([
      [4, true],
      [5, true],
      [6, false],
    ]);
  });

  it('lists untrusted issues as awaiting approval until the label is there', () => {
    const untrusted = issue(2, { authorTrusted: false });
    const approved = issue(3, { authorTrusted: false, labels: [{ name: 'blitz/approved' }] });
    const v = dashboardView({
      run,
      snap: snap([untrusted, approved]),
      attempts: [],
      actions: [],
      closed: [],
      reviewAvailable: true,
      lapsedApprovals: new Set(),
    });
    expect(v.awaitingApproval).toEqual([{ number: 2, title: 'issue 2' }]);
    expect(v.issues.find((i) => i.number === 2)!.state).toBe('held');
    expect(v.issues.find((i) => i.number === 3)!.state).toBe('ready');
  });

  it('says review legs are missing when no review module is wired, and keeps closed epics on the table', () => {
    const v = dashboardView({
      run,
      snap: snap([]),
      attempts: [],
      actions: [],
      closed: [{ number: 7, title: 'Epic' }],
      reviewAvailable: false,
      lapsedApprovals: new Set(),
    });
    expect(v.readinessUnmet?.join('\n')).toMatch(/review legs: not available/);
    expect(v.readinessUnmet?.join('\n')).toMatch(/integration review: not available/);
    expect(v.issues).toEqual([expect.objectContaining({ number: 7, state: 'closed', epic: true })]);
  });

  it('says a PR got no review when its leg kept failing, and never that no reviewer was available', () => {
    const v = dashboardView({
      run: { ...run, progress: { reviewUnavailable: true } },
      snap: snap([]),
      attempts: [],
      actions: [],
      closed: [],
      reviewAvailable: true,
      lapsedApprovals: new Set(),
    });
    const unmet = v.readinessUnmet?.join('\n') ?? '';
    expect(unmet).toContain(
      'review legs: at least one PR got no review (its review leg kept failing); it merges without one',
    );
    expect(unmet).not.toMatch(/review legs: not available/);
  });
});

describe('dashboard view: gates and named states', () => {
  it('names a check with no command as not configured, and the state a run waits in with its command', () => {
    const s = {
      ...snap([issue(1)]),
      kind: 'blitz',
      build: { status: 'passed', covers: [], failures: 0 },
      buildConfigured: true,
      smoke: 'passed',
      smokeGate: { configured: false, failures: 0, maxFailures: 3 },
    } as RunSnapshot;
    const v = dashboardView({
      run: { ...run, state: 'review_unclear', progress: { reason: 'the integration review is unclear: x' } },
      snap: s,
      attempts: [],
      actions: [],
      closed: [],
      reviewAvailable: true,
      lapsedApprovals: new Set(),
    });
    expect(v.readinessUnmet).toContain('smoke: not configured (no `smoke:` command in blitz.yml)');
    expect(v.readinessUnmet?.some((l) => /green/.test(l))).toBe(false);
    expect(v.readinessUnmet).toContain(
      'waiting for a person (integration review unclear): the integration review is unclear: x → /blitz accept-review (or /blitz review to run it again)',
    );
  });
  it('a run blocked because its issue gave up tells the person to retry that issue, not to resume', () => {
    // Before: the dashboard said `→ /blitz resume`, which puts the run back only for the same stop.
    const reason = 'nothing can run: acme/app#3 is held: 3 attempts failed; a person has to look.';
    const v = dashboardView({
      run: { ...run, state: 'blocked', progress: { reason, continueWith: '/blitz retry #3' } },
      snap: snap([issue(3)]),
      attempts: [],
      actions: [],
      closed: [],
      reviewAvailable: true,
      lapsedApprovals: new Set(),
    });
    const text = renderDashboard(v);
    // Markdown-escaped as the comment carries it: `(`, `:` and `#` as entities.
    expect(text).toContain(
      '- waiting for a person &#40;blocked&#41;&#58; nothing can run&#58; acme/app&#35;3 is held&#58; 3 attempts failed; a person has to look. → /blitz retry &#35;3',
    );
    expect(text).not.toContain('/blitz resume');
  });
});

describe('dashboard view: cost in money', () => {
  const spent = (number: number, model: string, input: number, output: number) =>
    ({
      id: `a${number}-${model}`,
      issue: { repo: { owner: 'acme', name: 'app' }, number },
      rosterEntry: 'e',
      model,
      tokens: { input, output, cache: 0, cacheWrite: 0 },
      job: { title: `issue ${number}` },
    }) as unknown as Parameters<typeof dashboardView>[0]['attempts'][number];

  it("shows each issue's cost beside its tokens and the run's under the progress, an unpriced model as unknown price", () => {
    const v = dashboardView({
      run,
      snap: snap([issue(1), issue(2)]),
      // #1: 1M in × $2 + 100k out × $10 = $3.00; #2's model has no price.
      attempts: [spent(1, 'priced', 1_000_000, 100_000), spent(2, 'mystery', 10, 10)],
      actions: [],
      closed: [],
      reviewAvailable: true,
      lapsedApprovals: new Set(),
      prices: priceTableOf({ priced: { input: 2, output: 10 } }),
    });
    expect(v.issues.map((i) => i.cost)).toEqual(['$3.00', 'unknown price']);
    expect(v.cost).toBe('$3.00 + unknown price');
    // `$` is written as `&#36;`, which GitHub shows as `$` without reading a pair of them as math.
    const md = renderDashboard(v);
    expect(md).toContain('| 1 | 1.1M · &#36;3.00 |');
    expect(md).toContain('| 1 | 20 · unknown price |');
    expect(md).toContain('Cost so far: &#36;3.00 &#43; unknown price');
  });
});
