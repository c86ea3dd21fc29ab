// The plan run's sticky dashboard (pure): the same marker and coalescer as the blitz dashboard, with
// per-wave counts of approved / execution-ready / closed / held / refused (and pivoted), each
// member's lane and landing, the targets that matched nothing, cycles, holds and what is left.

import { sizeOf } from '../plan/plan-labels.ts';
import { type PlanProgress, planProgressOf, tallyOf } from '../plan/plan-progress.ts';
import { issueStateWords, runStateWords } from '../plan/state-words.ts';
import { type IssueKey, issueRef, type PlanIssue } from '../plan/types.ts';
import type { RunRecord } from '../store/run-store.ts';
import { markdownText } from './escape.ts';
import { dashboardMarker, slowedLine } from './render.ts';

/** What the plan run's dashboard shows: the run, its waves, and what the pass read of its issues. */
export interface PlanDashboardInput {
  run: Pick<RunRecord, 'id' | 'milestoneTitle' | 'state' | 'progress'>;
  plan: PlanProgress;
  /** Each issue's phase as its run_issues row says (a member not landed shows it). */
  rows: ReadonlyMap<IssueKey, { state: string }>;
  /** Open issues of the milestone: a member's title and size. */
  issues: ReadonlyMap<IssueKey, Pick<PlanIssue, 'title' | 'labels'>>;
  /** Steps that failed in this pass (retried next pass). */
  problems?: ReadonlyMap<IssueKey, string>;
  /** Why the run goes slower than it could this pass. */
  slowed?: string;
  /** Members waiting out an environment failure's backoff, with the sentence (plan-member.ts `environmentWait`). */
  waiting?: ReadonlyMap<IssueKey, string>;
}

export const renderPlanDashboard = (pc: PlanDashboardInput): string => {
  const { run, plan } = pc;
  const lines = [
    dashboardMarker(run.id),
    `## plan-blitz: ${markdownText(run.milestoneTitle)}`,
    '',
    `State: **${runStateWords(run.state)}**${run.progress.reason ? ` — ${markdownText(run.progress.reason, 400)}` : ''}`,
  ];
  if (pc.slowed) lines.push('', slowedLine(pc.slowed));
  if (plan.targets) lines.push('', `Targets: ${plan.targets.map(issueRef).join(', ') || 'none'}`);
  if (plan.unmatched.length)
    lines.push(
      '',
      '**Unmatched targets** (not planned):',
      ...plan.unmatched.map((u) => `- ${markdownText(u.ref)}: ${markdownText(u.reason, 200)}`),
    );
  lines.push(
    '',
    '| wave | approved | execution-ready | closed | held | refused | pivoted | parked |',
    '|---|---|---|---|---|---|---|---|',
  );
  for (const w of plan.waves) {
    const t = tallyOf(w);
    lines.push(
      `| ${w.index}${w.landed ? '' : ' (in flight)'} | ${t.approved} | ${t.executionReady} | ${t.closed} | ${t.held} | ${t.refused} | ${t.pivoted} | ${t.parked} |`,
    );
  }
  if (plan.waves.length === 0) lines.push('| – | 0 | 0 | 0 | 0 | 0 | 0 | 0 |');
  for (const w of plan.waves) {
    lines.push('', `### Wave ${w.index}`);
    for (const k of w.members) {
      const o = w.outcomes[k];
      const issue = pc.issues.get(k);
      const size = o?.size ?? (issue ? sizeOf(issue) : undefined) ?? 'unsized';
      const known = issue?.title ?? o?.title;
      const title = known !== undefined ? ` ${markdownText(known, 60)}` : '';
      const where = o
        ? `**${o.landing}**${o.note ? ` — ${markdownText(o.note, 200)}` : ''}`
        : `${issueStateWords(pc.rows.get(k)?.state ?? 'queued')}${pc.waiting?.has(k) ? ` — ${markdownText(pc.waiting.get(k)!, 200)}` : ''}`;
      lines.push(`- ${issueRef(k)}${title} (${size}): ${where}`);
    }
    if (w.held.length)
      lines.push(...w.held.map((h) => `- held ${issueRef(h.key)}: ${markdownText(h.reason, 200)}`));
  }
  if (pc.problems?.size)
    lines.push(
      '',
      '**Problems** (retried on the next pass):',
      ...[...pc.problems].map(([k, m]) => `- ${issueRef(k)}: ${markdownText(m, 300)}`),
    );
  if (plan.cycles.length)
    lines.push(
      '',
      '**Cycles** (not planned until a person cuts them):',
      ...plan.cycles.map((c) => `- ${c.map(issueRef).join(' ↔ ')}`),
    );
  if (plan.remaining.length)
    lines.push('', 'Still waiting:', ...plan.remaining.map((r) => `- ${markdownText(r, 300)}`));
  return lines.join('\n');
};

/** The dashboard posted when the run starts, before its first reconcile. */
export const initialPlanDashboard = (run: PlanDashboardInput['run']): string =>
  renderPlanDashboard({ run, plan: planProgressOf(run.progress), rows: new Map(), issues: new Map() });
