// The fake GitHub's pull request endpoints: open, read (JSON or diff), list, files, merge and update
// branch. Mergeability comes from the World's GitBackend, so conflicts and "behind" are real states.
import { pullFiles, type World, type WorldIssue, type WorldRepo } from '../world.ts';
import { fail, type Handler, type HandlerContext, mustRead, mustWrite, paginate, repoOf } from './context.ts';
import { pullJson } from './serialize.ts';

const pullOf = (ctx: HandlerContext, repo: WorldRepo): WorldIssue =>
  ctx.world.pull(repo, Number(ctx.params.pull_number)) ?? fail(404, 'Not Found');

/** A pushed branch moves the PR's head: read it from git, as GitHub does. */
export const syncHead = async (repo: WorldRepo, issue: WorldIssue): Promise<void> => {
  const pull = issue.pull!;
  if (pull.merged || issue.state !== 'open') return;
  const sha = await repo.git.resolve(pull.head);
  if (sha) pull.headSha = sha;
};

export const mergeInfo = async (repo: WorldRepo, issue: WorldIssue) => {
  const pull = issue.pull!;
  const files = await repo.git.changedFiles(pull.base, pull.head).catch(() => []);
  if (pull.merged || issue.state !== 'open')
    return { mergeable: null, mergeableState: 'unknown', changedFiles: files.length };
  if (!(await repo.git.canMerge(pull.base, pull.head)))
    return { mergeable: false, mergeableState: 'dirty', changedFiles: files.length };
  const baseSha = await repo.git.resolve(pull.base);
  const behind = baseSha !== undefined && !(await repo.git.isAncestor(baseSha, pull.head));
  return { mergeable: true, mergeableState: behind ? 'behind' : 'clean', changedFiles: files.length };
};

type MergeMethod = 'merge' | 'squash' | 'rebase';

/**
 * A PR merged as GitHub merges it (REST's merge and GraphQL's `mergePullRequest` alike): refused when
 * it is closed, merged or conflicting (`unmergeable`: REST 405), its head is not `sha` (`moved`: 409),
 * or a push to its base raced the merge (`unmergeable` in GitHub's own words: 405 "Base branch was
 * modified", which a merge tried again gets past).
 */
export const mergePull = async (
  world: World,
  repo: WorldRepo,
  issue: WorldIssue,
  o: { actor: string; sha?: string; method: MergeMethod; title?: string },
): Promise<{ sha: string } | { refused: 'unmergeable' | 'moved'; message: string }> => {
  const pull = issue.pull!;
  await syncHead(repo, issue);
  const unmergeable = { refused: 'unmergeable', message: 'Pull Request is not mergeable' } as const;
  if (pull.merged || issue.state !== 'open') return unmergeable;
  if (o.sha !== undefined && o.sha !== pull.headSha)
    return { refused: 'moved', message: 'Head branch was modified. Review and try the merge again.' };
  if ((pull.baseRaces ?? 0) > 0) {
    pull.baseRaces = pull.baseRaces! - 1;
    world.record('merge-refused', repo, issue.number, 'base branch was modified');
    return { refused: 'unmergeable', message: 'Base branch was modified. Review and try the merge again.' };
  }
  const message = o.title ?? `Merge pull request #${issue.number}`;
  const result = await repo.git.merge(pull.base, pull.head, o.method, message);
  if ('conflict' in result) return unmergeable;
  const { sha } = result as { sha: string };
  pull.merged = true;
  pull.mergeCommitSha = sha;
  pull.mergedBy = o.actor;
  world.setIssueState(repo, issue, 'closed', o.actor);
  pull.mergedAt = issue.closedAt;
  world.record('merge', repo, issue.number, o.method);
  return { sha };
};

export const pullHandlers: Record<string, Handler> = {
  'pulls/create': async (ctx) => {
    const repo = repoOf(ctx);
    mustWrite(ctx, repo);
    const head = String(ctx.body.head).replace(/^[^:]+:/, '');
    const base = String(ctx.body.base);
    if (!(await repo.git.resolve(head))) fail(422, `Validation Failed: head ${head} does not exist`);
    if (!(await repo.git.resolve(base))) fail(422, `Validation Failed: base ${base} does not exist`);
    const open = [...repo.issues.values()].find((i) => i.pull?.head === head && i.state === 'open');
    if (open) fail(422, `Validation Failed: A pull request already exists for ${repo.owner}:${head}.`);
    const issue = await ctx.world.openPull(repo, {
      head,
      base,
      title: String(ctx.body.title),
      body: (ctx.body.body as string | undefined) ?? '',
      author: ctx.actor,
    });
    const info = await mergeInfo(repo, issue);
    return { status: 201, body: pullJson(ctx.world, repo, issue, ctx.urls, ctx.cloneUrl(repo), info) };
  },

  'pulls/get': async (ctx) => {
    const repo = repoOf(ctx);
    mustRead(ctx, repo);
    const issue = pullOf(ctx, repo);
    await syncHead(repo, issue);
    const accept = String(ctx.headers.accept ?? '');
    if (accept.includes('diff'))
      return {
        status: 200,
        text: await repo.git.diff(issue.pull!.base, issue.pull!.head),
        contentType: 'text/x-diff',
      };
    const info = await mergeInfo(repo, issue);
    return { status: 200, body: pullJson(ctx.world, repo, issue, ctx.urls, ctx.cloneUrl(repo), info) };
  },

  'pulls/list': async (ctx) => {
    const repo = repoOf(ctx);
    mustRead(ctx, repo);
    const state = ctx.query.get('state') ?? 'open';
    const head = ctx.query.get('head');
    const base = ctx.query.get('base');
    const pulls = [...repo.issues.values()]
      .filter((i) => i.pull)
      .filter((i) => state === 'all' || i.state === state)
      .filter((i) => !head || `${repo.owner}:${i.pull!.head}`.toLowerCase() === head.toLowerCase())
      .filter((i) => !base || i.pull!.base === base)
      .sort((a, b) => b.number - a.number);
    for (const p of pulls) await syncHead(repo, p);
    const { page, headers } = paginate(ctx, pulls);
    return {
      status: 200,
      headers,
      body: page.map((i) => pullJson(ctx.world, repo, i, ctx.urls, ctx.cloneUrl(repo))),
    };
  },

  'pulls/list-files': async (ctx) => {
    const repo = repoOf(ctx);
    mustRead(ctx, repo);
    const issue = pullOf(ctx, repo);
    const files = await pullFiles(repo, issue.pull!);
    const { page, headers } = paginate(ctx, files);
    const blob = `${ctx.urls.web}/${repo.owner}/${repo.name}/blob/${issue.pull!.headSha}`;
    const enc = (path: string) => path.split('/').map(encodeURIComponent).join('/');
    return {
      status: 200,
      headers,
      body: page.map((f) => ({
        sha: issue.pull!.headSha,
        filename: f.path,
        status: f.status,
        additions: f.additions,
        deletions: f.deletions,
        changes: f.additions + f.deletions,
        blob_url: `${blob}/${enc(f.path)}`,
        raw_url: `${blob}/${enc(f.path)}?raw=1`,
        contents_url: `${ctx.urls.api}/repos/${repo.owner}/${repo.name}/contents/${enc(f.path)}`,
      })),
    };
  },

  'pulls/merge': async (ctx) => {
    const repo = repoOf(ctx);
    mustWrite(ctx, repo);
    const issue = pullOf(ctx, repo);
    const m = await mergePull(ctx.world, repo, issue, {
      actor: ctx.actor,
      ...(typeof ctx.body.sha === 'string' ? { sha: ctx.body.sha } : {}),
      method: (ctx.body.merge_method as MergeMethod | undefined) ?? 'merge',
      ...(ctx.body.commit_title !== undefined ? { title: String(ctx.body.commit_title) } : {}),
    });
    if ('refused' in m) return fail(m.refused === 'moved' ? 409 : 405, m.message);
    return { status: 200, body: { sha: m.sha, merged: true, message: 'Pull Request successfully merged' } };
  },

  'pulls/update-branch': async (ctx) => {
    const repo = repoOf(ctx);
    mustWrite(ctx, repo);
    const issue = pullOf(ctx, repo);
    const pull = issue.pull!;
    await syncHead(repo, issue);
    const expected = ctx.body.expected_head_sha;
    if (typeof expected === 'string' && expected !== pull.headSha)
      fail(422, 'expected head sha did not match current head ref.');
    // A conflict either way round means the base cannot be merged into the head.
    if (!(await repo.git.canMerge(pull.base, pull.head))) fail(422, 'merge conflict between base and head');
    const result = await repo.git.merge(
      pull.head,
      pull.base,
      'merge',
      `Merge ${pull.base} into ${pull.head}`,
    );
    if ('conflict' in result) fail(422, 'merge conflict between base and head');
    pull.headSha = (result as { sha: string }).sha;
    ctx.world.record('update_branch', repo, issue.number);
    return {
      status: 202,
      body: {
        message: 'Updating pull request branch.',
        url: `${ctx.urls.web}/${repo.owner}/${repo.name}/pull/${issue.number}`,
      },
    };
  },
};
