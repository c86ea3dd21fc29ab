// Pull request operations on Gitea: open, read, find by head, files, a bounded diff, merge with
// the expected head sha, update from base, and the issues a PR closes (keywords in its body and
// commit messages, as Gitea reads them). The branch is never deleted here: the orchestrator decides.
import { AppError, isAppError } from '../../errors.ts';
import type { Forge, IssueRef, RepoRef } from '../types.ts';
import { formatIssueRef, formatRepo } from '../types.ts';
import type { GiteaClient } from './client.ts';
import { closingRefs } from './closing-refs.ts';
import { toPullRequest, toPullRequestFile } from './mappers.ts';
import { repoPath } from './paths.ts';
import { GiteaChangedFile, GiteaCommit, GiteaPull } from './schema.ts';

type PullOps = Pick<
  Forge,
  | 'openPullRequest'
  | 'getPullRequest'
  | 'findPullRequest'
  | 'listPullRequestFiles'
  | 'getPullRequestDiff'
  | 'mergePullRequest'
  | 'updatePullRequestBranch'
  | 'closingIssues'
>;

const pullPath = (ref: IssueRef) => `${repoPath(ref.repo)}/pulls/${ref.number}`;

export const pullRequestOps = (client: GiteaClient, pageSize: number): PullOps => {
  const getPull = async (ref: IssueRef) =>
    client.json(GiteaPull, {
      method: 'GET',
      path: pullPath(ref),
      what: `read pull request ${formatIssueRef(ref)}`,
    });

  const findPullRequest = async (repo: RepoRef, head: string) => {
    const open = await client.paged(
      GiteaPull,
      {
        method: 'GET',
        path: `${repoPath(repo)}/pulls`,
        query: { state: 'open' },
        what: `list open pull requests of ${formatRepo(repo)}`,
      },
      pageSize,
    );
    const hit = open.find((p) => p.head.ref === head);
    return hit ? toPullRequest(hit, repo) : undefined;
  };

  return {
    openPullRequest: async (repo, pr) => {
      try {
        const made = await client.json(GiteaPull, {
          method: 'POST',
          path: `${repoPath(repo)}/pulls`,
          body: { head: pr.head, base: pr.base, title: pr.title, body: pr.body },
          what: `open a pull request from ${pr.head} into ${pr.base} in ${formatRepo(repo)}`,
          needs: `write access to ${formatRepo(repo)}`,
        });
        return { ...toPullRequest(made, repo), created: true };
      } catch (err) {
        // 409 "pull request already exists for these targets": that open PR is the answer (idempotent).
        if (!isAppError(err, 'conflict')) throw err;
        const existing = await findPullRequest(repo, pr.head);
        if (!existing) throw err;
        return existing;
      }
    },

    getPullRequest: async (ref) => toPullRequest(await getPull(ref), ref.repo),

    findPullRequest,

    listPullRequestFiles: async (ref) =>
      (
        await client.paged(
          GiteaChangedFile,
          { method: 'GET', path: `${pullPath(ref)}/files`, what: `list the files of ${formatIssueRef(ref)}` },
          pageSize,
        )
      ).map(toPullRequestFile),

    getPullRequestDiff: async (ref, maxBytes) => {
      const { text, truncated, totalBytes } = await client.boundedText(
        {
          method: 'GET',
          path: `${pullPath(ref)}.diff`,
          accept: 'text/plain',
          what: `read the diff of ${formatIssueRef(ref)}`,
        },
        maxBytes,
      );
      return { diff: text, truncated, totalBytes };
    },

    mergePullRequest: async (ref, opts) => {
      await client.none({
        method: 'POST',
        path: `${pullPath(ref)}/merge`,
        body: {
          Do: opts.method,
          delete_branch_after_merge: false,
          ...(opts.expectedHeadSha ? { head_commit_id: opts.expectedHeadSha } : {}),
          ...(opts.title ? { MergeTitleField: opts.title } : {}),
        },
        what: `merge ${formatIssueRef(ref)} (${opts.method})`,
        needs: `write access to ${formatRepo(ref.repo)}`,
      });
      // Gitea's merge answers with no body: the merge commit is read back, unless the caller finds it.
      if (opts.readBack === false) return {};
      const merged = await getPull(ref);
      if (!merged.merged || !merged.merge_commit_sha) {
        throw new AppError(
          'forge_error',
          `Gitea accepted the merge of ${formatIssueRef(ref)} but does not report a merge commit`,
        );
      }
      return { sha: merged.merge_commit_sha };
    },

    updatePullRequestBranch: async (ref) => {
      await client.none({
        method: 'POST',
        path: `${pullPath(ref)}/update`,
        query: { style: 'merge' },
        what: `update the branch of ${formatIssueRef(ref)} from its base`,
        needs: `write access to ${formatRepo(ref.repo)}`,
      });
    },

    closingIssues: async (ref) => {
      const [pull, commits] = await Promise.all([
        getPull(ref),
        client.paged(
          GiteaCommit,
          {
            method: 'GET',
            path: `${pullPath(ref)}/commits`,
            query: { verification: false, files: false },
            what: `list the commits of ${formatIssueRef(ref)}`,
          },
          pageSize,
        ),
      ]);
      return closingRefs([pull.body ?? '', ...commits.map((c) => c.commit.message)], ref.repo);
    },
  };
};
