// Merging a fleet PR, only after a person's word (the planner emits `merge` only for a ticket whose
// PR a person asked to merge). Each pass reads the PR and takes one step: behind → update the branch;
// conflicts → the runner holding the worker's worktree (this host or a remote one, through its
// queue) merges the base in and resumes the worker there to resolve it and re-run the tests; after
// that, every conflicted file is checked for leftover markers and the repo's build runs in the
// worktree, on that host; clean → squash merge with the expected head sha, delete the
// branch. A step that cannot go ahead leaves a note on the scoreboard, never a merge.
import { z } from 'zod';
import { formatRepo, type PullRequest } from '../../forges/types.ts';
import { attemptIsHere, onAttemptHost } from '../../queue/dispatcher.ts';
import type { GateResult } from '../../runner/build-gate.ts';
import { gitTry } from '../../runner/git.ts';
import type { AttemptRecord } from '../../runner/types.ts';
import { type OrchestratorDeps, type Ports, refOf } from '../context.ts';
import { cleanUpMerged, mergePr } from '../pull-requests.ts';
import { loadRepoConfig } from '../repo-settings.ts';
import { type FleetCtx, maxConflictResumes } from './fleet-context.ts';
import { ticketOf, updateTicket } from './fleet-state.ts';

const note = (deps: Ports<'store'>, ctx: FleetCtx, key: string, text: string | undefined) =>
  updateTicket(deps.store, ctx.run.id, key, () => ({ note: text })).then((run) => {
    ctx.run = run;
  });

/** Files in `cwd`'s HEAD that still start a line with a conflict marker. */
export const filesWithMarkers = async (
  cwd: string,
  files: readonly string[],
  ctx: Awaited<ReturnType<OrchestratorDeps['runner']['gitContext']>>,
): Promise<string[]> => {
  const marked: string[] = [];
  for (const f of files) {
    // Seed 004: a truncated conflict listing once hid hunks; each file is counted on its own.
    const out = await gitTry(['grep', '-c', '-E', '^(<{7}|>{7})( |$)', 'HEAD', '--', f], cwd, ctx);
    if (out && out.trim() !== '') marked.push(f);
  }
  return marked;
};

/** The repo's build command (`.blitz.yml`), if it names one. */
const buildArgv = async (ctx: FleetCtx, attempt: AttemptRecord): Promise<string[] | undefined> => {
  const facts = ctx.repos.get(formatRepo(attempt.issue.repo).toLowerCase());
  if (!facts) return undefined;
  const cfg = await loadRepoConfig(facts.forge, facts.repo);
  return cfg.result.ok ? cfg.result.config.build : undefined;
};

const failedBuild = (r: GateResult | undefined): string | undefined =>
  r && (r.exitCode !== 0 || r.timedOut) ? 'the tests failed after the base was merged in' : undefined;

const gateOutputSchema = z.object({
  result: z.object({ exitCode: z.number(), timedOut: z.boolean(), tail: z.string() }),
});

/**
 * The build of an attempt on another host (a remote runner, or a replica on another machine) runs
 * there, in its worktree, as a gate job through that host's queue; the result comes back as the
 * job's output. `wait` while the job has not finished.
 */
const remoteBuild = async (
  deps: Ports<'dispatcher' | 'store'>,
  ctx: FleetCtx,
  key: string,
  attempt: AttemptRecord,
  argv: string[],
): Promise<string | undefined | 'wait'> => {
  const dispatcher = deps.dispatcher;
  let ref = ticketOf(ctx.fleet, key).buildJob;
  if (!ref) {
    const sent = await dispatcher.toHost(
      { kind: 'gate', name: 'build', argv, attemptId: attempt.id, timeoutSeconds: 1800 },
      attempt.id,
      attempt.host,
    );
    if (!sent.id) return 'wait';
    ref = { queue: sent.queue, id: sent.id };
    ctx.run = await updateTicket(deps.store, ctx.run.id, key, () => ({ buildJob: ref }));
  }
  const job = await dispatcher.job(ref);
  if (job?.state === 'queued' || job?.state === 'active') return 'wait';
  ctx.run = await updateTicket(deps.store, ctx.run.id, key, () => ({ buildJob: undefined }));
  if (job?.state !== 'completed') return `the build after the base merge did not run on the attempt's runner`;
  const out = gateOutputSchema.safeParse(job.output);
  if (!out.success) return `the attempt's runner sent no build result`;
  return failedBuild(out.data.result);
};

/**
 * After the resumed worker finished: leftover markers in the files the base merge conflicted, then
 * the repo's build in the worktree. An attempt on another host: that host's supervisor checked the
 * pushed branch for markers before it called the attempt solved, and it runs the build. `wait`: not
 * known yet.
 */
const checkResolution = async (
  deps: Ports<'dispatcher' | 'runner' | 'store'>,
  ctx: FleetCtx,
  key: string,
  attempt: AttemptRecord,
): Promise<string | undefined | 'wait'> => {
  if (attempt.outcome !== 'solved')
    return `merge stopped, the worker did not resolve it: ${attempt.failureSummary ?? attempt.outcome}`;
  const remote = !attemptIsHere(deps, attempt);
  if (!remote) {
    const gctx = await deps.runner.gitContext(attempt.issue.repo);
    await gitTry(['fetch', '--quiet', 'origin'], attempt.worktree, gctx);
    const marked = await filesWithMarkers(attempt.worktree, attempt.conflictFiles ?? [], gctx);
    if (marked.length > 0) return `conflict markers are left in ${marked.join(', ')}`;
  }
  const argv = await buildArgv(ctx, attempt);
  if (!argv) return undefined;
  if (remote) return remoteBuild(deps, ctx, key, attempt, argv);
  const res = await deps.runner.execute({
    kind: 'gate',
    name: 'build',
    argv,
    cwd: attempt.worktree,
    timeoutSeconds: 1800,
  });
  return res.kind === 'gate' ? failedBuild(res.result) : undefined;
};

const squash = async (
  deps: Ports<'dispatcher' | 'logger' | 'runner' | 'store'>,
  ctx: FleetCtx,
  key: string,
  pr: PullRequest,
  attempt?: AttemptRecord,
) => {
  const ref = refOf(key);
  const facts = ctx.repos.get(formatRepo(ref.repo).toLowerCase())!;
  const m = await mergePr(facts.forge, pr, { method: 'squash', title: `${pr.title} (#${pr.ref.number})` });
  // The head moved or the base did since we read it: the next pass reads the PR again.
  if ('refused' in m) return;
  const sha = m.sha ?? pr.head.sha;
  await deps.store.upsertRunIssue(ctx.run.id, formatRepo(ref.repo), ref.number, {
    state: 'merged',
    mergedSha: sha,
  });
  await note(deps, ctx, key, undefined);
  await cleanUpMerged(deps, facts.forge, {
    repo: facts.repo,
    pr,
    attempt,
    log: { runId: ctx.run.id, ticket: key },
  });
  deps.logger.info({ runId: ctx.run.id, ticket: key, pr: pr.ref.number, sha }, 'fleet PR merged');
};

/** The merge does not go ahead: a person has to look (and say `/merge` again). */
const stopResolving = async (deps: Ports<'store'>, ctx: FleetCtx, key: string, why: string) => {
  ctx.run = await updateTicket(deps.store, ctx.run.id, key, () => ({
    resolving: false,
    resumeSentAt: undefined,
    resumeJob: undefined,
    mergeRequestedBy: undefined,
    note: why,
  }));
};

const errorOf = (output: unknown): string =>
  typeof output === 'object' && output !== null && 'error' in output
    ? String(output.error)
    : 'no reason given';

export const mergeTicket = async (
  deps: Ports<'dispatcher' | 'logger' | 'runner' | 'store'>,
  ctx: FleetCtx,
  key: string,
  prNumber: number,
  attempt: AttemptRecord | undefined,
  /** The head the PR feedback gate let through (green CI, no standing change request). */
  gatedHead?: string,
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
  // A resumed worker is still merging the base in (or its resume has not reached its host): wait.
  if (attempt && attempt.outcome === undefined) return;
  if (t.resolving && attempt && attempt.launchedAt === t.resumeSentAt) {
    const sent = t.resumeJob && (await deps.dispatcher.job(t.resumeJob));
    if (sent?.state !== 'failed') return;
    return stopResolving(
      deps,
      ctx,
      key,
      `the worker could not be resumed on its runner: ${errorOf(sent.output)}`,
    );
  }
  if (t.resolving && attempt) {
    const problem = await checkResolution(deps, ctx, key, attempt);
    if (problem === 'wait') return;
    ctx.run = await updateTicket(deps.store, ctx.run.id, key, () => ({
      resolving: false,
      resumeSentAt: undefined,
      resumeJob: undefined,
      conflictFiles: attempt.conflictFiles ?? [],
      note: problem,
    }));
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
    // The runner that holds the worktree merges the base in and resumes the worker on the conflicts.
    ctx.run = await updateTicket(deps.store, ctx.run.id, key, (x) => ({
      conflictResumes: x.conflictResumes + 1,
      conflictFiles: [],
      resolving: true,
      resumeSentAt: attempt.launchedAt,
      note: `conflicts with ${pr.base.ref}: the worker is merging the base in`,
    }));
    try {
      const sent = await onAttemptHost(
        deps,
        { kind: 'resume', attemptId: attempt.id, reason: 'conflict', mergeBase: pr.base.ref },
        [attempt],
      );
      if (sent?.id)
        ctx.run = await updateTicket(deps.store, ctx.run.id, key, () => ({
          resumeJob: { queue: sent.queue, id: sent.id! },
        }));
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      return stopResolving(deps, ctx, key, `the worker could not be resumed to merge the base in: ${why}`);
    }
    return;
  }
  if (pr.mergeState === 'blocked')
    return note(deps, ctx, key, 'the forge blocks the merge (branch protection or required checks)');
  if (pr.mergeable === null) return;
  // A head pushed since the gate read it (a conflict resolved, a fix) is gated again first.
  if (gatedHead !== undefined && pr.head.sha !== gatedHead) return;
  await squash(deps, ctx, key, pr, attempt);
};
