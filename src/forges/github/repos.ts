// Repository operations on GitHub: a user's permission, the default branch, branches as git refs,
// file contents, and clone credentials built from a short-lived installation token (never logged).

import { z } from 'zod';
import { AppError } from '../../errors.ts';
import { createTtlMemo } from '../etag-cache.ts';
import type { CloneCredentials, Permission, RepoRef } from '../types.ts';
import type { GithubClient } from './client.ts';
import { call, statusOf } from './errors.ts';
import { branchAheadQuery } from './graphql.ts';
import { toPermission } from './mappers.ts';
import { BranchAheadResponse, ContentFile } from './schema.ts';

const at = (repo: RepoRef) => ({ owner: repo.owner, repo: repo.name });

const isSha = (ref: string) => /^[0-9a-f]{40}$/i.test(ref);

const InstallationAuth = z.object({ token: z.string().min(1), expiresAt: z.string().optional() });

/** How long a repository's default branch and clone URL are kept before they are asked again. */
export const repositoryTtlMs = 10 * 60_000;

export const repoOps = (
  gh: GithubClient,
  opts: { cache?: boolean; onRepoId?: (repo: RepoRef, id: string) => void } = {},
) => {
  // `GET /repos/{owner}/{repo}` was asked before every git operation (clone credentials) and for the
  // default branch: keep what they need per repository for a while (a failure is not kept).
  const metadata = createTtlMemo<{ defaultBranch: string; cloneUrl: string; ownerType: string }>(
    opts.cache === false ? 0 : repositoryTtlMs,
  );
  const repository = (repo: RepoRef) =>
    metadata.get(`${repo.owner}/${repo.name}`.toLowerCase(), async () => {
      const { data } = await call({ action: 'read the repository', repo, need: 'metadata:read' }, () =>
        gh.rest.repos.get(at(repo)),
      );
      opts.onRepoId?.(repo, data.node_id);
      return { defaultBranch: data.default_branch, cloneUrl: data.clone_url, ownerType: data.owner.type };
    });

  const branchSha = async (repo: RepoRef, branch: string): Promise<string | undefined> => {
    try {
      const { data } = await call({ action: `read branch ${branch}`, repo, need: 'contents:read' }, () =>
        gh.rest.git.getRef({ ...at(repo), ref: `heads/${branch}` }),
      );
      return data.object.sha;
    } catch (err) {
      if (statusOf(err) === 404) return undefined;
      throw err;
    }
  };

  return {
    /** Whether the repository's owner is an `Organization` or a `User` (where an App's settings live). */
    async ownerTypeOf(repo: RepoRef): Promise<string> {
      return (await repository(repo)).ownerType;
    },

    async getPermission(repo: RepoRef, user: string): Promise<Permission> {
      try {
        const { data } = await call(
          { action: `read ${user}'s permission`, repo, need: 'metadata:read' },
          () => gh.rest.repos.getCollaboratorPermissionLevel({ ...at(repo), username: user }),
        );
        return toPermission(data.role_name, data.permission);
      } catch (err) {
        // GitHub answers 404 for a login that is not a user at all: no permission.
        if (statusOf(err) === 404) return 'none';
        throw err;
      }
    },

    async getDefaultBranch(repo: RepoRef): Promise<string> {
      return (await repository(repo)).defaultBranch;
    },

    async createBranch(repo: RepoRef, branch: string, fromRef: string): Promise<void> {
      const sha = isSha(fromRef) ? fromRef : await branchSha(repo, fromRef);
      if (!sha)
        throw new AppError(
          'not_found',
          `cannot create ${branch}: no branch ${fromRef} on ${repo.owner}/${repo.name}`,
        );
      try {
        await call({ action: `create branch ${branch}`, repo, need: 'contents:write' }, () =>
          gh.rest.git.createRef({ ...at(repo), ref: `refs/heads/${branch}`, sha }),
        );
      } catch (err) {
        if (statusOf(err) !== 422) throw err;
        const existing = await branchSha(repo, branch);
        if (existing === sha) return;
        if (existing)
          throw new AppError(
            'conflict',
            `branch ${branch} already exists on ${repo.owner}/${repo.name} at ${existing.slice(0, 7)}, not at ${sha.slice(0, 7)}`,
            { branch },
          );
        throw err;
      }
    },

    async commitsAhead(repo: RepoRef, base: string, branch: string): Promise<number | undefined> {
      if ((await branchSha(repo, branch)) === undefined) return undefined;
      const raw = await call({ action: `compare ${branch} with ${base}`, repo, need: 'contents:read' }, () =>
        gh.graphql(branchAheadQuery, {
          owner: repo.owner,
          name: repo.name,
          base: `refs/heads/${base}`,
          head: `refs/heads/${branch}`,
        }),
      );
      const compare = BranchAheadResponse.parse(raw).repository?.ref?.compare;
      if (!compare)
        throw new AppError(
          'not_found',
          `cannot compare ${branch}: no branch ${base} on ${repo.owner}/${repo.name}`,
        );
      return compare.aheadBy;
    },

    async resetBranch(repo: RepoRef, branch: string, toRef: string): Promise<void> {
      const sha = isSha(toRef) ? toRef : await branchSha(repo, toRef);
      if (!sha)
        throw new AppError(
          'not_found',
          `cannot reset ${branch}: no branch ${toRef} on ${repo.owner}/${repo.name}`,
        );
      await call({ action: `reset branch ${branch} to ${toRef}`, repo, need: 'contents:write' }, () =>
        gh.rest.git.updateRef({ ...at(repo), ref: `heads/${branch}`, sha, force: true }),
      );
    },

    async deleteBranch(repo: RepoRef, branch: string): Promise<void> {
      try {
        await call({ action: `delete branch ${branch}`, repo, need: 'contents:write' }, () =>
          gh.rest.git.deleteRef({ ...at(repo), ref: `heads/${branch}` }),
        );
      } catch (err) {
        // 422 "Reference does not exist": already gone, which is what was asked.
        if (statusOf(err) !== 422) throw err;
      }
    },

    async getFile(repo: RepoRef, path: string, ref?: string): Promise<string | undefined> {
      try {
        const { data } = await call({ action: `read ${path}`, repo, need: 'contents:read' }, () =>
          gh.rest.repos.getContent({ ...at(repo), path, ...(ref ? { ref } : {}) }),
        );
        const file = ContentFile.safeParse(data);
        if (!file.success)
          throw new AppError('bad_request', `${path} on ${repo.owner}/${repo.name} is not a file`);
        return Buffer.from(file.data.content, file.data.encoding === 'base64' ? 'base64' : 'utf8').toString(
          'utf8',
        );
      } catch (err) {
        if (statusOf(err) === 404) return undefined;
        throw err;
      }
    },

    async cloneCredentials(repo: RepoRef): Promise<CloneCredentials> {
      const { cloneUrl } = await repository(repo);
      // A git credential for this repository alone, with `contents: write` and nothing else (GitHub
      // expires it within the hour): whoever holds it can push to this repository, not open issues,
      // merge, or touch the installation's other repositories. The auth strategy keeps one per
      // repository until shortly before it expires.
      const minted = await call({ action: 'mint a push token', repo, need: 'contents:write' }, () =>
        gh.auth({ type: 'installation', repositoryNames: [repo.name], permissions: { contents: 'write' } }),
      ).catch((err: unknown) => {
        // GitHub answers 422 to a token asked with a permission the installation lacks: a refused write.
        if (statusOf(err) !== 422) throw err;
        throw new AppError(
          'forbidden',
          `the app lacks contents:write on ${repo.owner}/${repo.name} (GitHub would not mint a push token)`,
          { action: 'mint a push token', status: 422, permission: { name: 'contents', level: 'write' } },
          { cause: err },
        );
      });
      const auth = InstallationAuth.parse(minted);
      return {
        url: cloneUrl,
        username: 'x-access-token',
        password: auth.token,
        ...(auth.expiresAt ? { expiresAt: auth.expiresAt } : {}),
      };
    },
  };
};
