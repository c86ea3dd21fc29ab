// Fake Gitea operations on the repository, branches, contents and collaborator permission, keyed
// by the swagger's operationId.
import type { WorldPermission } from '../world.ts';
import { bodyOf, type Handler, HttpError, isAdmin, paginate, repoOf, requireWrite } from './context.ts';
import { renderBranch, renderRepo, renderUser } from './render.ts';

const giteaPermission: Record<WorldPermission, string> = {
  admin: 'admin',
  maintain: 'write',
  write: 'write',
  triage: 'read',
  read: 'read',
  none: 'none',
};

export const repoHandlers: Record<string, Handler> = {
  // The token's own user (what the bot learns its login from at start, and `blitz-bot doctor` asks).
  userGetCurrent: (ctx) => ({ status: 200, json: renderUser(ctx.world, ctx.actor, ctx.baseUrl) }),

  // The repositories the token's user owns or collaborates on (not every public one), paged.
  userCurrentListRepos: (ctx) => {
    const visible = [...ctx.world.repos.values()].filter(
      (r) => ctx.world.permissionOf(r, ctx.actor) !== 'none',
    );
    const { page, headers } = paginate(ctx, visible);
    return {
      status: 200,
      json: page.map((r) => renderRepo(ctx.world, r, ctx.actor, ctx.baseUrl, ctx.cloneUrl)),
      headers,
    };
  },

  repoGet: (ctx) => {
    const repo = repoOf(ctx);
    return { status: 200, json: renderRepo(ctx.world, repo, ctx.actor, ctx.baseUrl, ctx.cloneUrl) };
  },

  repoGetBranch: async (ctx) => {
    const repo = repoOf(ctx);
    const name = ctx.params.branch ?? '';
    const sha = (await repo.git.branches()).get(name);
    if (!sha) throw new HttpError(404, `branch ${name} does not exist`);
    return { status: 200, json: renderBranch(name, sha, true) };
  },

  repoCreateBranch: async (ctx) => {
    const repo = repoOf(ctx);
    requireWrite(ctx, repo);
    const b = bodyOf(ctx);
    const name = String(b.new_branch_name);
    const from = String(b.old_ref_name ?? b.old_branch_name ?? repo.defaultBranch);
    const sha = await repo.git.resolve(from);
    if (!sha) throw new HttpError(404, `the old branch or ref ${from} does not exist`);
    if ((await repo.git.branches()).has(name)) throw new HttpError(409, `branch ${name} already exists`);
    await repo.git.createBranch(name, sha);
    ctx.world.record('create_branch', repo, undefined, name);
    return { status: 201, json: renderBranch(name, sha, true) };
  },

  repoDeleteBranch: async (ctx) => {
    const repo = repoOf(ctx);
    requireWrite(ctx, repo);
    const name = ctx.params.branch ?? '';
    if (name === repo.defaultBranch) throw new HttpError(403, 'cannot delete the default branch');
    if (!(await repo.git.branches()).has(name)) throw new HttpError(404, `branch ${name} does not exist`);
    await repo.git.deleteBranch(name);
    ctx.world.record('delete_branch', repo, undefined, name);
    return { status: 204 };
  },

  // `base...head` (or `base..head`): the commits head has that base has not, newest first.
  repoCompareDiff: async (ctx) => {
    const repo = repoOf(ctx);
    const [base, head] = (ctx.params.basehead ?? '').split(/\.\.\.?/);
    if (!base || !head || !(await repo.git.resolve(base)) || !(await repo.git.resolve(head)))
      throw new HttpError(404, `cannot compare ${ctx.params.basehead}`);
    const shas = await repo.git.commitsAhead(base, head);
    const api = `${ctx.baseUrl}/api/v1/repos/${repo.owner}/${repo.name}`;
    return {
      status: 200,
      json: {
        commits: shas.map((sha) => ({
          sha,
          url: `${api}/git/commits/${sha}`,
          html_url: `${ctx.baseUrl}/${repo.owner}/${repo.name}/commit/${sha}`,
        })),
        total_commits: shas.length,
      },
    };
  },

  repoGetContents: (ctx) => {
    const repo = repoOf(ctx);
    const path = ctx.params.filepath ?? '';
    const text = repo.files.get(path);
    if (text === undefined) throw new HttpError(404, `file ${path} does not exist`);
    const name = path.split('/').pop() ?? path;
    return {
      status: 200,
      json: {
        name,
        path,
        sha: Buffer.from(`blob ${text}`).toString('hex').slice(0, 40).padEnd(40, '0'),
        type: 'file',
        size: Buffer.byteLength(text),
        encoding: 'base64',
        content: Buffer.from(text).toString('base64'),
        url: `${ctx.baseUrl}/api/v1/repos/${repo.owner}/${repo.name}/contents/${path}`,
      },
    };
  },

  repoGetRepoPermissions: (ctx) => {
    const repo = repoOf(ctx);
    const login = ctx.params.collaborator ?? '';
    const user = ctx.world.users.get(login.toLowerCase());
    if (!user) throw new HttpError(404, `user ${login} does not exist`);
    // Gitea 1.22: only repo admins may read other people's permission; anyone may read their own.
    if (!isAdmin(ctx, repo) && user.login.toLowerCase() !== ctx.actor.toLowerCase()) {
      throw new HttpError(
        403,
        'only admins can query all permissions, repo admins can query all repo permissions',
      );
    }
    const perm = ctx.world.permissionOf(repo, user.login);
    const permission =
      user.login.toLowerCase() === repo.owner.toLowerCase() ? 'owner' : giteaPermission[perm];
    return {
      status: 200,
      json: { permission, role_name: permission, user: renderUser(ctx.world, user.login, ctx.baseUrl) },
    };
  },
};
