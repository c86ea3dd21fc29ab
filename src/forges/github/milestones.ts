// Milestones on GitHub: resolve one from what a person typed, and load its open issues with their
// dependency edges in paged GraphQL (100 issues a query), following any nested list past 100.
import { AppError } from '../../errors.ts';
import { mergeBodyDeps } from '../body-deps-merge.ts';
import { withIssueClosed } from '../kept-reads.ts';
import {
  type BlockerState,
  formatRepo,
  type IssueRef,
  type Milestone,
  type MilestoneIssue,
  type MilestoneSnapshot,
  type RepoRef,
  sameIssue,
  sameRepo,
} from '../types.ts';
import type { GithubClient } from './client.ts';
import { call, toAppError } from './errors.ts';
import { issueConnectionPage, milestoneIssuesQuery, type NestedField } from './graphql.ts';
import { HIDDEN_REPO, refFromLink, toMilestone } from './mappers.ts';
import type { NodeIds } from './node-ids.ts';
import { type IssueLink, type IssueNode, MilestoneIssuesResponse, NestedConnections } from './schema.ts';

export const listOpenMilestones = async (gh: GithubClient, repo: RepoRef): Promise<Milestone[]> => {
  const all = await call({ action: 'list milestones', repo, need: 'issues:read' }, () =>
    gh.paginate(gh.rest.issues.listMilestones, {
      owner: repo.owner,
      repo: repo.name,
      state: 'open',
      per_page: 100,
    }),
  );
  return all.map(toMilestone).sort((a, b) => a.number - b.number);
};

const describe = (ms: Milestone[]) =>
  ms.length ? ms.map((m) => `#${m.number} ${m.title}`).join(', ') : 'none';

export const resolveMilestone = async (
  gh: GithubClient,
  repo: RepoRef,
  query?: string,
): Promise<Milestone> => {
  const open = await listOpenMilestones(gh, repo);
  const q = query?.trim();
  if (!q) {
    const pick = open.find((m) => m.openIssues > 0);
    if (!pick)
      throw new AppError(
        'not_found',
        `no open milestone with open issues on ${formatRepo(repo)}; open milestones: ${describe(open)}`,
      );
    return pick;
  }
  const byNumber = /^#?(\d+)$/.exec(q);
  if (byNumber) {
    const number = Number(byNumber[1]);
    const known = open.find((m) => m.number === number);
    if (known) return known;
    try {
      const { data } = await gh.rest.issues.getMilestone({
        owner: repo.owner,
        repo: repo.name,
        milestone_number: number,
      });
      return toMilestone(data);
    } catch (err) {
      const e = toAppError(err, { action: `read milestone ${q}`, repo, need: 'issues:read' });
      if (e.code !== 'not_found') throw e;
      throw new AppError(
        'not_found',
        `milestone ${q} not found on ${formatRepo(repo)}; open milestones: ${describe(open)}`,
      );
    }
  }
  const needle = q.toLowerCase();
  const exact = open.filter((m) => m.title.toLowerCase() === needle);
  const matches = exact.length ? exact : open.filter((m) => m.title.toLowerCase().includes(needle));
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0)
    throw new AppError(
      'not_found',
      `milestone "${q}" not found on ${formatRepo(repo)}; open milestones: ${describe(open)}`,
    );
  throw new AppError(
    'bad_request',
    `milestone "${q}" is ambiguous on ${formatRepo(repo)}: it matches ${describe(matches)}`,
  );
};

/** Fetch the rest of one nested connection of one issue, after the first 100. */
const restOf = async (gh: GithubClient, repo: RepoRef, issue: IssueNode, field: NestedField) => {
  const nodes: unknown[] = [];
  let after = issue[field].pageInfo.endCursor;
  let more = issue[field].pageInfo.hasNextPage;
  while (more) {
    const raw = await call({ action: `page ${field} of issue #${issue.number}`, repo }, () =>
      gh.graphql(issueConnectionPage(field), { id: issue.id, after }),
    );
    const page = NestedConnections[field].parse((raw as { node?: Record<string, unknown> }).node?.[field]);
    nodes.push(...page.nodes);
    after = page.pageInfo.endCursor;
    more = page.pageInfo.hasNextPage;
  }
  return nodes;
};

const completeIssue = async (gh: GithubClient, repo: RepoRef, issue: IssueNode): Promise<IssueNode> => {
  const out = { ...issue };
  for (const field of Object.keys(NestedConnections) as NestedField[]) {
    if (!issue[field].pageInfo.hasNextPage) continue;
    const rest = await restOf(gh, repo, issue, field);
    const merged = NestedConnections[field].parse({
      ...issue[field],
      nodes: [...issue[field].nodes, ...rest],
    });
    Object.assign(out, { [field]: merged });
  }
  return out;
};

/** One login per account whichever API named it: GraphQL's `Bot` `<slug>` is REST's `<slug>[bot]`. */
export const restLogin = (author: { login: string; __typename?: string | undefined }): string =>
  author.__typename === 'Bot' && !/\[bot\]$/i.test(author.login) ? `${author.login}[bot]` : author.login;

export const loadMilestone = async (
  gh: GithubClient,
  repo: RepoRef,
  number: number,
  /** Told each issue's node id, for a later mutation on it without a read. */
  ids?: NodeIds,
): Promise<MilestoneSnapshot> => {
  // The milestone itself comes with the first page of its issues: no REST read of it.
  let milestone: Milestone | undefined;
  const nodes: IssueNode[] = [];
  let after: string | null = null;
  do {
    const raw = await call(
      { action: `load the issues of milestone ${number}`, repo, need: 'issues:read' },
      () =>
        gh.graphql(milestoneIssuesQuery, { owner: repo.owner, name: repo.name, milestone: number, after }),
    );
    const m = MilestoneIssuesResponse.parse(raw).repository?.milestone;
    if (!m) throw new AppError('not_found', `milestone ${number} not found on ${formatRepo(repo)}`);
    milestone ??= {
      number: m.number,
      title: m.title,
      description: m.description ?? '',
      state: m.state === 'CLOSED' ? 'closed' : 'open',
      openIssues: m.openIssues.totalCount,
      closedIssues: m.closedIssues.totalCount,
    };
    const page = m.issues;
    for (const node of page.nodes) {
      ids?.set({ repo, number: node.number }, node.id);
      nodes.push(await completeIssue(gh, repo, node));
    }
    after = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
  } while (after);
  // Blockers declared in issue bodies join the edges; one that cannot be read is `unknown` (fail closed).
  if (!milestone) throw new AppError('not_found', `milestone ${number} not found on ${formatRepo(repo)}`);
  return mergeBodyDeps(snapshot(repo, milestone, nodes), async (ref) => {
    const { data } = await call(
      { action: `read blocker #${ref.number}`, repo: ref.repo, need: 'issues:read' },
      () => gh.rest.issues.get({ owner: ref.repo.owner, repo: ref.repo.name, issue_number: ref.number }),
    );
    return { state: data.state === 'open' ? 'open' : 'closed', title: data.title };
  });
};

/** Pure: GraphQL issue nodes → the planner's view, with every blocker outside the open set stated. */
export const snapshot = (repo: RepoRef, milestone: Milestone, nodes: IssueNode[]): MilestoneSnapshot => {
  const external: BlockerState[] = [];
  const issues = nodes.map((n): MilestoneIssue => {
    const blockedBy: IssueRef[] = [];
    let hidden = 0;
    const record = (link: IssueLink) => {
      if (!link) {
        hidden += 1;
        const ref = { repo: HIDDEN_REPO, number: n.number * 1000 + hidden };
        blockedBy.push(ref);
        external.push({ ref, state: 'unknown', title: `a blocker of #${n.number} the app cannot read` });
        return;
      }
      const ref = refFromLink(link);
      blockedBy.push(ref);
      if (!external.some((b) => sameIssue(b.ref, ref)))
        external.push({ ref, state: link.state === 'OPEN' ? 'open' : 'closed', title: link.title });
    };
    n.blockedBy.nodes.forEach(record);
    // Blockers GitHub counts but did not list at all are unknown too, never dropped.
    for (let i = n.blockedBy.nodes.length; i < n.blockedBy.totalCount; i += 1) record(null);
    return {
      ref: { repo, number: n.number },
      title: n.title,
      body: n.body,
      state: n.state === 'OPEN' ? 'open' : 'closed',
      labels: n.labels.nodes.map((l) => ({ name: l.name, description: l.description ?? undefined })),
      assignees: n.assignees.nodes.map((a) => a.login),
      author: n.author ? restLogin(n.author) : 'ghost',
      milestone: n.milestone ?? undefined,
      createdAt: n.createdAt,
      locked: n.locked,
      isPullRequest: false,
      blockedBy,
      parent: n.parent ? refFromLink(n.parent) : undefined,
      children: n.subIssues.nodes.flatMap((c) => (c ? [refFromLink(c)] : [])),
    };
  });
  const openHere = (ref: IssueRef) => issues.some((i) => sameIssue(i.ref, ref));
  return { milestone, issues, externalBlockers: external.filter((b) => !openHere(b.ref)) };
};

/** An item of the REST issue list, as far as `closedSince` compares it. */
type ListedIssue = {
  number: number;
  state: string;
  milestone?: Record<string, unknown> | null;
  issue_dependencies_summary?: { blocked_by?: number } & Record<string, unknown>;
} & Record<string, unknown>;

/** An item less what another issue's close moves in it: the milestone's counts and stamp, the open-blocker count. */
const steady = (item: ListedIssue): string => {
  const { milestone, issue_dependencies_summary: deps, ...rest } = item;
  const { open_issues: _o, closed_issues: _c, updated_at: _u, ...m } = milestone ?? {};
  const { blocked_by: _b, ...d } = deps ?? {};
  return JSON.stringify([rest, milestone ? m : null, deps ? d : null]);
};

/**
 * The issues of the kept snapshot that the new list shows closed, when that is all it says that the
 * kept list did not: the same issues, each other one unchanged but for the milestone's counts and its
 * open-blocker count, which drops by exactly its blockers among the closed. Anything else (an issue
 * added, removed, reopened, edited, relabelled, re-linked, a closed issue that was not open in the
 * snapshot changed): undefined, and the milestone is loaded again.
 */
export const closedSince = (
  kept: { snap: MilestoneSnapshot; items: ListedIssue[] },
  items: ListedIssue[],
  repo: RepoRef,
): number[] | undefined => {
  if (items.length !== kept.items.length) return undefined;
  const before = new Map(kept.items.map((i) => [i.number, i]));
  const openIssue = (n: number) =>
    kept.snap.issues.find((i) => sameRepo(i.ref.repo, repo) && i.ref.number === n);
  const closed = items
    .filter((i) => i.state === 'closed' && before.get(i.number)?.state === 'open' && openIssue(i.number))
    .map((i) => i.number);
  if (closed.length === 0) return undefined;
  for (const item of items) {
    if (closed.includes(item.number)) continue;
    const was = before.get(item.number);
    if (!was || steady(was) !== steady(item)) return undefined;
    const issue = openIssue(item.number);
    const freed = issue
      ? issue.blockedBy.filter((b) => sameRepo(b.repo, repo) && closed.includes(b.number)).length
      : 0;
    const count = (i: ListedIssue) => i.issue_dependencies_summary?.blocked_by;
    if ((count(was) ?? 0) - (count(item) ?? 0) !== freed) return undefined;
  }
  return closed;
};

/**
 * loadMilestone behind a conditional check: one `GET /repos/{o}/{r}/issues?milestone=N&state=all`
 * (sent with the ETag of the last answer, so unchanged it is a 304 that GitHub does not count) stands
 * for "did anything in the milestone change"; while its ETag is the one the kept snapshot was loaded
 * under, the snapshot is served without the milestone read and the GraphQL reload. A snapshot is kept
 * only when that list covers everything it depends on: one page, every blocker an issue of the same
 * milestone (a blocker elsewhere could change without touching the list), no sub-issue links.
 * A list whose only news is issues of the snapshot closed (`closedSince`) is applied to the kept
 * snapshot as a reload would say it (`withIssueClosed`), without the GraphQL reload: a run's own merges
 * close issues between its passes, and a run longer than the kept-reads minute would otherwise reload
 * the whole milestone after every close.
 */
export const cachedMilestoneLoader = (gh: GithubClient, ids?: NodeIds) => {
  const kept = new Map<string, { etag: string; snap: MilestoneSnapshot; items: ListedIssue[] }>();
  return async (repo: RepoRef, number: number): Promise<MilestoneSnapshot> => {
    const key = `${formatRepo(repo)}#${number}`.toLowerCase();
    const list = await call(
      { action: `list the issues of milestone ${number}`, repo, need: 'issues:read' },
      () =>
        gh.rest.issues.listForRepo({
          owner: repo.owner,
          repo: repo.name,
          milestone: String(number),
          state: 'all',
          per_page: 100,
        }),
    );
    const etag = list.headers.etag;
    const hit = kept.get(key);
    if (hit && etag && hit.etag === etag) return structuredClone(hit.snap);
    const items = list.data as ListedIssue[];
    const closed = hit && etag && !list.headers.link ? closedSince(hit, items, repo) : undefined;
    if (hit && etag && closed) {
      const snap = closed.reduce((s, n) => withIssueClosed(s, { repo, number: n }), hit.snap);
      kept.set(key, { etag, snap: structuredClone(snap), items });
      return snap;
    }
    const snap = await loadMilestone(gh, repo, number, ids);
    const members = new Set(list.data.map((i) => i.number));
    const covered =
      !!etag &&
      !list.headers.link &&
      snap.externalBlockers.every((b) => sameRepo(b.ref.repo, repo) && members.has(b.ref.number)) &&
      snap.issues.every((i) => !i.parent && i.children.length === 0);
    if (covered) kept.set(key, { etag, snap: structuredClone(snap), items });
    else kept.delete(key);
    return snap;
  };
};
