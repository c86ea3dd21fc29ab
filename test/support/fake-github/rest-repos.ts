// The fake GitHub's repository endpoints: repo metadata, collaborator permission, branch refs and
// file contents, all over the World and its GitBackend.
import { fail, type Handler, mustRead, mustWrite, repoOf } from './context.ts';
import { repoJson, userJson } from './serialize.ts';

/** GitHub's `permission` field folds the fine roles into the classic three (plus none). */
const classic = {
  admin: 'admin',
  maintain: 'write',
  write: 'write',
  triage: 'read',
  read: 'read',
  none: 'none',
};

export const repoHandlers: Record<string, Handler> = {
  'repos/get': (ctx) => {
    const repo = repoOf(ctx);
    mustRead(ctx, repo);
    return { status: 200, body: repoJson(ctx.world, repo, ctx.urls, ctx.cloneUrl(repo)) };
  },

  'repos/get-collaborator-permission-level': (ctx) => {
    const repo = repoOf(ctx);
    mustRead(ctx, repo);
    const login = ctx.params.username!;
    if (!ctx.world.users.has(login.toLowerCase())) fail(404, 'Not Found');
    const role = ctx.world.permissionOf(repo, login);
    const user = { ...userJson(ctx.world, login, ctx.urls), role_name: role };
    return { status: 200, body: { permission: classic[role], role_name: role, user } };
  },

  'git/get-ref': async (ctx) => {
    const repo = repoOf(ctx);
    mustRead(ctx, repo);
    const ref = ctx.params.ref!;
    if (!ref.startsWith('heads/')) fail(404, 'Not Found');
    const sha = (await repo.git.branches()).get(ref.slice('heads/'.length)) ?? fail(404, 'Not Found');
    return { status: 200, body: refJson(ctx.urls.api, repo.owner, repo.name, ref, sha) };
  },

  'git/create-ref': async (ctx) => {
    const repo = repoOf(ctx);
    mustWrite(ctx, repo);
    const ref = String(ctx.body.ref);
    const sha = String(ctx.body.sha);
    if (!ref.startsWith('refs/heads/')) fail(422, 'Reference name must start with refs/heads/');
    const name = ref.slice('refs/heads/'.length);
    if ((await repo.git.branches()).has(name)) fail(422, 'Reference already exists');
    if ((await repo.git.resolve(sha)) !== sha) fail(422, 'Object does not exist');
    await repo.git.createBranch(name, sha);
    ctx.world.record('create_branch', repo, undefined, name);
    return { status: 201, body: refJson(ctx.urls.api, repo.owner, repo.name, ref.slice(5), sha) };
  },

  // A branch moved to another commit: without `force`, only forward (the old head must be an ancestor).
  'git/update-ref': async (ctx) => {
    const repo = repoOf(ctx);
    mustWrite(ctx, repo);
    const ref = ctx.params.ref!;
    const sha = String(ctx.body.sha);
    const name = ref.startsWith('heads/') ? ref.slice('heads/'.length) : '';
    const was = (await repo.git.branches()).get(name) ?? fail(422, 'Reference does not exist');
    if ((await repo.git.resolve(sha)) !== sha) fail(422, 'Object does not exist');
    if (ctx.body.force !== true && !(await repo.git.isAncestor(was, sha)))
      fail(422, 'Update is not a fast forward');
    await repo.git.moveBranch(name, sha);
    ctx.world.record('move_branch', repo, undefined, name);
    return { status: 200, body: refJson(ctx.urls.api, repo.owner, repo.name, ref, sha) };
  },

  'git/delete-ref': async (ctx) => {
    const repo = repoOf(ctx);
    mustWrite(ctx, repo);
    const ref = ctx.params.ref!;
    // The description documents this 422 without a body.
    const name = ref.startsWith('heads/') ? ref.slice('heads/'.length) : undefined;
    if (!name || !(await repo.git.branches()).has(name)) return { status: 422 };
    await repo.git.deleteBranch(name);
    ctx.world.record('delete_branch', repo, undefined, name);
    return { status: 204 };
  },

  'repos/get-content': async (ctx) => {
    const repo = repoOf(ctx);
    mustRead(ctx, repo);
    const path = ctx.params.path!;
    const ref = ctx.query.get('ref');
    if (ref && !(await repo.git.resolve(ref))) fail(404, `No commit found for the ref ${ref}`);
    const content = repo.files.get(path) ?? fail(404, 'Not Found');
    const url = `${ctx.urls.api}/repos/${repo.owner}/${repo.name}/contents/${path.split('/').map(encodeURIComponent).join('/')}`;
    const sha = Buffer.from(content).toString('hex').padEnd(40, '0').slice(0, 40);
    return {
      status: 200,
      body: {
        type: 'file',
        encoding: 'base64',
        size: Buffer.byteLength(content),
        name: path.split('/').pop(),
        path,
        content: Buffer.from(content).toString('base64'),
        sha,
        url,
        git_url: `${ctx.urls.api}/repos/${repo.owner}/${repo.name}/git/blobs/${sha}`,
        html_url: `${ctx.urls.web}/${repo.owner}/${repo.name}/blob/${encodeURIComponent(ref ?? repo.defaultBranch)}/${path.split('/').map(encodeURIComponent).join('/')}`,
        download_url: null,
        _links: { self: url, git: null, html: null },
      },
    };
  },
};

const refJson = (api: string, owner: string, name: string, ref: string, sha: string) => ({
  ref: `refs/${ref}`,
  node_id: Buffer.from(`Ref:${ref}`).toString('base64url'),
  url: `${api}/repos/${owner}/${name}/git/refs/${ref}`,
  object: { type: 'commit', sha, url: `${api}/repos/${owner}/${name}/git/commits/${sha}` },
});
