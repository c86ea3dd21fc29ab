// Pull requests on GitHub: open, read (with mergeability), find by head branch, files, a diff bounded
// to a byte limit, merge guarded by the expected head sha, update branch, and the issues a PR closes.
import { AppError } from '../../errors.ts';
import {
  type BoundedDiff,
  type IssueRef,
  type MergeMethod,
  type MergeResult,
  type NewPullRequest,
  type PullRequest,
  type PullRequestFile,
  type RepoRef,
  sameIssue,
} from '../types.ts';
import type { GithubClient } from './client.ts';
import { call, statusOf } from './errors.ts';
import { closingIssuesQuery } from './graphql.ts';
import { parseClosingRefs, refFromLink, toPullRequest, toPullRequestFile } from './mappers.ts';
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

export const pullOps = (gh: GithubClient) => {
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

  return {
    getPullRequest,

    async openPullRequest(repo: RepoRef, pr: NewPullRequest): Promise<PullRequest> {
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
