// Loading a milestone for the planner on Gitea: the open issues in pages, then the blocked-by list
// of each (Gitea has no batch dependency API, so this is one request per issue, run a few at a time).
// A dependency answer carries the blocker's repo and state, so blockers outside the milestone cost
// nothing extra. Gitea leaves out blockers that do not exist or the token cannot read, so blockers
// declared in an issue's body are merged in too, and one that cannot be read is `unknown`.
//
// With a `DependencyMemo`, a reload asks again only for the issues whose lists may have changed:
// Gitea writes a comment on both issues when a dependency is added or removed, and every comment
// bumps the issue's `updated_at`, so an unchanged `updated_at` means an unchanged list. What that
// stamp does not cover is the state of a blocker that left the open set (closed, or moved out of the
// milestone) or lies outside it: an issue with such a blocker last seen open is asked again, unless
// the blocker is known closed since (`DependencyMemo.closed`: the bot's own close). A kept
// list is trusted only when its stamp is older than `settledMs` at the read (Gitea's stamps are whole
// seconds: a change in the same second would not move it) and for at most `maxAgeMs` (a blocker
// outside the milestone reopened, or deleted, is seen by then).
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

/** Blocked-by lists kept between loads, by issue, with the issue's `updated_at` they were read at. */
export interface DependencyMemo {
  entries: Map<string, { updatedAt: string; readAt: number; deps: GiteaIssue[] }>;
  now: () => number;
  /** A stamp younger than this at the read is not trusted to cover a change in its second. */
  settledMs: number;
  maxAgeMs: number;
  /** Entries kept at most (oldest go first). */
  max: number;
  /**
   * Issues known closed since their lists were read (closed through this adapter, or a webhook said
   * so; a reopen through it or a webhook's takes one out): a kept list naming one as an open blocker
   * that left the open set reads it closed instead of asking again. At most `max`, oldest out.
   */
  closed: Set<string>;
}

/** `key` closed (true) or reopened (false), as `DependencyMemo.closed` keeps it. */
export const noteIssueState = (memo: DependencyMemo, key: string, closed: boolean): void => {
  memo.closed.delete(key);
  if (!closed) return;
  memo.closed.add(key);
  while (memo.closed.size > memo.max) memo.closed.delete(memo.closed.values().next().value as string);
};

export const createDependencyMemo = (
  opts: Partial<Omit<DependencyMemo, 'entries' | 'closed'>> = {},
): DependencyMemo => ({
  entries: new Map(),
  closed: new Set(),
  now: opts.now ?? Date.now,
  settledMs: opts.settledMs ?? 60_000,
  maxAgeMs: opts.maxAgeMs ?? 600_000,
  max: opts.max ?? 10_000,
});

/** The kept list of `raw`, when it still says what a read would. */
const keptDeps = (
  memo: DependencyMemo,
  key: string,
  raw: GiteaIssue,
  openKeys: Set<string>,
  repo: RepoRef,
): GiteaIssue[] | undefined => {
  const kept = memo.entries.get(key);
  if (!kept || !raw.updated_at || kept.updatedAt !== raw.updated_at) return undefined;
  if (memo.now() - kept.readAt >= memo.maxAgeMs) return undefined;
  const key_ = (d: GiteaIssue) => refKey({ repo: repoOfIssue(d, repo), number: d.number });
  const left = kept.deps.filter((d) => d.state !== 'closed' && !openKeys.has(key_(d)));
  if (left.some((d) => !memo.closed.has(key_(d)))) return undefined;
  if (left.length === 0) return kept.deps;
  // Blockers last seen open that left the open set because they closed: closed, as a read would say
  // (the kept list stays as read: a reopen takes the issue out of `closed`, and the list is asked again).
  return kept.deps.map((d) => (left.includes(d) ? { ...d, state: 'closed' as const } : d));
};

const keepDeps = (memo: DependencyMemo, key: string, raw: GiteaIssue, readAt: number, deps: GiteaIssue[]) => {
  const stamp = raw.updated_at ? Date.parse(raw.updated_at) : Number.NaN;
  if (!Number.isFinite(stamp) || readAt - stamp < memo.settledMs) {
    memo.entries.delete(key);
    return;
  }
  memo.entries.delete(key);
  memo.entries.set(key, { updatedAt: raw.updated_at!, readAt, deps });
  while (memo.entries.size > memo.max) memo.entries.delete(memo.entries.keys().next().value as string);
};

export const loadMilestone = async (
  client: GiteaClient,
  repo: RepoRef,
  milestoneId: number,
  opts: {
    pageSize: number;
    concurrency: number;
    memo?: DependencyMemo;
    /** The milestone as a list read it moments ago (the run's start resolved it): not read again. */
    known?: GiteaMilestone;
  },
): Promise<MilestoneSnapshot> => {
  const base = repoPath(repo);
  const where = `milestone ${milestoneId} of ${formatRepo(repo)}`;
  const { known } = opts;
  const milestone = toMilestone(
    known ??
      (await client.json(GiteaMilestone, {
        method: 'GET',
        path: `${base}/milestones/${milestoneId}`,
        what: `read ${where}`,
      })),
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
  // A known milestone's title may have changed since its list was read (the filter names it): none of
  // its issues listed while it had open ones is read again from the milestone itself.
  if (known && open.length === 0 && (known.open_issues ?? 0) > 0) {
    const { known: _k, ...fresh } = opts;
    return loadMilestone(client, repo, milestoneId, fresh);
  }
  const openKeys = new Set(open.map((i) => refKey({ repo, number: i.number })));
  const external = new Map<string, BlockerState>();

  const { memo } = opts;
  const issues: MilestoneIssue[] = await mapLimit(open, opts.concurrency, async (raw) => {
    const key = refKey({ repo, number: raw.number });
    let deps = memo && keptDeps(memo, key, raw, openKeys, repo);
    if (!deps) {
      const readAt = memo?.now() ?? 0;
      deps = await client.paged(
        GiteaIssue,
        {
          method: 'GET',
          path: `${base}/issues/${raw.number}/dependencies`,
          what: `list the blockers of ${formatRepo(repo)}#${raw.number}`,
        },
        opts.pageSize,
      );
      if (memo) keepDeps(memo, key, raw, readAt, deps);
    }
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
