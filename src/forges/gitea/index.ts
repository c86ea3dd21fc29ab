// The Gitea adapter: the Forge interface over Gitea's REST API (`GITEA_URL/api/v1`) with a token.
// Gitea has no sub-issues and sends no webhooks for dependencies or milestones, so the reconcile
// loop polls; its milestone "number" is the milestone id (what Gitea's own URLs show).
import { AppError, isAppError } from '../../errors.ts';
import { type Logger, silentLogger } from '../../observability/logger.ts';
import { withKeptReads } from '../kept-reads.ts';
import type { ForgeRequestHook } from '../request-hook.ts';
import type { Forge, IssueRef, RepoRef } from '../types.ts';
import { formatIssueRef, formatRepo } from '../types.ts';
import { defaultRetryPolicy, GiteaClient, type RetryPolicy } from './client.ts';
import { commentOps } from './comments.ts';
import { listRepositories } from './list-repositories.ts';
import { createDependencyMemo, loadMilestone, noteIssueState } from './load-milestone.ts';
import { refKey, toIssue, toMilestone } from './mappers.ts';
import { pickMilestone } from './milestones.ts';
import { issuePath, repoPath, writeOn } from './paths.ts';
import { pullRequestOps } from './pulls.ts';
import { repositoryOps } from './repository.ts';
import { reviewOps } from './reviews.ts';
import { GiteaIssue, GiteaLabel, GiteaMilestone } from './schema.ts';
import { statusOps } from './statuses.ts';

export interface GiteaForgeOptions {
  /** Gitea's root URL (GITEA_URL), without `/api/v1`. */
  url: string;
  token: string;
  /** The token git pushes with (GITEA_PUSH_TOKEN, `write:repository`); `token` when absent. */
  pushToken?: string;
  /** The login the token belongs to: its comments are the ones the bot may edit. */
  botLogin: string;
  logger?: Logger;
  retry?: Partial<RetryPolicy>;
  fetch?: typeof fetch;
  /** Gitea's MAX_RESPONSE_ITEMS is 50 by default; asking for more gets 50. */
  pageSize?: number;
  /** Dependency lists fetched at once while loading a milestone. */
  concurrency?: number;
  requestTimeoutMs?: number;
  /** Told after every API request (forge metrics). */
  onRequest?: ForgeRequestHook /** Conditional requests and kept answers (clone credentials, ETags, milestone reloads); false only for the bench baseline. */;
  requestCache?: boolean;
  /** How long a milestone snapshot or file is served again without asking (kept-reads.ts); default a minute. */
  keptForMs?: number;
  /** The clock of the milestones a list just read (tests). */
  now?: () => number;
}

/** A milestone a list read is taken by a load for this long (a run's start: resolve, then load). */
const listedForMs = 10_000;
const repoKey = (repo: RepoRef) => formatRepo(repo).toLowerCase();

export const createGiteaForge = (opts: GiteaForgeOptions): Forge => {
  const client = new GiteaClient({
    url: opts.url,
    token: opts.token,
    botLogin: opts.botLogin,
    logger: opts.logger ?? silentLogger(),
    retry: { ...defaultRetryPolicy, ...opts.retry },
    fetch: opts.fetch ?? globalThis.fetch,
    requestTimeoutMs: opts.requestTimeoutMs ?? 30_000,
    ...(opts.onRequest ? { onRequest: opts.onRequest } : {}),
  });
  const pageSize = opts.pageSize ?? 50;
  // Blocked-by lists kept between milestone reloads, asked again when an issue's updated_at moves.
  const memo = opts.requestCache === false ? undefined : createDependencyMemo();
  const now = opts.now ?? Date.now;
  // The milestones a list just read, per repository: a load moments later (a run's start resolves its
  // milestone, then loads it) takes its milestone from there once instead of reading it again.
  const listed = new Map<string, { at: number; milestones: GiteaMilestone[] }>();
  const listedFor = (repo: RepoRef, id: number): GiteaMilestone | undefined => {
    const kept = listed.get(repoKey(repo));
    if (!kept || now() - kept.at > listedForMs) return undefined;
    const hit = kept.milestones.find((m) => m.id === id);
    if (hit) kept.milestones = kept.milestones.filter((m) => m !== hit);
    return hit;
  };

  const listMilestones = async (repo: RepoRef, state: 'open' | 'all') => {
    const all = await client.paged(
      GiteaMilestone,
      {
        method: 'GET',
        path: `${repoPath(repo)}/milestones`,
        query: { state },
        what: `list milestones of ${formatRepo(repo)}`,
      },
      pageSize,
    );
    if (opts.requestCache !== false) {
      if (listed.size >= 1_000) listed.delete(listed.keys().next().value as string);
      listed.set(repoKey(repo), { at: now(), milestones: all });
    }
    return all.map(toMilestone);
  };

  const repoLabels = (repo: RepoRef) =>
    client.paged(
      GiteaLabel,
      { method: 'GET', path: `${repoPath(repo)}/labels`, what: `list labels of ${formatRepo(repo)}` },
      pageSize,
    );

  /** Label ids for names; a name the repo lacks is an error before anything changes. */
  const labelIds = async (repo: RepoRef, names: string[]): Promise<number[]> => {
    const all = await repoLabels(repo);
    const missing = names.filter((n) => !all.some((l) => l.name.toLowerCase() === n.toLowerCase()));
    if (missing.length > 0) {
      throw new AppError(
        'not_found',
        `label ${missing.join(', ')} does not exist in ${formatRepo(repo)}; create it first`,
      );
    }
    return names.map((n) => all.find((l) => l.name.toLowerCase() === n.toLowerCase())!.id);
  };

  /**
   * Label ids for a new issue's labels, creating the ones the repo lacks first: GitHub creates a label
   * an issue names, so a new issue carries its labels (a blocker issue's `hold`) on both forges.
   */
  const labelIdsCreating = async (repo: RepoRef, names: string[]): Promise<number[]> => {
    const all = await repoLabels(repo);
    const ids: number[] = [];
    for (const name of names) {
      const found = all.find((l) => l.name.toLowerCase() === name.toLowerCase());
      if (found) {
        ids.push(found.id);
        continue;
      }
      const made = await client.json(GiteaLabel, {
        method: 'POST',
        path: `${repoPath(repo)}/labels`,
        body: { name, color: '#ededed' },
        what: `create label ${name} in ${formatRepo(repo)}`,
        needs: writeOn(repo),
      });
      ids.push(made.id);
    }
    return ids;
  };

  const setState = async (ref: IssueRef, state: 'open' | 'closed') => {
    await client.none({
      method: 'PATCH',
      path: issuePath(ref),
      body: { state },
      what: `${state === 'closed' ? 'close' : 'reopen'} issue ${formatIssueRef(ref)}`,
      needs: writeOn(ref.repo),
    });
  };

  const { reviewsAndComments, ...reviewOpsOf } = reviewOps(client, pageSize);
  const comments = commentOps(client, opts.botLogin, { cache: opts.requestCache !== false, pageSize });
  const forge: Forge = {
    kind: 'gitea',
    botLogin: opts.botLogin,

    resolveMilestone: async (repo, query) =>
      pickMilestone(await listMilestones(repo, query ? 'all' : 'open'), formatRepo(repo), query),

    listOpenMilestones: (repo) => listMilestones(repo, 'open'),
    listRepositories: () => listRepositories(client, pageSize),

    loadMilestone: async (repo, milestoneNumber) => {
      try {
        const known = listedFor(repo, milestoneNumber);
        return await loadMilestone(client, repo, milestoneNumber, {
          pageSize,
          concurrency: opts.concurrency ?? 8,
          ...(memo ? { memo } : {}),
          ...(known ? { known } : {}),
        });
      } catch (err) {
        if (
          !isAppError(err, 'not_found') ||
          !String(err.details.path).endsWith(`/api/v1${repoPath(repo)}/milestones/${milestoneNumber}`)
        )
          throw err;
        const open = await listMilestones(repo, 'open');
        throw new AppError(
          'not_found',
          `milestone ${milestoneNumber} not found in ${formatRepo(repo)}; open milestones: ${open.map((m) => `${m.title} (${m.number})`).join(', ') || 'none'}`,
          err.details,
          { cause: err },
        );
      }
    },

    getIssue: async (ref) =>
      toIssue(
        await client.json(GiteaIssue, {
          method: 'GET',
          path: issuePath(ref),
          what: `read issue ${formatIssueRef(ref)}`,
        }),
        ref.repo,
      ),

    // Gitea has no request that comments and closes at once: two.
    closeIssue: async (ref, close) => {
      if (close?.comment !== undefined) await comments.createComment(ref, close.comment);
      await setState(ref, 'closed');
      if (memo) noteIssueState(memo, refKey(ref), true);
    },
    reopenIssue: async (ref) => {
      if (memo) noteIssueState(memo, refKey(ref), false);
      await setState(ref, 'open');
    },
    observeEvent: (event) => {
      if (!memo || event.issueNumber === undefined) return;
      const key = refKey({ repo: event.repo, number: event.issueNumber });
      if (event.kind === 'issue-closed') noteIssueState(memo, key, true);
      if (event.kind === 'issue-reopened') noteIssueState(memo, key, false);
    },

    createIssue: async (repo, issue) => {
      const labels = issue.labels?.length ? await labelIdsCreating(repo, issue.labels) : undefined;
      const created = await client.json(GiteaIssue, {
        method: 'POST',
        path: `${repoPath(repo)}/issues`,
        body: {
          title: issue.title,
          body: issue.body,
          ...(labels ? { labels } : {}),
          ...(issue.milestone ? { milestone: issue.milestone } : {}),
        },
        what: `create an issue in ${formatRepo(repo)}`,
        needs: writeOn(repo),
      });
      return toIssue(created, repo);
    },

    addBlockedBy: async (issue, blocker) => {
      const existing = await client.paged(
        GiteaIssue,
        {
          method: 'GET',
          path: `${issuePath(issue)}/dependencies`,
          what: `list the blockers of ${formatIssueRef(issue)}`,
        },
        pageSize,
      );
      const key = `${blocker.repo.owner}/${blocker.repo.name}#${blocker.number}`.toLowerCase();
      const have = existing.some((d) => {
        const r = d.repository ?? { owner: issue.repo.owner, name: issue.repo.name };
        return `${r.owner}/${r.name}#${d.number}`.toLowerCase() === key;
      });
      if (have) return;
      await client.none({
        method: 'POST',
        path: `${issuePath(issue)}/dependencies`,
        body: { owner: blocker.repo.owner, repo: blocker.repo.name, index: blocker.number },
        what: `mark ${formatIssueRef(issue)} blocked by ${formatIssueRef(blocker, issue.repo)}`,
        needs: writeOn(issue.repo),
      });
      memo?.entries.delete(refKey(issue));
    },

    addLabels: async (ref, labels) => {
      if (labels.length === 0) return;
      const ids = await labelIds(ref.repo, labels);
      await client.none({
        method: 'POST',
        path: `${issuePath(ref)}/labels`,
        body: { labels: ids },
        what: `label ${formatIssueRef(ref)}`,
        needs: writeOn(ref.repo),
      });
    },

    removeLabel: async (ref, label) => {
      const current = await client.json(GiteaLabel.array(), {
        method: 'GET',
        path: `${issuePath(ref)}/labels`,
        what: `read the labels of ${formatIssueRef(ref)}`,
      });
      const hit = current.find((l) => l.name.toLowerCase() === label.toLowerCase());
      if (!hit) return;
      await client.none({
        method: 'DELETE',
        path: `${issuePath(ref)}/labels/${hit.id}`,
        what: `remove label ${label} from ${formatIssueRef(ref)}`,
        needs: writeOn(ref.repo),
      });
    },

    listIssuesWithLabel: async (repo, label) =>
      (
        await client.paged(
          GiteaIssue,
          {
            method: 'GET',
            path: `${repoPath(repo)}/issues`,
            query: { state: 'open', type: 'issues', labels: label },
            what: `list issues labelled ${label} in ${formatRepo(repo)}`,
          },
          pageSize,
        )
      )
        .filter((i) => (i.labels ?? []).some((l) => l.name.toLowerCase() === label.toLowerCase()))
        .map((i) => toIssue(i, repo)),

    ...comments,
    ...repositoryOps(
      client,
      { botLogin: opts.botLogin, token: opts.pushToken ?? opts.token },
      { cache: opts.requestCache !== false },
    ),
    ...pullRequestOps(client, pageSize),
    ...statusOps(client),
    ...reviewOpsOf,
  };
  // Milestone snapshots and the repo config kept until a write or webhook changes them (kept-reads.ts).
  const kept =
    opts.requestCache === false
      ? forge
      : withKeptReads(forge, opts.keptForMs === undefined ? {} : { freshMs: opts.keptForMs });
  // The PR feedback loop's read: the PR (unless the caller has it from opening it just now), its head's
  // status (kept once final, kept-feedback-reads.ts) and one list of its reviews for both the reviews
  // and their comments.
  return {
    ...kept,
    readPullFeedback: async (ref, given) => {
      const pull = given?.pull ?? (await kept.getPullRequest(ref));
      // A PR this call's open made has no reviews yet: a review given since (seconds) is read by the
      // next call, as one given after this read always was. Nor has it a comment of the bot's (the
      // review leg's) to look for before posting one.
      const created = given?.pull?.created === true;
      const [checks, rc] = await Promise.all([
        kept.listChecks!(ref.repo, pull.head.sha),
        created ? { reviews: [], comments: [] } : reviewsAndComments(ref),
      ]);
      return { pull, checks, ...rc, ...(created ? { conversationComments: 0 } : {}) };
    },
  };
};
