// Every forge request of a whole milestone run, GitHub and Gitea, counted from the contract-checked
// fake's request log and broken down per endpoint (method + route template) and per purpose (load,
// dashboard, clone credentials, PR, merge …), with requests per merged issue beside the goal. Each
// forge runs the same milestone twice in the same process: with the adapter's request caches off
// (the baseline: every read goes to the forge) and on (ETags, clone credentials kept, milestone
// reload skipped while nothing changed). Clone credentials come from the forge, as in the composed
// bot (the runner asks before every git operation), not from the harness. The repository has CI (a fake
// CI runs its test script on every pushed head and reports a check run or a commit status, as the
// forge's own CI would, not through the API), so the PR feedback loop's check and review reads and the
// bot's own `blitz` check are counted too.
import { appendFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultDashboardIntervalMs } from '../src/dashboard/coalescer.ts';
import type { ForgeKind } from '../src/forges/types.ts';
import { startBlitzHarness } from '../test/support/blitz-harness.ts';
import { OpenApiContract } from '../test/support/contract/openapi.ts';
import { SwaggerContract } from '../test/support/contract/swagger.ts';
import { startFakeCi } from '../test/support/fake-ci.ts';
import type { SeedIssue } from '../test/support/world.ts';
import { checksOf } from '../test/support/world-checks.ts';
import { type Bench, type Figure, round } from './figures.ts';

/** Goals per merged issue: all requests, and those that count against the rate limit (not 304). */
export const goals = {
  github: { total: 12, counted: 8 },
  // Gitea has no API rate limit by default; the goal is load on a self-hosted server, the same 12.
  gitea: { total: 12, counted: 12 },
} as const;

const milestone: SeedIssue[] = [
  { number: 1, title: 'a', body: 'a' },
  { number: 2, title: 'b', body: 'b', blockedBy: [1] },
  { number: 3, title: 'c', body: 'c', blockedBy: [2] },
  { number: 4, title: 'd', body: 'd', blockedBy: [3] },
  { number: 5, title: 'e', body: 'e', blockedBy: [3] },
  { number: 6, title: 'f', body: 'f', blockedBy: [4, 5] },
  { number: 7, title: 'Epic: g', body: '- [ ] #4', blockedBy: [4, 5] },
];

/** What a request was for, by operation (GitHub operationId / Gitea operationId / GraphQL query name). */
const purposes: Record<string, string> = {
  // GitHub
  'graphql MilestoneIssues': 'load',
  'graphql IssueStates': 'load',
  'graphql PullFeedback': 'PR feedback: PR, checks and reviews',
  'graphql CloseIssueWithComment': 'close (with its comment)',
  'graphql OpenPullRequestWithCheck': 'PR (opened with its blitz check)',
  'graphql MergePullRequestWithCheck': 'merge (with its blitz check)',
  'issues/get-milestone': 'load',
  'issues/list-milestones': 'load',
  'issues/list-for-repo': 'load',
  'issues/list-dependencies-blocked-by': 'load',
  'repos/get': 'clone credentials / default branch',
  'repos/get-content': 'config',
  'repos/get-collaborator-permission-level': 'permission',
  'issues/list-comments': 'dashboard',
  'issues/update-comment': 'dashboard',
  'issues/create-comment': 'comment',
  'reactions/create-for-issue-comment': 'command ack',
  'pulls/create': 'PR',
  'pulls/get': 'PR',
  'pulls/list': 'PR',
  'pulls/update-branch': 'PR',
  'pulls/list-files': 'review',
  'pulls/merge': 'merge',
  'issues/get': 'issue read',
  'issues/update': 'close',
  'issues/create': 'issue create',
  'issues/add-labels': 'labels',
  'issues/remove-label': 'labels',
  'git/get-ref': 'branch',
  'git/create-ref': 'branch',
  'git/delete-ref': 'branch',
  'checks/list-for-ref': 'PR feedback: checks',
  'repos/get-combined-status-for-ref': 'PR feedback: checks',
  'checks/list-annotations': 'PR feedback: checks',
  'actions/download-job-logs-for-workflow-run': 'PR feedback: checks',
  'pulls/list-reviews': 'PR feedback: reviews',
  'pulls/list-review-comments': 'PR feedback: reviews',
  'pulls/create-reply-for-review-comment': 'PR feedback: reviews',
  'checks/create': 'blitz check',
  'checks/update': 'blitz check',
  // Gitea
  issueGetMilestone: 'load',
  issueGetMilestonesList: 'load',
  issueListIssues: 'load',
  issueListIssueDependencies: 'load',
  repoGet: 'clone credentials / default branch',
  repoGetContents: 'config',
  repoGetRawFile: 'config',
  repoGetRepoPermissions: 'permission',
  issueGetComments: 'dashboard',
  issueEditComment: 'dashboard',
  issueCreateComment: 'comment',
  issuePostCommentReaction: 'command ack',
  repoCreatePullRequest: 'PR',
  repoGetPullRequest: 'PR',
  repoListPullRequests: 'PR',
  repoUpdatePullRequest: 'PR',
  repoGetPullRequestFiles: 'review',
  repoGetPullRequestCommits: 'review',
  repoDownloadPullDiffOrPatch: 'review',
  repoMergePullRequest: 'merge',
  issueGetIssue: 'issue read',
  issueEditIssue: 'close',
  issueCreateIssue: 'issue create',
  issueAddLabel: 'labels',
  issueRemoveLabel: 'labels',
  issueListLabels: 'labels',
  repoGetBranch: 'branch',
  repoCreateBranch: 'branch',
  repoDeleteBranch: 'branch',
  userGetCurrent: 'identity',
  repoGetCombinedStatusByRef: 'PR feedback: checks',
  repoListStatusesByRef: 'PR feedback: checks',
  repoListPullReviews: 'PR feedback: reviews',
  repoGetPullReviewComments: 'PR feedback: reviews',
  repoCreatePullReviewComment: 'PR feedback: reviews',
  repoCreateStatus: 'blitz check',
};

interface Counted {
  method: string;
  path: string;
  query?: Record<string, string>;
  operationId?: string;
  status: number;
  body?: unknown;
}

const here = dirname(fileURLToPath(import.meta.url));
const githubDoc = () =>
  OpenApiContract.fromFile(
    createRequire(import.meta.url).resolve('@octokit/openapi/generated/api.github.com.json'),
  );
const giteaDoc = () => SwaggerContract.fromFile(join(here, '../test/contracts/gitea-swagger-v1.22.json'));

/** `METHOD /route/{template}` and the operation key the purposes table uses. */
const classify = (kind: ForgeKind, r: Counted): { endpoint: string; op: string } => {
  if (kind === 'github') {
    if (r.path.endsWith('/graphql')) {
      const q = String((r.body as { query?: unknown } | undefined)?.query ?? '');
      const name = /^\s*(?:query|mutation)\s+(\w+)/.exec(q)?.[1] ?? 'anonymous';
      return { endpoint: `POST /graphql ${name}`, op: `graphql ${name}` };
    }
    const m = githubDoc().match(r.method, r.path.replace(/^\/api\/v3/, ''));
    return { endpoint: `${r.method} ${m?.operation.template ?? r.path}`, op: r.operationId ?? r.path };
  }
  const m = giteaDoc().match(r.method, r.path.replace(/^\/api\/v1/, ''));
  return { endpoint: `${r.method} ${m?.operation.template ?? r.path}`, op: r.operationId ?? r.path };
};

const tally = (kind: ForgeKind, requests: Counted[]) => {
  const byEndpoint = new Map<string, { all: number; notModified: number }>();
  const byPurpose = new Map<string, { all: number; notModified: number }>();
  for (const r of requests) {
    const { endpoint, op } = classify(kind, r);
    // The bot looks up its own check run by name before it creates or updates it.
    const purpose =
      op === 'checks/list-for-ref' && r.query?.check_name ? 'blitz check' : (purposes[op] ?? `other (${op})`);
    for (const [map, key] of [
      [byEndpoint, endpoint],
      [byPurpose, purpose],
    ] as const) {
      const row = map.get(key) ?? { all: 0, notModified: 0 };
      row.all += 1;
      if (r.status === 304) row.notModified += 1;
      map.set(key, row);
    }
  }
  return { byEndpoint, byPurpose };
};

const runMilestone = async (kind: ForgeKind, requestCache: boolean) => {
  const h = await startBlitzHarness({
    forge: kind,
    issues: milestone,
    credentialsFromForge: true,
    requestCache,
    // The composed bot's default interval (time is real here, so a short run edits seldom).
    dashboardIntervalMs: defaultDashboardIntervalMs,
    // CI on every head, always green; merges wait for it.
    files: {
      'test.sh': 'echo all tests passed\n',
      [kind === 'github' ? '.github/blitz.yml' : '.gitea/blitz.yml']: 'ci:\n  wait: always\n',
    },
  });
  // Every pushed branch: a worker pushes its branch before the bot opens its PR.
  const ci = await startFakeCi({
    world: h.world,
    repo: h.repo,
    bareDir: h.origin.bareDir,
    forge: kind,
    allBranches: true,
  });
  try {
    await h.comment('/blitz M1');
    // Real worker processes on a busy machine: give the whole run time (it is counted, not timed).
    await h.drive(async () => {
      const run = await h.liveRun();
      return (
        !!run && ['done', 'blocked'].includes(run.state) && (await h.bot.runs.ledger.listOpen()).length === 0
      );
    }, 900_000);
    // Issues merged into the run's integration branch (the milestone PR into the default branch is a
    // person's to merge, and would not be an issue anyway).
    const merged = h.world.log.filter(
      (e) =>
        e.action === 'merge' &&
        e.target !== undefined &&
        h.repo.issues.get(e.target)?.pull?.base !== h.repo.defaultBranch,
    ).length;
    const requests: Counted[] = [...(h.fakeGithub?.requests ?? h.fakeGitea?.requests ?? [])];
    return { merged, requests };
  } finally {
    await ci.close();
    await h.close();
    await checksOf(h.world).close();
  }
};

const print = (title: string, rows: Map<string, { all: number; notModified: number }>) => {
  console.log(`  ${title}`);
  for (const [key, v] of [...rows].sort((a, b) => b[1].all - a[1].all))
    console.log(`    ${String(v.all).padStart(4)} ${v.notModified ? `(${v.notModified} × 304) ` : ''}${key}`);
};

const bench: Bench = async () => {
  const forges = (process.env.BLITZ_BENCH_FORGES ?? 'github,gitea').split(',') as ForgeKind[];
  const figures: Figure[] = [];
  for (const kind of forges) {
    const modes = (process.env.BLITZ_BENCH_CACHE ?? 'off,on').split(',').map((m) => m === 'on');
    for (const cached of modes) {
      const { merged, requests } = await runMilestone(kind, cached);
      const label = cached ? 'cached' : 'baseline';
      const notModified = requests.filter((r) => r.status === 304).length;
      const counted = requests.length - notModified;
      const { byEndpoint, byPurpose } = tally(kind, requests);
      console.log(
        `## ${kind} ${label}: ${requests.length} requests (${notModified} × 304) for ${merged} merged issues`,
      );
      print('per purpose', byPurpose);
      print('per endpoint', byEndpoint);
      // BLITZ_BENCH_SEQUENCE=<file>: every request in order (method, path, status), to read one run closely.
      if (process.env.BLITZ_BENCH_SEQUENCE)
        await appendFile(
          process.env.BLITZ_BENCH_SEQUENCE,
          `## ${kind} ${label}\n${requests.map((r) => `${r.status} ${classify(kind, r).endpoint} ${r.path}`).join('\n')}\n`,
        );
      const per = (n: number) => round(n / Math.max(1, merged), 1);
      figures.push(
        { name: `forge.${kind}.${label}.requests_whole_run`, value: requests.length, unit: 'requests' },
        { name: `forge.${kind}.${label}.merged_issues`, value: merged, unit: 'issues' },
        {
          name: `forge.${kind}.${label}.requests_per_merged_issue`,
          value: per(requests.length),
          unit: 'requests',
        },
        {
          name: `forge.${kind}.${label}.rate_limited_requests_per_merged_issue`,
          value: per(counted),
          unit: 'requests',
        },
      );
      if (cached)
        figures.push(
          {
            name: `forge.${kind}.goal.requests_per_merged_issue`,
            value: goals[kind].total,
            unit: 'requests',
          },
          {
            name: `forge.${kind}.goal.rate_limited_requests_per_merged_issue`,
            value: goals[kind].counted,
            unit: 'requests',
          },
        );
    }
  }
  return figures;
};

export default bench;
