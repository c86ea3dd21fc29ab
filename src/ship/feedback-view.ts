// The PR feedback loop's answer as the planner sees it on each issue's progress: the gate's decision on
// its open PR (`prGate`; a PR whose reads failed waits), and whether its running session has messages
// waiting that go to it now (`tellNow`, from tell-delivery.ts `tellStep`).
import { issueAttempts } from '../plan/issue-progress.ts';
import type { IssueProgress } from '../plan/snapshot.ts';
import type { AttemptRecord } from '../runner/types.ts';
import type { RunIssueRecord, RunProgress } from '../store/run-store.ts';
import type { PrFacts } from './pr-facts.ts';
import { tellStep } from './tell-delivery.ts';

export const withPrFeedback = (
  progress: readonly IssueProgress[],
  facts: ReadonlyMap<string, PrFacts>,
  feedback: RunProgress['prFeedback'],
  ctx: { attempts: readonly AttemptRecord[]; rows: ReadonlyMap<string, RunIssueRecord> },
): IssueProgress[] =>
  progress.map((p) => {
    const f = facts.get(p.key);
    const gated: IssueProgress =
      !p.pr || p.pr.merged
        ? p
        : {
            ...p,
            prGate: f
              ? { kind: f.decision.kind, why: f.decision.why, head: f.head }
              : { kind: 'wait', why: 'the PR checks and reviews could not be read' },
          };
    return tellStep(feedback?.[p.key]?.tells, issueAttempts(ctx, p.key)).kind === 'nudge'
      ? { ...gated, tellNow: true }
      : gated;
  });
