// Merging a fleet PR, only after a person's word (the planner emits `merge` only for a ticket whose
// PR a person asked to merge). Each pass reads the PR and takes one step: behind → update the branch;
// conflicts → merge the base into the worker's worktree and resume the worker there to resolve it
// and re-run the tests; after that, every conflicted file is checked for leftover markers and the
// repo's build runs in the worktree; clean → squash merge with the expected head sha, delete the
// branch. A step that cannot go ahead leaves a note on the scoreboard, never a merge.
import { isAppError } from '../../errors.ts';
import { formatRepo, type PullRequest } from '../../forges/types.ts';
import { git, gitTry } from '../../runner/git.ts';
import type { AttemptRecord } from '../../runner/types.ts';
import { refOf } from '../perform.ts';
import { loadRepoConfig } from '../repo-settings.ts';
import { type FleetCtx, type FleetDeps, maxConflictResumes } from './fleet-context.ts';
import { ticketOf, updateTicket } from './fleet-state.ts';

const note = (deps: FleetDeps, ctx: FleetCtx, key: string, text: string | undefined) =>
  updateTicket(deps.store, ctx.run.id, key, () => ({ note: text })).then((run) => {
    ctx.run = run;
  });

/** Files in `cwd`'s HEAD that still start a line with a conflict marker. */
export const filesWithMarkers = async (
  cwd: string,
  files: readonly string[],
  ctx: Awaited<ReturnType<FleetDeps['runner']['gitContext']>>,
): Promise<string[]> => {
  const marked: string[] = [];
  for (const f of files) {
    // Seed 004: a truncated conflict listing once hid hunks; each file is counted on its own.
    const out = await gitTry(['grep', '-c', '-E', '^(<{7}|>{7})( |$)', 'HEAD', '--', f], cwd, ctx);
    if (out && out.trim() !== '') marked.push(f);
  }
  return marked;
};

/** Merges the base into the worktree; the files left conflicted are returned (the merge stays open). */
const startBaseMerge = async (deps: FleetDeps, attempt: AttemptRecord, base: string): Promise<string[]> => {
  const ctx = await deps.runner.gitContext(attempt.issue.repo);
  const wt = attempt.worktree;
  await git(['fetch', '--quiet', 'origin', base], wt, ctx);
  await gitTry(
    [
      '-c',
      'user.name=blitz-bot',
      '-c',
      'user.email=blitz-bot@localhost',
      'merge',
      '--no-edit',
      `origin/${base}`,
    ],
    wt,
    ctx,
  );
  const out = await git(['diff', '--name-only', '--diff-filter=U'], wt, ctx);
  return out
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
};

/** After the resumed worker finished: markers in the conflicted files, then the repo's build in the worktree. */
const checkResolution = async (
  deps: FleetDeps,
  ctx: FleetCtx,
  key: string,
  attempt: AttemptRecord,
): Promise<string | undefined> => {
  if (attempt.outcome !== 'solved')
    return `merge stopped, the worker did not resolve it: ${attempt.failureSummary ?? attempt.outcome}`;
  const t = ticketOf(ctx.fleet, key);
  const gctx = await deps.runner.gitContext(attempt.issue.repo);
  await gitTry(['fetch', '--quiet', 'origin'], attempt.worktree, gctx);
  const marked = await filesWithMarkers(attempt.worktree, t.conflictFiles, gctx);
  if (marked.length > 0) return `conflict markers are left in ${marked.join(', ')}`;
  const facts = ctx.repos.get(formatRepo(attempt.issue.repo).toLowerCase());
  if (!facts) return undefined;
  const cfg = await loadRepoConfig(facts.forge, facts.repo);
  const argv = cfg.result.ok ? cfg.result.config.build : undefined;
  if (!argv) return undefined;
  const res = await deps.runner.execute({
    kind: 'gate',
    name: 'build',
    argv,
    cwd: attempt.worktree,
    timeoutSeconds: 1800,
  });
  if (res.kind === 'gate' && (res.result.exitCode !== 0 || res.result.timedOut))
    return 'the tests failed after the base was merged in';
  return undefined;
};

const squash = async (
  deps: FleetDeps,
  ctx: FleetCtx,
  key: string,
  pr: PullRequest,
  attempt?: AttemptRecord,
) => {
  const ref = refOf(key);
  const facts = ctx.repos.get(formatRepo(ref.repo).toLowerCase())!;
  let sha: string;
  try {
    sha = (
      await facts.forge.mergePullRequest(pr.ref, {
        method: 'squash',
        expectedHeadSha: pr.head.sha,
        title: `${pr.title} (#${pr.ref.number})`,
      })
    ).sha;
  } catch (err) {
    // The head moved or the base did since we read it: the next pass reads the PR again.
    if (isAppError(err, 'unmergeable') || isAppError(err, 'conflict')) return;
    throw err;
  }
  await deps.store.upsertRunIssue(ctx.run.id, formatRepo(ref.repo), ref.number, {
    state: 'merged',
    mergedSha: sha,
  });
  await note(deps, ctx, key, undefined);
  try {
    await facts.forge.deleteBranch(facts.repo, pr.head.ref);
    if (attempt)
      await deps.runner.execute({
        kind: 'cleanup',
        repo: facts.repo,
        mergedInto: pr.base.ref,
        attemptIds: [attempt.id],
      });
  } catch (err) {
    deps.logger.warn({ runId: ctx.run.id, ticket: key, err }, 'merged branch not cleaned up');
  }
  deps.logger.info({ runId: ctx.run.id, ticket: key, pr: pr.ref.number, sha }, 'fleet PR merged');
};

export const mergeTicket = async (
  deps: FleetDeps,
  ctx: FleetCtx,
  key: string,
  prNumber: number,
  attempt: AttemptRecord | undefined,
): Promise<void> => {
  const t = ticketOf(ctx.fleet, key);
  if (!t.mergeRequestedBy) return;
  const ref = refOf(key);
  const facts = ctx.repos.get(formatRepo(ref.repo).toLowerCase());
  if (!facts) return;
  const pr = await facts.forge.getPullRequest({ repo: facts.repo, number: prNumber });
  if (pr.merged) {
    await deps.store.upsertRunIssue(ctx.run.id, formatRepo(ref.repo), ref.number, {
      state: 'merged',
      mergedSha: pr.mergeCommitSha ?? pr.head.sha,
    });
    return;
  }
  if (pr.state === 'closed') return note(deps, ctx, key, 'the PR was closed without merging');
  // A resumed worker is still merging the base in: wait for it.
  if (attempt && attempt.outcome === undefined) return;
  if (t.resolving && attempt) {
    const problem = await checkResolution(deps, ctx, key, attempt);
    ctx.run = await updateTicket(deps.store, ctx.run.id, key, () => ({ resolving: false, note: problem }));
    if (problem) {
      ctx.run = await updateTicket(deps.store, ctx.run.id, key, () => ({ mergeRequestedBy: undefined }));
      return;
    }
  }
  if (pr.mergeState === 'behind') {
    await facts.forge.updatePullRequestBranch(pr.ref);
    return note(deps, ctx, key, `brought up to date with ${pr.base.ref}`);
  }
  if (pr.mergeState === 'dirty' || pr.mergeable === false) {
    if (!attempt || t.conflictResumes >= maxConflictResumes) {
      ctx.run = await updateTicket(deps.store, ctx.run.id, key, () => ({ mergeRequestedBy: undefined }));
      return note(deps, ctx, key, `still conflicts with ${pr.base.ref}; a person has to merge the base in`);
    }
    const files = await startBaseMerge(deps, attempt, pr.base.ref);
    ctx.run = await updateTicket(deps.store, ctx.run.id, key, (x) => ({
      conflictResumes: x.conflictResumes + 1,
      conflictFiles: files,
      resolving: true,
      note: `conflicts with ${pr.base.ref} in ${files.join(', ') || 'no file locally'}: the worker is merging the base in`,
    }));
    await deps.runner.execute({
      kind: 'resume',
      attemptId: attempt.id,
      reason: 'conflict',
      conflictFiles: files,
    });
    return;
  }
  if (pr.mergeState === 'blocked')
    return note(deps, ctx, key, 'the forge blocks the merge (branch protection or required checks)');
  if (pr.mergeable === null) return;
  await squash(deps, ctx, key, pr, attempt);
};
