// Pull requests on GitHub: open, read (with mergeability), find by head branch, files, a diff bounded
// to a byte limit, merge guarded by the expected head sha, update branch, and the issues a PR closes.
import { z } from 'zod';
import { AppError } from '../../errors.ts';
import {
  type BoundedDiff,
  type IssueRef,
  type MergeMethod,
  type MergeResult,
  type NewPullRequest,
  type OpenedPullRequest,
  type ProgressReport,
  type PullRequest,
  type PullRequestFile,
  type RepoRef,
  sameIssue,
} from '../types.ts';
import { checkRunStatus, maxSummaryChars, progressCheckName } from './checks.ts';
import type { GithubClient } from './client.ts';
import { call, statusOf, toAppError } from './errors.ts';
import { closingIssuesQuery, openPullWithCheckMutation } from './graphql.ts';
import { parseClosingRefs, refFromLink, toPullRequest, toPullRequestFile } from './mappers.ts';
import { PullFields, toPullFromNode } from './pull-feedback.ts';
import { ClosingIssuesResponse } from './schema.ts';

const at = (ref: IssueRef) => ({ owner: ref.repo.owner, repo: ref.repo.name, pull_number: ref.number });

/** Cut `text` to at most `maxBytes` of UTF-8 without splitting a character. */
export const boundDiff = (text: string, maxBytes: number): BoundedDiff => {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return { diff: text, truncated: false, totalBytes: bytes.length };
  let end = Math.max(0, maxBytes);
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end -= 1;
  return { diff: bytes.subarray(0, end).toString('utf8'), truncated: true, totalBytes: bytes.length };
};

const isProgressing = (state: ProgressReport['state']) => state === 'queued' || state === 'in_progress';

/** An error answer of GitHub's GraphQL API with the data of what did run (octokit's GraphqlResponseError). */
const GraphqlPartial = z.object({
  errors: z.array(z.object({ message: z.string() })).min(1),
  data: z.unknown(),
});

const OpenPullWithCheckResponse = z.object({
  createPullRequest: z.object({ pullRequest: PullFields.nullable() }).nullable().optional(),
  createCheckRun: z
    .object({ checkRun: z.object({ databaseId: z.number().int().nullable() }).nullable() })
    .nullable()
    .optional(),
});

export interface PullOpsParts {
  /** The repository's GraphQL node id where the adapter has read it (no request); else REST. */
  repoId?: (repo: RepoRef) => string | undefined;
  /** The bot's own check run made on `sha`: its next report there updates it. */
  ownRunMade?: (repo: RepoRef, sha: string, id: number, report: ProgressReport) => void;
  /** Whether the bot's `blitz` check on that commit is known already (made or seen by this process). */
  ownRunKnown?: (repo: RepoRef, sha: string) => boolean;
}

export const pullOps = (gh: GithubClient, more: PullOpsParts = {}) => {
  const getPullRequest = async (ref: IssueRef): Promise<PullRequest> => {
    const { data } = await call(
      { action: `read PR #${ref.number}`, repo: ref.repo, need: 'pull_requests:read' },
      () => gh.rest.pulls.get(at(ref)),
    );
    return toPullRequest(ref.repo, data);
  };
  const findPullRequest = async (repo: RepoRef, head: string): Promise<PullRequest | undefined> => {
    const { data } = await call(
      { action: `find the PR from ${head}`, repo, need: 'pull_requests:read' },
      () =>
        gh.rest.pulls.list({
          owner: repo.owner,
          repo: repo.name,
          head: `${repo.owner}:${head}`,
          state: 'open',
          per_page: 100,
        }),
    );
    const first = data[0];
    // The list shape has no mergeability: read the PR itself.
    return first ? getPullRequest({ repo, number: first.number }) : undefined;
  };

  /** The open and the `blitz` check's create in one document; a refused open falls back as REST's 422. */
  const openWithCheck = async (
    repo: RepoRef,
    repositoryId: string,
    pr: NewPullRequest,
    progress: { sha: string; report: ProgressReport },
  ): Promise<OpenedPullRequest> => {
    const { report } = progress;
    const variables = {
      repositoryId,
      base: pr.base,
      head: pr.head,
      title: pr.title,
      body: pr.body,
      sha: progress.sha,
      name: progressCheckName,
      // The opening report is in progress on GitHub (checks.ts `checkRunStatus`).
      status: checkRunStatus(report.state).toUpperCase(),
      output: { title: report.title.slice(0, 255), summary: report.summary.slice(0, maxSummaryChars) },
      detailsUrl: report.detailsUrl ?? null,
    };
    let raw: unknown;
    let failure: unknown;
    try {
      raw = await gh.graphql(openPullWithCheckMutation, variables);
    } catch (err) {
      // A GraphQL answer with errors: the mutation that worked is in its data all the same.
      const partial = GraphqlPartial.safeParse(err);
      if (!partial.success) throw toAppError(err, { action: `open a PR from ${pr.head}`, repo });
      raw = partial.data.data;
      failure = err;
    }
    const answer = OpenPullWithCheckResponse.safeParse(raw).data;
    const runId = answer?.createCheckRun?.checkRun?.databaseId ?? undefined;
    if (runId !== undefined) more.ownRunMade?.(repo, progress.sha, runId, report);
    const node = answer?.createPullRequest?.pullRequest;
    const opened = node
      ? toPullFromNode({ repo, number: node.number }, node)
      : // Refused (most often: a PR from that head is open already): that open PR is the answer.
        await findPullRequest(repo, pr.head);
    if (!opened)
      throw toAppError(failure ?? new Error('no pull request in the answer'), {
        action: `open a PR from ${pr.head}`,
        repo,
        need: 'pull_requests:write',
      });
    return { ...opened, progressSent: runId !== undefined && opened.head.sha === progress.sha };
  };

  return {
    getPullRequest,

    async openPullRequest(
      repo: RepoRef,
      pr: NewPullRequest,
      opts: { progress?: { sha: string; report: ProgressReport } } = {},
    ): Promise<OpenedPullRequest> {
      const repositoryId = more.repoId?.(repo);
      const { progress } = opts;
      // With the repository's node id known and a queued/in-progress first report: one GraphQL request.
      // Not when the check is there already (an open tried before and refused, or a PR found by its head):
      // the document would make a second `blitz` check on that commit, left in progress for good.
      if (
        repositoryId !== undefined &&
        progress &&
        isProgressing(progress.report.state) &&
        !more.ownRunKnown?.(repo, progress.sha)
      )
        return openWithCheck(repo, repositoryId, pr, progress);
      try {
        const { data } = await call(
          { action: `open a PR from ${pr.head}`, repo, need: 'pull_requests:write' },
          () => gh.rest.pulls.create({ owner: repo.owner, repo: repo.name, ...pr }),
        );
        return toPullRequest(repo, data);
      } catch (err) {
        // 422 "A pull request already exists for owner:head": that open PR is the answer (idempotent).
        if (statusOf(err) !== 422) throw err;
        const existing = await findPullRequest(repo, pr.head);
        if (!existing) throw err;
        return existing;
      }
    },

    findPullRequest,

    async listPullRequestFiles(ref: IssueRef): Promise<PullRequestFile[]> {
      const all = await call(
        { action: `list files of PR #${ref.number}`, repo: ref.repo, need: 'pull_requests:read' },
        () => gh.paginate(gh.rest.pulls.listFiles, { ...at(ref), per_page: 100 }),
      );
      return all.map(toPullRequestFile);
    },

    async getPullRequestDiff(ref: IssueRef, maxBytes: number): Promise<BoundedDiff> {
      const { data } = await call(
        { action: `read the diff of PR #${ref.number}`, repo: ref.repo, need: 'pull_requests:read' },
        () => gh.rest.pulls.get({ ...at(ref), mediaType: { format: 'diff' } }),
      );
      if (typeof data !== 'string')
        throw new AppError('forge_error', `GitHub sent no diff for PR #${ref.number}`);
      return boundDiff(data, maxBytes);
    },

    async mergePullRequest(
      ref: IssueRef,
      // `readBack` needs nothing here: GitHub's merge answer names the merge commit.
      opts: { method: MergeMethod; expectedHeadSha?: string; title?: string; readBack?: boolean },
    ): Promise<MergeResult> {
      try {
        const { data } = await call(
          { action: `merge PR #${ref.number}`, repo: ref.repo, need: 'contents:write' },
          () =>
            gh.rest.pulls.merge({
              ...at(ref),
              merge_method: opts.method,
              ...(opts.expectedHeadSha ? { sha: opts.expectedHeadSha } : {}),
              ...(opts.title ? { commit_title: opts.title } : {}),
            }),
        );
        return { sha: data.sha };
      } catch (err) {
        const status = statusOf(err);
        if (status === 405)
          throw new AppError(
            'unmergeable',
            `PR #${ref.number} cannot be merged (conflicts, failing checks or already closed)`,
            {
              status,
            },
          );
        if (status === 409)
          throw new AppError(
            'conflict',
            `PR #${ref.number} moved: its head is no longer ${opts.expectedHeadSha?.slice(0, 7) ?? 'the expected commit'}; read it again before merging`,
            { status },
          );
        throw err;
      }
    },

    async updatePullRequestBranch(ref: IssueRef): Promise<void> {
      try {
        await call(
          { action: `update the branch of PR #${ref.number}`, repo: ref.repo, need: 'contents:write' },
          () => gh.rest.pulls.updateBranch(at(ref)),
        );
      } catch (err) {
        if (statusOf(err) === 422)
          throw new AppError(
            'conflict',
            `PR #${ref.number}: its base cannot be merged into its branch (conflict or moved head)`,
          );
        throw err;
      }
    },

    async closingIssues(ref: IssueRef): Promise<IssueRef[]> {
      const pr = await getPullRequest(ref);
      const raw = await call({ action: `read the issues PR #${ref.number} closes`, repo: ref.repo }, () =>
        gh.graphql(closingIssuesQuery, {
          owner: ref.repo.owner,
          name: ref.repo.name,
          number: ref.number,
          after: null,
        }),
      );
      const linked =
        ClosingIssuesResponse.parse(raw).repository?.pullRequest?.closingIssuesReferences.nodes ?? [];
      // GitHub links closing keywords only for PRs into the default branch: the body is the fallback.
      const all = [
        ...linked.flatMap((n) => (n ? [refFromLink(n)] : [])),
        ...parseClosingRefs(ref.repo, pr.body),
      ];
      return all.filter((r, i) => all.findIndex((o) => sameIssue(o, r)) === i);
    },
  };
};
