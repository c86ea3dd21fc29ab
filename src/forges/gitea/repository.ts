// Repository operations on Gitea: a user's permission (normalised; Gitea shows others' permission
// only to repo admins), the default branch, branches, files, and clone credentials (the token as
// password, the bot login as user: handed to git through a credential helper, never written down).
import type { z } from 'zod';
import { AppError } from '../../errors.ts';
import { createTtlMemo } from '../etag-cache.ts';
import type { Forge, RepoRef } from '../types.ts';
import { formatRepo } from '../types.ts';
import type { GiteaClient } from './client.ts';
import { toPermission } from './mappers.ts';
import { repoPath, writeOn } from './paths.ts';
import { GiteaBranch, GiteaCompare, GiteaContents, GiteaPermission, GiteaRepo } from './schema.ts';

type RepositoryOps = Pick<
  Forge,
  | 'getPermission'
  | 'getDefaultBranch'
  | 'createBranch'
  | 'deleteBranch'
  | 'commitsAhead'
  | 'resetBranch'
  | 'getFile'
  | 'cloneCredentials'
>;

export const repositoryOps = (
  client: GiteaClient,
  /** What git authenticates with: the push token (GITEA_PUSH_TOKEN) where one is configured. */
  auth: { botLogin: string; token: string },
  opts: { cache?: boolean } = {},
): RepositoryOps => {
  // Clone credentials were asked before every git operation: the repository is kept for a while
  // (its clone URL and default branch change on a rename or a settings edit only); a failure is not kept.
  const repos = createTtlMemo<z.infer<typeof GiteaRepo>>(opts.cache === false ? 0 : 10 * 60_000);
  const getRepo = (repo: RepoRef) =>
    repos.get(formatRepo(repo).toLowerCase(), () =>
      client.json(GiteaRepo, {
        method: 'GET',
        path: repoPath(repo),
        what: `read repository ${formatRepo(repo)}`,
      }),
    );

  const branchSha = async (repo: RepoRef, branch: string) =>
    (
      await client.json(GiteaBranch, {
        method: 'GET',
        path: `${repoPath(repo)}/branches/${encodeURIComponent(branch)}`,
        what: `read branch ${branch} of ${formatRepo(repo)}`,
      })
    ).commit.id;

  const deleteBranch = async (repo: RepoRef, branch: string): Promise<void> => {
    const res = await client.send({
      method: 'DELETE',
      path: `${repoPath(repo)}/branches/${encodeURIComponent(branch)}`,
      what: `delete branch ${branch} in ${formatRepo(repo)}`,
      needs: writeOn(repo),
      allow: [404],
    });
    await res.body?.cancel();
  };

  return {
    getPermission: async (repo, user) => {
      const res = await client.send({
        method: 'GET',
        path: `${repoPath(repo)}/collaborators/${encodeURIComponent(user)}/permission`,
        what: `read ${user}'s permission on ${formatRepo(repo)}`,
        needs: `admin access to ${formatRepo(repo)} (Gitea shows other users' permissions only to repo admins)`,
        allow: [404],
      });
      if (res.status === 404) {
        await res.body?.cancel();
        await getRepo(repo); // a missing repo is an error; a missing user simply has no permission
        return 'none';
      }
      const parsed = client.parse(GiteaPermission, await res.json().catch(() => undefined), {
        method: 'GET',
        path: repoPath(repo),
        what: `read ${user}'s permission`,
      });
      return toPermission(parsed.permission);
    },

    getDefaultBranch: async (repo) => (await getRepo(repo)).default_branch,

    createBranch: async (repo, branch, fromRef) => {
      const res = await client.send({
        method: 'POST',
        path: `${repoPath(repo)}/branches`,
        body: { new_branch_name: branch, old_ref_name: fromRef },
        what: `create branch ${branch} from ${fromRef} in ${formatRepo(repo)}`,
        needs: writeOn(repo),
        allow: [409],
      });
      await res.body?.cancel();
      if (res.status !== 409) return;
      const [at, want] = await Promise.all([
        branchSha(repo, branch),
        /^[0-9a-f]{40,64}$/i.test(fromRef) ? fromRef : branchSha(repo, fromRef),
      ]);
      if (at.toLowerCase() !== want.toLowerCase()) {
        throw new AppError(
          'conflict',
          `branch ${branch} already exists in ${formatRepo(repo)} at ${at.slice(0, 12)}, not at ${fromRef}`,
        );
      }
    },

    deleteBranch,

    commitsAhead: async (repo, base, branch) => {
      const req = {
        method: 'GET' as const,
        path: `${repoPath(repo)}/branches/${encodeURIComponent(branch)}`,
        what: `read branch ${branch} of ${formatRepo(repo)}`,
        allow: [404],
      };
      const res = await client.send(req);
      await res.body?.cancel();
      if (res.status === 404) return undefined;
      const compare = await client.json(GiteaCompare, {
        method: 'GET',
        path: `${repoPath(repo)}/compare/${encodeURIComponent(`${base}...${branch}`)}`,
        what: `compare ${branch} with ${base} in ${formatRepo(repo)}`,
      });
      return compare.total_commits;
    },

    // Gitea 1.22 has no ref update: the branch is deleted and created again at the new head.
    resetBranch: async (repo, branch, toRef) => {
      await deleteBranch(repo, branch);
      const res = await client.send({
        method: 'POST',
        path: `${repoPath(repo)}/branches`,
        body: { new_branch_name: branch, old_ref_name: toRef },
        what: `create branch ${branch} from ${toRef} in ${formatRepo(repo)}`,
        needs: writeOn(repo),
      });
      await res.body?.cancel();
    },

    getFile: async (repo, path, ref) => {
      const encoded = path.split('/').map(encodeURIComponent).join('/');
      const req = {
        method: 'GET' as const,
        path: `${repoPath(repo)}/contents/${encoded}`,
        query: { ref },
        what: `read ${path} in ${formatRepo(repo)}`,
        allow: [404],
      };
      const res = await client.send(req);
      if (res.status === 404) {
        await res.body?.cancel();
        return undefined;
      }
      const file = client.parse(GiteaContents, await res.json().catch(() => undefined), req);
      if (file.type !== 'file' || file.encoding !== 'base64' || typeof file.content !== 'string') {
        throw new AppError('bad_request', `${path} in ${formatRepo(repo)} is not a file`);
      }
      return Buffer.from(file.content, 'base64').toString('utf8');
    },

    cloneCredentials: async (repo) => ({
      url: (await getRepo(repo)).clone_url,
      username: auth.botLogin,
      password: auth.token,
    }),
  };
};
