// The integration branch moved under work in progress (plan/base-change.ts decides): a merge keeps
// the files its merge commit changed (read with git in the bot's integration clone); a
// `check_base_change` reads an open PR's files (with git too, else from the forge), and where both changed a file, queues
// the bot's tell for that issue's session. The tell waits for the next
// resume (the PR feedback loop makes one at once for an ended session), which merges the branch in.
import type { IssueRef } from '../forges/types.ts';
import {
  type BaseChange,
  baseChangeMessage,
  baseChangeTell,
  maxBaseChangeFiles,
} from '../plan/base-change.ts';
import type { Action } from '../plan/snapshot.ts';
import type { IssueKey } from '../plan/types.ts';
import { filesOfHead, filesOfMerge } from '../runner/integration-git.ts';
import { integrationGitOf } from '../runner/worker-clone.ts';
import type { RunCtx } from '../runs/context.ts';
import type { Clock, Log, Records, Settings, Workers } from '../runs/ports.ts';
import { setProgress } from '../runs/run-writer.ts';
import { emptyFeedbackState } from '../ship/pr-feedback-forge.ts';
import type { RunProgress } from '../store/run-store.ts';

/**
 * What a merge changed: read from the merge commit in the bot's integration clone (no forge request),
 * or, when git cannot tell (no clone here, the commit not fetched), the merged PR's file list.
 */
const mergedFilesOf = async (
  deps: Workers & Settings & Log,
  ctx: Pick<RunCtx, 'run' | 'forge' | 'repo'>,
  sha: string,
  pr: IssueRef,
): Promise<string[]> => {
  try {
    return await filesOfMerge(
      await integrationGitOf(deps, { forge: ctx.forge, repo: ctx.repo, run: ctx.run }),
      sha,
    );
  } catch (err) {
    deps.logger.debug({ runId: ctx.run.id, sha, err }, 'merged files not read from git; asking the forge');
    return (await ctx.forge.listPullRequestFiles(pr)).map((f) => f.path);
  }
};

/** Keeps what a merge into the integration branch changed (once per merge commit). */
export const keepBaseChange = async (
  deps: Records & Workers & Settings & Clock & Log,
  ctx: Pick<RunCtx, 'run' | 'forge' | 'repo'>,
  issue: IssueKey,
  sha: string,
  pr: IssueRef,
): Promise<void> => {
  const files = await mergedFilesOf(deps, ctx, sha, pr).catch((err: unknown) => {
    deps.logger.warn({ runId: ctx.run.id, issue, err }, 'merged files unread; no open PR is told of them');
    return undefined;
  });
  if (!files) return;
  const change: BaseChange = {
    issue,
    sha,
    files: files.slice(0, maxBaseChangeFiles),
    at: deps.clock.now().toISOString(),
  };
  await setProgress(deps, ctx, (p) =>
    p.baseChanges?.some((c) => c.sha === sha)
      ? undefined
      : { baseChanges: [...(p.baseChanges ?? []), change] },
  );
};

/** The bot's own branch names (`m1/7-slug`): nothing else goes into a git refspec. */
export const ownBranch = /^[A-Za-z0-9_][A-Za-z0-9._/-]*$/;

/**
 * What an open PR changes: read with git in the bot's integration clone at the head this call's
 * feedback read saw (no forge request), or, when git cannot tell, the PR's file list from the forge.
 */
const openFilesOf = async (
  deps: Workers & Settings & Log,
  ctx: Pick<RunCtx, 'run' | 'forge' | 'repo' | 'rows' | 'prFacts'>,
  a: Extract<Action, { type: 'check_base_change' }>,
): Promise<string[]> => {
  const facts = ctx.prFacts?.get(a.issue);
  const branch = ctx.rows.get(a.issue)?.branch;
  if (facts?.pull?.ref.number === a.pr && branch && ownBranch.test(branch) && facts.pull.head.ref === branch)
    try {
      return await filesOfHead(
        await integrationGitOf(deps, { forge: ctx.forge, repo: ctx.repo, run: ctx.run }),
        branch,
        facts.head,
      );
    } catch (err) {
      deps.logger.debug({ runId: ctx.run.id, pr: a.pr, err }, 'PR files not read from git; asking the forge');
    }
  return (await ctx.forge.listPullRequestFiles({ repo: ctx.repo, number: a.pr })).map((f) => f.path);
};

/** Compares the open PR's files with the merges under it; an overlap queues the tell. */
export const checkBaseChange = async (
  deps: Records & Workers & Settings & Log,
  ctx: Pick<RunCtx, 'run' | 'forge' | 'repo' | 'rows' | 'prFacts'>,
  a: Extract<Action, { type: 'check_base_change' }>,
): Promise<void> => {
  const all = ctx.run.progress.baseChanges ?? [];
  const changes = all.filter((c) => a.shas.includes(c.sha));
  const tell = baseChangeTell(changes, await openFilesOf(deps, ctx, a));
  const branch = ctx.run.integrationBranch;
  await setProgress(deps, ctx, (p) => {
    const checked = [...new Set([...(p.baseChecked?.[a.issue] ?? []), ...a.shas])];
    const out: Partial<RunProgress> = { baseChecked: { ...p.baseChecked, [a.issue]: checked } };
    if (!tell) return out;
    const state = p.prFeedback?.[a.issue] ?? emptyFeedbackState();
    const message = baseChangeMessage(all, tell, branch);
    if (state.tells?.some((t) => t.id === message.id)) return out;
    return {
      ...out,
      prFeedback: { ...p.prFeedback, [a.issue]: { ...state, tells: [...(state.tells ?? []), message] } },
    };
  });
  if (tell)
    deps.logger.info(
      { runId: ctx.run.id, issue: a.issue, files: tell.files.length, merges: tell.shas },
      'the integration branch changed files under an open PR; its session is told at its next resume',
    );
};
