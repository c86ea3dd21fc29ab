// The commands a person types on a PR: `/merge` (or `/ticket-fleet merge #PR` anywhere in the repo)
// gives a fleet PR the word it needs to merge; `/review` runs a review leg on any PR. Intake already
// refused people without write permission; the permission is read again here, because these two
// commands act on a repository that may not be the one the comment was typed in.
import type { Command } from '../commands/schema.ts';
import { isAppError } from '../errors.ts';
import {
  type Forge,
  formatRepo,
  hasPermission,
  type IssueRef,
  repoRefOf,
  sameRepo,
} from '../forges/types.ts';
import type { IntentOutcome } from '../orchestrator/start-run.ts';
import { attemptKey } from '../plan/issue-progress.ts';
import { issueKey } from '../plan/types.ts';
import { runReviewLeg } from '../review/review-leg.ts';
import type { Forges, Log, Records, Reviewers, Settings, Workers } from '../runs/ports.ts';
import type { RunRecord } from '../store/run-store.ts';
import type { Intent } from '../store/types.ts';
import { type FleetHooks, fleetReviewPorts } from './fleet-context.ts';
import { updateTicket } from './fleet-state.ts';
import { repoFactsCache } from './load-fleet.ts';

/** The run (fleet first, then any) whose worker opened this PR, and the ticket key. */
const ownerOf = async (
  deps: Records,
  forge: Intent['forge'],
  pr: IssueRef,
  liveOnly: boolean,
): Promise<{ run: RunRecord; key: string } | undefined> => {
  const runs = liveOnly ? await deps.store.listLiveRuns() : await deps.store.listRuns();
  for (const run of [...runs].sort((a, b) => (a.kind === 'fleet' ? -1 : 0) - (b.kind === 'fleet' ? -1 : 0))) {
    if (run.forge !== forge) continue;
    const row = (await deps.store.listRunIssues(run.id)).find(
      (r) => r.prNumber === pr.number && sameRepo(repoRefOf(r.repo), pr.repo),
    );
    if (row) return { run, key: issueKey(row.repo, row.number) };
  }
  return undefined;
};

const canWrite = async (forge: Forge, pr: IssueRef, login: string): Promise<boolean> =>
  hasPermission(await forge.getPermission(pr.repo, login).catch(() => 'none' as const), 'write');

export const requestMerge = async (
  deps: Records & Forges,
  hooks: FleetHooks,
  intent: Intent,
  cmd: Extract<Command, { name: 'merge' | 'merge-when-green' | 'ticket-fleet-merge' }>,
): Promise<IntentOutcome> => {
  if (intent.issueNumber === undefined) return 'refused';
  const home = repoRefOf(intent.repo);
  const facts = repoFactsCache(deps, { forge: intent.forge });
  const where = { repo: home, number: intent.issueNumber };
  const answer = async (text: string) => (await facts(intent.repo)).forge.createComment(where, text);
  const pr: IssueRef =
    cmd.name !== 'ticket-fleet-merge'
      ? where
      : {
          repo: { owner: cmd.pr.owner ?? home.owner, name: cmd.pr.repo ?? home.name },
          number: cmd.pr.number,
        };
  const name = `${formatRepo(pr.repo)}#${pr.number}`;
  let forge: Forge;
  try {
    forge = (await facts(formatRepo(pr.repo))).forge;
  } catch (err) {
    if (!isAppError(err)) throw err;
    await answer(`Nothing was merged: the bot cannot reach ${name}.`);
    return 'refused';
  }
  if (!(await canWrite(forge, pr, intent.sender))) {
    await answer(
      `@${intent.sender}, merging needs write permission on ${formatRepo(pr.repo)}, so nothing was merged.`,
    );
    return 'refused';
  }
  const owner = await ownerOf(deps, intent.forge, pr, true);
  if (owner?.run.kind !== 'fleet') {
    await answer(
      `Nothing was merged: ${name} is not a pull request a live ticket fleet opened, and \`/merge\` only merges those. Merge it on the forge if it is ready.`,
    );
    return 'refused';
  }
  await hooks.serialized(owner.run.id, () =>
    updateTicket(deps.store, owner.run.id, owner.key, () => ({
      mergeRequestedBy: intent.sender,
      note: undefined,
    })),
  );
  await answer(
    `Merge of ${name} requested by @${intent.sender}: the bot waits for its CI to complete green (a red check goes back to the ticket's worker) and checks that it merges cleanly (bringing it up to date or resolving conflicts in the ticket's worktree first), then squash-merges it. Progress on the scoreboard on ${owner.run.repo}#${owner.run.triggerIssue ?? '?'}.`,
  );
  hooks.reconcileSoon(owner.run.id);
  return 'answered';
};

export const requestReview = async (
  deps: Records & Workers & Forges & Log & Settings & Reviewers,
  hooks: FleetHooks,
  intent: Intent,
): Promise<IntentOutcome> => {
  if (intent.issueNumber === undefined) return 'refused';
  const pr = { repo: repoRefOf(intent.repo), number: intent.issueNumber };
  const forge = (await repoFactsCache(deps, { forge: intent.forge })(intent.repo)).forge;
  if (!(await canWrite(forge, pr, intent.sender))) {
    await forge.createComment(
      pr,
      `@${intent.sender}, \`/review\` needs write permission here, so no review was run.`,
    );
    return 'refused';
  }
  let prAuthor: string;
  try {
    prAuthor = (await forge.getPullRequest(pr)).author;
  } catch (err) {
    if (!isAppError(err, 'not_found')) throw err;
    await forge.createComment(
      pr,
      '`/review` works on a pull request; this is an issue, so no review was run.',
    );
    return 'refused';
  }
  // A PR the bot's worker wrote is reviewed against that worker; a person's PR gets a stand-in author.
  const owner = await ownerOf(deps, intent.forge, pr, false);
  const attempt = owner
    ? (await deps.ledger.listByRun(owner.run.id)).filter((a) => attemptKey(a) === owner.key).at(-1)
    : undefined;
  const r = await runReviewLeg(fleetReviewPorts(deps), {
    forge,
    pr,
    prAuthor,
    ...(attempt ? { attempt } : {}),
  });
  if (owner?.run.kind === 'fleet') {
    await hooks.serialized(owner.run.id, () =>
      updateTicket(deps.store, owner.run.id, owner.key, () => ({ review: r.verdict })),
    );
    hooks.reconcileSoon(owner.run.id);
  }
  return 'answered';
};
