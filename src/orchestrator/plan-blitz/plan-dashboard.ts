// The plan run's sticky dashboard (pure): the same marker and coalescer as the blitz dashboard, with
// per-wave counts of approved / execution-ready / closed / held / refused (and pivoted), each
// member's lane and landing, the targets that matched nothing, cycles, holds and what is left.

import { markdownText } from '../../dashboard/escape.ts';
import { dashboardMarker, slowedLine } from '../../dashboard/render.ts';
import { sizeOf } from '../../plan/plan-labels.ts';
import { refOf } from '../context.ts';
import type { PlanCtx } from './plan-context.ts';
import { planProgressOf, tallyOf } from './plan-state.ts';

const num = (k: string) => `#${refOf(k).number}`;

export const renderPlanDashboard = (
  pc: Pick<PlanCtx, 'run' | 'plan' | 'rows' | 'issues'> & Partial<Pick<PlanCtx, 'problems' | 'slowed'>>,
): string => {
  const { run, plan } = pc;
  const lines = [
    dashboardMarker(run.id),
    `## plan-blitz: ${markdownText(run.milestoneTitle)}`,
    '',
    `State: **${run.state}**${run.progress.reason ? ` — ${markdownText(run.progress.reason, 400)}` : ''}`,
  ];
  if (pc.slowed) lines.push('', slowedLine(pc.slowed));
  if (plan.targets) lines.push('', `Targets: ${plan.targets.map(num).join(', ') || 'none'}`);
  if (plan.unmatched.length)
    lines.push(
      '',
      '**Unmatched targets** (not planned):',
      ...plan.unmatched.map((u) => `- ${markdownText(u.ref)}: ${markdownText(u.reason, 200)}`),
    );
  lines.push(
    '',
    '| wave | approved | execution-ready | closed | held | refused | pivoted |',
    '|---|---|---|---|---|---|---|',
  );
  for (const w of plan.waves) {
    const t = tallyOf(w);
    lines.push(
      `| ${w.index}${w.landed ? '' : ' (in flight)'} | ${t.approved} | ${t.executionReady} | ${t.closed} | ${t.held} | ${t.refused} | ${t.pivoted} |`,
    );
  }
  if (plan.waves.length === 0) lines.push('| – | 0 | 0 | 0 | 0 | 0 | 0 |');
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
        : (pc.rows.get(k)?.state ?? 'queued');
      lines.push(`- ${num(k)}${title} (${size}): ${where}`);
    }
    if (w.held.length)
      lines.push(...w.held.map((h) => `- held ${num(h.key)}: ${markdownText(h.reason, 200)}`));
  }
  if (pc.problems?.size)
    lines.push(
      '',
      '**Problems** (retried on the next pass):',
      ...[...pc.problems].map(([k, m]) => `- ${num(k)}: ${markdownText(m, 300)}`),
    );
  if (plan.cycles.length)
    lines.push(
      '',
      '**Cycles** (not planned until a person cuts them):',
      ...plan.cycles.map((c) => `- ${c.map(num).join(' ↔ ')}`),
    );
  if (plan.remaining.length)
    lines.push('', 'Still waiting:', ...plan.remaining.map((r) => `- ${markdownText(r, 300)}`));
  return lines.join('\n');
};

/** The dashboard posted when the run starts, before its first reconcile. */
export const initialPlanDashboard = (run: PlanCtx['run']): string =>
  renderPlanDashboard({ run, plan: planProgressOf(run.progress), rows: new Map(), issues: new Map() });
