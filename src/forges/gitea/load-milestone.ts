// Loading a milestone for the planner on Gitea: the open issues in pages, then the blocked-by list
// of each (Gitea has no batch dependency API, so this is one request per issue, run a few at a time).
// A dependency answer carries the blocker's repo and state, so blockers outside the milestone cost
// nothing extra. Gitea leaves out blockers that do not exist or the token cannot read, so blockers
// declared in an issue's body are merged in too, and one that cannot be read is `unknown`.
import { mergeBodyDeps } from '../body-deps-merge.ts';
import type { BlockerState, MilestoneIssue, MilestoneSnapshot, RepoRef } from '../types.ts';
import { formatRepo } from '../types.ts';
import type { GiteaClient } from './client.ts';
import { refKey, repoOfIssue, toIssue, toMilestone } from './mappers.ts';
import { issuePath, repoPath } from './paths.ts';
import { GiteaIssue, GiteaMilestone } from './schema.ts';

/** Run `f` over `items` with at most `limit` in flight, keeping order. */
export const mapLimit = async <T, R>(items: T[], limit: number, f: (item: T) => Promise<R>): Promise<R[]> => {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await f(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
};

export const loadMilestone = async (
  client: GiteaClient,
  repo: RepoRef,
  milestoneId: number,
  opts: { pageSize: number; concurrency: number },
): Promise<MilestoneSnapshot> => {
  const base = repoPath(repo);
  const where = `milestone ${milestoneId} of ${formatRepo(repo)}`;
  const milestone = toMilestone(
    await client.json(GiteaMilestone, {
      method: 'GET',
      path: `${base}/milestones/${milestoneId}`,
      what: `read ${where}`,
    }),
  );
  // `milestones=` takes names first and falls back to ids; the title is exact unless it holds a comma
  // (the list separator) or looks like an id itself.
  const filter = /,|^\d+$/.test(milestone.title) ? String(milestoneId) : milestone.title;
  const listed = await client.paged(
    GiteaIssue,
    {
      method: 'GET',
      path: `${base}/issues`,
      query: { state: 'open', type: 'issues', milestones: filter },
      what: `list the open issues of ${where}`,
    },
    opts.pageSize,
  );
  const open = listed.filter((i) => !i.pull_request && i.milestone?.id === milestoneId);
  const openKeys = new Set(open.map((i) => refKey({ repo, number: i.number })));
  const external = new Map<string, BlockerState>();

  const issues: MilestoneIssue[] = await mapLimit(open, opts.concurrency, async (raw) => {
    const deps = await client.paged(
      GiteaIssue,
      {
        method: 'GET',
        path: `${base}/issues/${raw.number}/dependencies`,
        what: `list the blockers of ${formatRepo(repo)}#${raw.number}`,
      },
      opts.pageSize,
    );
    const blockedBy = deps.map((d) => ({ repo: repoOfIssue(d, repo), number: d.number }));
    for (const d of deps) {
      const ref = { repo: repoOfIssue(d, repo), number: d.number };
      if (!openKeys.has(refKey(ref))) external.set(refKey(ref), { ref, state: d.state, title: d.title });
    }
    return { ...toIssue(raw, repo), blockedBy, children: [] };
  });
  issues.sort((a, b) => a.ref.number - b.ref.number);
  return mergeBodyDeps({ milestone, issues, externalBlockers: [...external.values()] }, async (ref) => {
    const i = await client.json(GiteaIssue, {
      method: 'GET',
      path: issuePath(ref),
      what: `read blocker ${formatRepo(ref.repo)}#${ref.number}`,
    });
    return { state: i.state, title: i.title };
  });
};
