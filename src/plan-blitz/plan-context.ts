// What one pass of a plan-blitz run works from, and the small store writes every step shares.
import type { RepoConfig } from '../config/repo-config.ts';
import type { Forge, RepoRef } from '../forges/types.ts';
import { attemptKey } from '../plan/issue-progress.ts';
import { type PlanProgress, type PlanWave, planProgressOf } from '../plan/plan-progress.ts';
import type { IssueKey, PlanIssue } from '../plan/types.ts';
import type { AttemptRecord } from '../runner/types.ts';
import type { Announcer, Clock, Log, Records, Reviewers, Settings, Workers } from '../runs/ports.ts';
import { writeProgress } from '../runs/run-writer.ts';
import type { RunIssueRecord, RunRecord } from '../store/run-store.ts';

/** What the plan steps use of the orchestrator's ports. */
export type PlanPorts = Records & Workers & Announcer & Clock & Log & Settings & Reviewers;

export interface PlanCtx {
  deps: PlanPorts;
  run: RunRecord;
  forge: Forge;
  repo: RepoRef;
  repoConfig: RepoConfig;
  defaultBranch: string;
  cloneUrl: string;
  /** Open issues of the milestone, by key. */
  issues: Map<IssueKey, PlanIssue>;
  rows: Map<IssueKey, RunIssueRecord>;
  attempts: AttemptRecord[];
  plan: PlanProgress;
  /** Steps that failed in this pass (retried next pass), shown on the dashboard: silence is not success. */
  problems: Map<IssueKey, string>;
  /** Why the run goes slower than it could this pass: the forge's rate limit is close (run-pace.ts). */
  slowed?: string;
}

export const attemptsOfIssue = (pc: PlanCtx, key: IssueKey): AttemptRecord[] =>
  pc.attempts.filter((a) => attemptKey(a) === key);

/** Writes the plan progress into the run at once, so a landing survives a crash of the next step. */
export const savePlan = async (pc: PlanCtx): Promise<void> => {
  pc.run = await writeProgress(pc.deps.store, pc.run.id, () => ({ planBlitz: pc.plan }));
};

export const reloadPlan = (run: RunRecord): PlanProgress => planProgressOf(run.progress);

export const waveOf = (pc: PlanCtx): PlanWave => {
  const w = pc.plan.waves.at(-1);
  if (!w) throw new Error('no wave in flight');
  return w;
};
