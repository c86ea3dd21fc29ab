// `/blitz retry #n`, `/blitz skip #n`, `/blitz unhold #n` (writers only; intake checked that): the facts
// of the issue are read from the tracker, the store and the ledger, decideSteer says what to do, and
// this applies it, between reconcile passes, then answers once. A refusal changes nothing.
import type { Command } from '../commands/schema.ts';
import { type Forge, repoRefOf } from '../forges/types.ts';
import { issueCapsOf } from '../plan/issue-caps.ts';
import { attemptKey, liveAttempt } from '../plan/issue-progress.ts';
import { runOptionsOf } from '../plan/run-options.ts';
import type { RunState } from '../plan/states.ts';
import { decideSteer, type SteerEffect, type SteerIssueFacts } from '../plan/steer.ts';
import { steerIssueFactsOf } from '../plan/steer-facts.ts';
import { issueKey, planLabels } from '../plan/types.ts';
import { onAttemptHost } from '../queue/dispatcher.ts';
import type { Forges, Log, Records, Settings, Workers } from '../runs/ports.ts';
import { writeIssue } from '../runs/run-writer.ts';
import type { RunRecord } from '../store/run-store.ts';
import type { Intent } from '../store/types.ts';
import { releasePrHold } from './pr-feedback.ts';
import { type CommandHooks, placeOf, runOfCommand } from './start-run.ts';

type IssueCommand = Extract<Command, { name: 'blitz-issue' }>;

/** What the tracker, the run's rows and the ledger say about the issue, for decideSteer. */
const issueFacts = async (
  deps: Records & Workers & Settings,
  forge: Forge,
  run: RunRecord,
  cmd: IssueCommand,
): Promise<{ facts: SteerIssueFacts; key: string; repo: string }> => {
  const base = repoRefOf(run.repo);
  const repo = { owner: cmd.issue.owner ?? base.owner, name: cmd.issue.repo ?? base.name };
  const repoName = `${repo.owner}/${repo.name}`;
  const key = issueKey(repoName, cmd.issue.number);
  const issue = await forge.getIssue({ repo, number: cmd.issue.number }).catch(() => undefined);
  const facts = steerIssueFactsOf(
    run,
    { key, repo: repoName, number: cmd.issue.number },
    { issue, rows: await deps.store.listRunIssues(run.id), attempts: await deps.ledger.listByRun(run.id) },
    {
      runnerRetries: deps.config.runner.retries,
      caps: issueCapsOf(deps.config.runner, deps.config.prices),
      options: runOptionsOf(run),
    },
  );
  return { key, repo: repoName, facts };
};

/** Applies an accepted effect to the run's rows (and the tracker, for a hold label). */
const apply = async (
  deps: Records & Workers & Settings,
  forge: Forge,
  run: RunRecord,
  target: { key: string; repo: string; number: number },
  effect: SteerEffect,
): Promise<void> => {
  const attempts = (await deps.ledger.listByRun(run.id)).filter((a) => attemptKey(a) === target.key);
  // Failures (and the caps) count afresh after the newest attempt: a new allowance.
  const fresh = { retriedAfter: attempts.at(-1)?.id ?? '-', skipped: false };
  switch (effect.type) {
    case 'retry':
      await writeIssue(deps.store, run.id, target.repo, target.number, fresh);
      await releasePrHold(deps, run.id, target.key);
      return;
    case 'unskip':
      await writeIssue(deps.store, run.id, target.repo, target.number, { skipped: false });
      return;
    case 'skip': {
      await writeIssue(deps.store, run.id, target.repo, target.number, { skipped: true });
      const live = liveAttempt(attempts);
      if (effect.cancelWorker && live)
        await onAttemptHost(deps, { kind: 'cancel', attemptId: live.id }, [live]);
      return;
    }
    case 'unhold':
      if (effect.removeLabel)
        await forge.removeLabel({ repo: repoRefOf(target.repo), number: target.number }, planLabels.hold);
      else await writeIssue(deps.store, run.id, target.repo, target.number, fresh);
      return;
    default:
      // tell, review and accept-review are applied by their own handlers.
      return;
  }
};

/** The handler of `blitz-issue` intents (retry, skip, unhold) on the live run of the repository. */
export const createSteerHandler =
  (deps: Records & Workers & Forges & Log & Settings, hooks: CommandHooks) =>
  async (intent: Intent, cmd: IssueCommand): Promise<'answered' | 'refused'> => {
    const { forge, answer: say } = await placeOf(deps, intent);
    const { run, runs } = await runOfCommand(deps, intent, ['blitz']);
    if (!run) {
      await say(
        runs.length === 0
          ? `No blitz is running on this repository, so \`/blitz ${cmd.action}\` changed nothing.`
          : 'Several blitzes are running here; use the command on the issue that carries the one you mean.',
      );
      return 'refused';
    }
    const reply = await hooks.serialized(run.id, async () => {
      const fresh = (await deps.store.getRun(run.id)) ?? run;
      const { facts, key, repo: repoName } = await issueFacts(deps, forge, fresh, cmd);
      const decision = decideSteer(
        { name: 'blitz-issue', action: cmd.action, issue: facts },
        { runState: fresh.state as RunState },
      );
      if (decision.ok)
        await apply(deps, forge, fresh, { key, repo: repoName, number: cmd.issue.number }, decision.effect);
      deps.logger.info(
        { runId: run.id, issue: key, action: cmd.action, ok: decision.ok },
        decision.ok ? 'steering applied' : 'steering refused',
      );
      return decision;
    });
    await say(reply.reply);
    if (reply.ok) hooks.reconcileSoon(run.id);
    return reply.ok ? 'answered' : 'refused';
  };
