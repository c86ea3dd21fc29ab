// Merging a fleet PR, only after a person's word (the planner emits `merge` only for a ticket whose
// PR a person asked to merge). Which step a pass takes is `plan/fleet-merge.ts`'s choice; this file
// gathers its facts (the PR, the attempt, the ticket; on request the conflict resume's job, the marker
// check and the build, which run on the host holding the worker's worktree, this one or a remote one
// through its queue) and performs the step: update the branch, resume the worker on the conflicts,
// squash merge with the expected head sha and delete the branch, or leave a note on the scoreboard.
import { z } from 'zod';
import { formatRepo, type PullRequest } from '../forges/types.ts';
import { type BuildFact, fleetMergeStep, type MergeFacts, type MergeStep } from '../plan/fleet-merge.ts';
import { fleetProgressOf, type TicketState, ticketOf } from '../plan/fleet-progress.ts';
import { refOf } from '../plan/types.ts';
import { attemptIsHere, onAttemptHost } from '../queue/dispatcher.ts';
import type { AttemptRecord } from '../runner/types.ts';
import type { Log, Records, Workers } from '../runs/ports.ts';
import { cleanUpMerged, mergeStep } from '../runs/pull-requests.ts';
import { loadRepoConfig } from '../runs/repo-settings.ts';
import { writeIssue, writeOutcome } from '../runs/run-writer.ts';
import type { FleetCtx, RepoFacts } from './fleet-context.ts';
import { updateTicket } from './fleet-state.ts';

type MergePorts = Records & Workers & Log;

const patchTicket = async (deps: Records, ctx: FleetCtx, key: string, patch: Partial<TicketState>) => {
  ctx.run = await updateTicket(deps.store, ctx.run.id, key, () => patch);
};

/** The repo's build command (`.blitz.yml`), if it names one. */
const buildArgv = async (ctx: FleetCtx, attempt: AttemptRecord): Promise<string[] | undefined> => {
  const facts = ctx.repos.get(formatRepo(attempt.issue.repo).toLowerCase());
  if (!facts) return undefined;
  const cfg = await loadRepoConfig(facts.forge, facts.repo);
  return cfg.result.ok ? cfg.result.config.build : undefined;
};

const gateOutputSchema = z.object({
  result: z.object({ exitCode: z.number(), timedOut: z.boolean(), tail: z.string() }),
});

/**
 * The build of an attempt on another host (a remote runner, or a replica on another machine) runs
 * there, in its worktree, as a gate job through that host's queue; the result comes back as the
 * job's output. `pending` while the job has not finished.
 */
const remoteBuild = async (
  deps: Records & Workers,
  ctx: FleetCtx,
  key: string,
  attempt: AttemptRecord,
  argv: string[],
): Promise<BuildFact> => {
  const dispatcher = deps.dispatcher;
  let ref = ticketOf(ctx.fleet, key).buildJob;
  if (!ref) {
    const sent = await dispatcher.toHost(
      { kind: 'gate', name: 'build', argv, attemptId: attempt.id, timeoutSeconds: 1800 },
      attempt.id,
      attempt.host,
    );
    if (!sent.id) return { state: 'pending' };
    ref = { queue: sent.queue, id: sent.id };
    await patchTicket(deps, ctx, key, { buildJob: ref });
  }
  const job = await dispatcher.job(ref);
  if (job?.state === 'queued' || job?.state === 'active') return { state: 'pending' };
  await patchTicket(deps, ctx, key, { buildJob: undefined });
  if (job?.state !== 'completed') return { state: 'missing', reason: 'not_run' };
  const out = gateOutputSchema.safeParse(job.output);
  if (!out.success) return { state: 'missing', reason: 'no_result' };
  return { state: 'done', exitCode: out.data.result.exitCode, timedOut: out.data.result.timedOut };
};

/** The repo's build in the worktree after the base merge: here, or on the attempt's host. */
const readBuild = async (
  deps: MergePorts,
  ctx: FleetCtx,
  key: string,
  attempt: AttemptRecord,
): Promise<BuildFact> => {
  const argv = await buildArgv(ctx, attempt);
  if (!argv) return { state: 'none' };
  if (!attemptIsHere(deps, attempt)) return remoteBuild(deps, ctx, key, attempt, argv);
  const res = await deps.runner.execute({
    kind: 'gate',
    name: 'build',
    argv,
    cwd: attempt.worktree,
    timeoutSeconds: 1800,
  });
  // A runner that answers a gate job without a gate result ran no build.
  return res.kind === 'gate'
    ? { state: 'done', exitCode: res.result.exitCode, timedOut: res.result.timedOut }
    : { state: 'none' };
};

/** The conflict files still marked in the worker's repository, read as its worker by the runner. */
const readMarkers = (deps: Workers, attempt: AttemptRecord): Promise<string[]> =>
  deps.runner.markedFiles(attempt.id, attempt.conflictFiles ?? []);

const errorOf = (output: unknown): string =>
  typeof output === 'object' && output !== null && 'error' in output
    ? String(output.error)
    : 'no reason given';

/** The ticket's PR is merged at `sha`: its row records it (the fold decides the row's state). */
const recordMerged = async (deps: Records, ctx: FleetCtx, key: string, sha: string) => {
  const ref = refOf(key);
  const at = { repo: formatRepo(ref.repo), number: ref.number };
  await writeOutcome(deps.store, ctx.run.id, at, ctx.rows.get(key), { kind: 'merged', sha });
};

const squash = async (
  deps: MergePorts,
  ctx: FleetCtx,
  key: string,
  facts: RepoFacts,
  pr: PullRequest,
  attempt?: AttemptRecord,
) => {
  const m = await mergeStep(facts.forge, pr, { method: 'squash', title: `${pr.title} (#${pr.ref.number})` });
  // Refused (the head or the base moved since we read it): the next pass reads the PR again.
  if (m.kind === 'mergeRefused') return;
  const sha = m.sha ?? pr.head.sha;
  await recordMerged(deps, ctx, key, sha);
  await patchTicket(deps, ctx, key, { note: undefined });
  await cleanUpMerged(deps, facts.forge, {
    repo: facts.repo,
    pr,
    attempt,
    log: { runId: ctx.run.id, ticket: key },
  });
  deps.logger.info({ runId: ctx.run.id, ticket: key, pr: pr.ref.number, sha }, 'fleet PR merged');
};

/** The conflict resumes spent on the ticket, as its row keeps them (as the blitz's are). */
const conflictTriesOf = (ctx: FleetCtx, key: string): number => ctx.rows.get(key)?.conflictResumes ?? 0;

/** The ticket as the merge decision reads it: its fleet state, its tries from its row. */
const ticketFactsOf = (ctx: FleetCtx, key: string): MergeFacts['ticket'] => ({
  ...ticketOf(fleetProgressOf(ctx.run), key),
  conflictResumes: conflictTriesOf(ctx, key),
});

/** Sends the conflict resume to the runner holding the worktree; the error's words when it cannot. */
const resumeWorker = async (
  deps: MergePorts,
  ctx: FleetCtx,
  key: string,
  attempt: AttemptRecord,
  s: Extract<MergeStep, { step: 'resume_worker' }>,
): Promise<string | undefined> => {
  // Counted where the blitz and plan-blitz count their tries: the issue's row (its progress, the dashboard).
  const ref = refOf(key);
  const row = await writeIssue(deps.store, ctx.run.id, formatRepo(ref.repo), ref.number, {
    conflictResumes: conflictTriesOf(ctx, key) + 1,
  });
  ctx.rows.set(key, row);
  ctx.run = await updateTicket(deps.store, ctx.run.id, key, () => ({
    conflictFiles: [],
    resolving: true,
    resumeSentAt: attempt.launchedAt,
    note: s.note,
  }));
  try {
    const sent = await onAttemptHost(
      deps,
      { kind: 'resume', attemptId: attempt.id, reason: 'conflict', mergeBase: s.base },
      [attempt],
    );
    if (sent?.id) await patchTicket(deps, ctx, key, { resumeJob: { queue: sent.queue, id: sent.id } });
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
};

/** Reads and one-pass bookkeeping a merge takes at most before its step: a bound, not a budget. */
const maxDecisions = 8;

export const mergeTicket = async (
  deps: MergePorts,
  ctx: FleetCtx,
  key: string,
  prNumber: number,
  attempt: AttemptRecord | undefined,
  /** The head the PR feedback gate let through (green CI, no standing change request). */
  gatedHead?: string,
): Promise<void> => {
  const ref = refOf(key);
  const repo = ctx.repos.get(formatRepo(ref.repo).toLowerCase());
  if (!repo) return;
  const t = ticketOf(ctx.fleet, key);
  let pr: PullRequest | undefined;
  const facts: MergeFacts = {
    requested: t.mergeRequestedBy !== undefined,
    ticket: ticketFactsOf(ctx, key),
    gatedHead,
    attempt: attempt && { ...attempt, remote: !attemptIsHere(deps, attempt) },
  };
  for (let i = 0; i < maxDecisions; i++) {
    const s = fleetMergeStep(facts);
    switch (s.step) {
      case 'none':
        return;
      case 'read':
        if (s.fact === 'pr') {
          pr = await repo.forge.getPullRequest({ repo: repo.repo, number: prNumber });
          facts.pr = pr;
        } else if (s.fact === 'resume_job') {
          const job = t.resumeJob && (await deps.dispatcher.job(t.resumeJob));
          facts.resumeJob =
            job?.state === 'failed' ? { failed: true, error: errorOf(job.output) } : { failed: false };
        } else if (s.fact === 'markers') facts.markers = await readMarkers(deps, attempt!);
        else facts.build = await readBuild(deps, ctx, key, attempt!);
        continue;
      case 'record_merged':
        await recordMerged(deps, ctx, key, s.sha);
        return;
      case 'note':
        return patchTicket(deps, ctx, key, { note: s.note });
      case 'withdraw':
        return patchTicket(deps, ctx, key, { mergeRequestedBy: undefined, note: s.note });
      case 'end_resolving':
        await patchTicket(deps, ctx, key, {
          resolving: false,
          resumeSentAt: undefined,
          resumeJob: undefined,
          ...(s.conflictFiles && { conflictFiles: [...s.conflictFiles] }),
          note: s.problem,
          ...(s.problem !== undefined && { mergeRequestedBy: undefined }),
        });
        if (s.problem !== undefined) return;
        facts.ticket = ticketFactsOf(ctx, key);
        continue;
      case 'update_branch':
        await repo.forge.updatePullRequestBranch(pr!.ref);
        return patchTicket(deps, ctx, key, { note: s.note });
      case 'resume_worker': {
        const why = await resumeWorker(deps, ctx, key, attempt!, s);
        if (why === undefined) return;
        facts.resumeNotSent = why;
        facts.ticket = ticketFactsOf(ctx, key);
        continue;
      }
      case 'squash':
        return squash(deps, ctx, key, repo, pr!, attempt);
    }
  }
  throw new Error(`fleet merge of ${key}: no step after ${maxDecisions} decisions`);
};
