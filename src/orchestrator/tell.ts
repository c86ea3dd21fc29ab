// `/blitz tell #n <message>` (writers only: intake refused everyone else): the message is kept for the
// worker of issue n in the live run (blitz or fleet) that holds the issue. A running session gets it
// at once, by a nudge that carries it (tell-nudge.ts); an ended one at its next resume, which the PR
// feedback loop makes at once when the worker's PR is open. The message is a person's text: it goes
// into the prompt fenced as data, like review comments.
import type { Command } from '../commands/schema.ts';
import { type IssueRef, repoRefOf, sameRepo } from '../forges/types.ts';
import { attemptKey } from '../plan/issue-progress.ts';
import { issueKey } from '../plan/types.ts';
import type { Forges, Log, Records, Workers } from '../runs/ports.ts';
import { writeProgress } from '../runs/run-writer.ts';
import { emptyFeedbackState } from '../ship/pr-feedback-forge.ts';
import type { RunRecord } from '../store/run-store.ts';
import type { Intent } from '../store/types.ts';
import { type IntentOutcome, placeOf } from './start-run.ts';

export interface TellHooks {
  reconcileSoon(runId: string): void;
}

/** The live run whose worker has (or had) issue `ref`: its attempts name it. */
const runOfIssue = async (
  deps: Records & Workers,
  forge: Intent['forge'],
  ref: IssueRef,
): Promise<RunRecord | undefined> => {
  const key = issueKey(`${ref.repo.owner}/${ref.repo.name}`, ref.number);
  for (const run of await deps.store.listLiveRuns()) {
    if (run.forge !== forge || run.kind === 'plan') continue;
    if ((await deps.ledger.listByRun(run.id)).some((a) => attemptKey(a).toLowerCase() === key.toLowerCase()))
      return run;
    const rows = await deps.store.listRunIssues(run.id);
    if (rows.some((r) => r.number === ref.number && sameRepo(repoRefOf(r.repo), ref.repo))) return run;
  }
  return undefined;
};

export const handleTell = async (
  deps: Records & Workers & Forges & Log,
  hooks: TellHooks,
  intent: Intent,
  cmd: Extract<Command, { name: 'blitz-tell' }>,
): Promise<IntentOutcome> => {
  const home = repoRefOf(intent.repo);
  const ref: IssueRef = {
    repo: { owner: cmd.issue.owner ?? home.owner, name: cmd.issue.repo ?? home.name },
    number: cmd.issue.number,
  };
  const name = sameRepo(ref.repo, home)
    ? `#${ref.number}`
    : `${ref.repo.owner}/${ref.repo.name}#${ref.number}`;
  const { answer } = await placeOf(deps, intent);
  const run = await runOfIssue(deps, intent.forge, ref);
  if (!run) {
    await answer(`No live run is working on ${name}, so your message was not passed on.`);
    return 'refused';
  }
  const key = issueKey(`${ref.repo.owner}/${ref.repo.name}`, ref.number);
  await deps.store.withRunLock(run.id, async () => {
    await writeProgress(deps.store, run.id, (p) => {
      const state = p.prFeedback?.[key] ?? emptyFeedbackState();
      if (state.tells?.some((t) => t.id === intent.id)) return undefined;
      const tells = [...(state.tells ?? []), { id: intent.id, by: intent.sender, text: cmd.message }];
      return { prFeedback: { ...p.prFeedback, [key]: { ...state, tells } } };
    });
  });
  const attempts = (await deps.ledger.listByRun(run.id)).filter((a) => attemptKey(a) === key);
  const running = attempts.some((a) => a.outcome === undefined);
  await answer(
    running
      ? `Noted for ${name}: its worker is running, so the bot stops its session and resumes it with your message now.`
      : `Noted for ${name}: its worker's session gets your message at its next resume (once its pull request is open, at the latest).`,
  );
  hooks.reconcileSoon(run.id);
  return 'answered';
};
