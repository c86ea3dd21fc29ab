// The integration half of a run: PRs for pushed branches, review legs, serial merges, one build
// over the merges since the last build, bounces on a failed build, and closing what a green build
// covered. A "wave" for the build is the set of merges since the last build: the build runs once
// the integration pipeline has drained (nothing pushed, in review or waiting to merge).
import { baseChangeChecks } from './base-change.ts';
import { pickReviewer } from './routing.ts';
import type { RunContext } from './run-context.ts';
import { defaultMaxBuildAttempts } from './run-context.ts';
import type { Action } from './snapshot.ts';
import { orderForDispatch } from './wave.ts';

export const lastEntryName = (ctx: RunContext, k: string): string | undefined => {
  const attempts = ctx.progress.get(k)?.attempts ?? [];
  return attempts[attempts.length - 1]?.entry;
};

/** Resume, tell, open_pr, review and (at most one) merge actions, in key order. */
export const pipelineActions = (ctx: RunContext): Action[] => {
  const out: Action[] = [];
  const { snap } = ctx;
  for (const k of ctx.workers) {
    const p = ctx.progress.get(k)!;
    const entry = lastEntryName(ctx, k);
    if (p.workerAlive === false && entry !== undefined) out.push({ type: 'resume', issue: k, entry });
  }
  // `/blitz tell` to a running session: at once, by a nudge that carries the message.
  for (const k of [...ctx.workers, ...ctx.integrating])
    if (ctx.progress.get(k)!.tellNow) out.push({ type: 'tell', issue: k });
  // The integration branch moved under an open PR: its files are compared first (the tell's resume
  // then comes before its merge).
  const compares = baseChangeChecks(
    snap.baseChanges,
    ctx.integrating.flatMap((k) => {
      const pr = ctx.progress.get(k)!.pr;
      return pr && !pr.merged ? [{ key: k, pr: pr.number }] : [];
    }),
  );
  out.push(...compares);
  const comparing = new Set(compares.map((a) => a.issue));
  const mergeable: string[] = [];
  for (const k of ctx.integrating) {
    const p = ctx.progress.get(k)!;
    if (!p.pr) {
      out.push({ type: 'open_pr', issue: k });
      continue;
    }
    // The PR feedback loop acts on every gated PR (resume, hold, the bot's own check).
    if (p.prGate) out.push({ type: 'pr_feedback', issue: k, pr: p.pr.number });
    if (!p.reviewPosted) {
      const authorName = lastEntryName(ctx, k);
      const author = snap.roster.find((e) => e.name === authorName) ?? {
        name: authorName ?? 'unknown',
        tool: 'custom' as const,
        roles: [],
        tiers: [],
        costRank: 0,
      };
      out.push({ type: 'review', issue: k, pr: p.pr.number, reviewer: pickReviewer(snap.roster, author) });
      continue;
    }
    // Fleet PRs merge only on a person's word (seed 004).
    if (snap.kind === 'fleet' && !p.mergeRequested) continue;
    // Nothing merges red, unread, or while a writer's change request stands (issue 21).
    if (p.prGate && p.prGate.kind !== 'merge') continue;
    if (comparing.has(k)) continue;
    mergeable.push(k);
  }
  // A merge while the build runs would land outside what the build covers: wait for it.
  if (snap.kind === 'blitz' && snap.build.status === 'running') return out;
  const first = orderForDispatch(ctx.graph.issues, mergeable)[0];
  if (first !== undefined) {
    const p = ctx.progress.get(first)!;
    const head = p.prGate?.head;
    out.push({ type: 'merge', issue: first, pr: p.pr!.number, ...(head ? { head } : {}) });
  }
  return out;
};

export interface BuildStep {
  actions: Action[];
  /** The run has to stop (a build that stays red after the honest attempts). */
  stop: boolean;
}

/** Blitz only: bounce, build or close, given what is merged and what the last build said. */
export const buildActions = (ctx: RunContext, mergeThisCall: boolean): BuildStep => {
  const { build } = ctx.snap;
  const merged = ctx.merged;
  if (build.status === 'running' || merged.length === 0) return { actions: [], stop: false };
  const maxBuilds = ctx.snap.options.maxBuildAttempts ?? defaultMaxBuildAttempts;
  if (build.status === 'failed') {
    if (build.failures >= maxBuilds) {
      const reason = `the build failed ${build.failures} times in a row on the integration branch`;
      return {
        actions: [
          {
            type: 'notify',
            level: 'blocked',
            title: `blitz: ${ctx.snap.milestoneTitle} BLOCKED`,
            message: reason,
          },
          {
            type: 'stop',
            state: 'blocked',
            reason,
            gate: 'build',
            cause: { kind: 'gate_red', gate: 'build', failures: build.failures },
          },
        ],
        stop: true,
      };
    }
    const targets =
      build.responsible !== undefined
        ? merged.filter((k) => k === build.responsible)
        : merged.filter((k) => build.covers.includes(k));
    if (targets.length > 0)
      return {
        actions: targets.map((k) => ({
          type: 'bounce' as const,
          issue: k,
          reason: 'the build failed after its merge',
        })),
        stop: false,
      };
  }
  const green = build.status === 'passed' ? new Set(build.covers) : new Set<string>();
  const actions: Action[] = merged
    .filter((k) => green.has(k))
    .map((k) => ({ type: 'close_issue' as const, issue: k }));
  const unbuilt = merged.filter((k) => !green.has(k));
  if (unbuilt.length > 0 && ctx.integrating.length === 0 && !mergeThisCall)
    actions.push({ type: 'run_build', covers: unbuilt });
  return { actions, stop: false };
};
