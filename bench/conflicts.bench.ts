// Merge conflicts in a blitz (issue 37), end to end on the fake GitHub with a real origin and fake
// agents that really run git: a milestone of three conflicting pairs (each pair appends a line to its
// own file at the same place, both on one base), run to the end.
// - now: a refused merge goes back to the session that wrote the work, which merges the integration
//   branch in and keeps both lines;
// - baseline, in the same run: the same milestone with sessions that cannot resolve a conflict (their
//   resume fails), so every conflict ends, after the tries, in a bounce and a redo from scratch, as
//   every conflict did before issue 37.
// Figures: issues redone from scratch (goal 0) and worker attempts per issue (goal ≤ 1.3), and the
// sessions resumed to merge the integration branch in: told the branch changed their file
// (plan/base-change.ts) or sent back after a merge refused for the conflict.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ProbeResult } from '../src/runs/budget-probe.ts';
import { startBlitzHarness } from '../test/support/blitz-harness.ts';
import { tempDir } from '../test/support/git.ts';
import type { SeedIssue } from '../test/support/world.ts';
import type { Bench, Figure } from './figures.ts';
import { round } from './figures.ts';

const PAIRS = 3;
const issues: SeedIssue[] = Array.from({ length: PAIRS * 2 }, (_, i) => ({
  number: i + 1,
  title: `Add line ${i + 1}`,
  body: 'One line.',
}));
const files = Object.fromEntries(
  issues.map((i) => [`acme/app#${i.number}`, `pair-${Math.ceil(i.number! / 2)}.txt`]),
);
const all: ProbeResult = {
  status: 'ok',
  recommendedMaxSessions: PAIRS * 2,
  preferMedium: false,
  park: false,
};

/** The fake agent's `--resume` invocations, from its trace (one JSON line per invocation). */
const resumesIn = (trace: string): number =>
  existsSync(trace)
    ? readFileSync(trace, 'utf8')
        .split('\n')
        .filter(Boolean)
        .filter((l) => (JSON.parse(l) as { args: string[] }).args.includes('--resume')).length
    : 0;

const conflicts = async (resumeMode: 'merge-base' | 'fail') => {
  const trace = join(tempDir('conflicts-trace-'), 'trace.jsonl');
  const h = await startBlitzHarness({
    forge: 'github',
    issues,
    maxSessions: PAIRS * 2,
    budgetProbe: async () => all,
    files: Object.fromEntries([...new Set(Object.values(files))].map((f) => [f, '# lines\n'])),
    // `fail` on a resume: the session exits non-zero with the conflict left as it is.
    agentEnv: {
      FAKE_AGENT_MODE: 'append',
      FAKE_AGENT_FILES: JSON.stringify(files),
      FAKE_AGENT_RESUME_MODE: resumeMode,
      FAKE_AGENT_TRACE: trace,
    },
  });
  try {
    await h.comment('/blitz M1');
    await h.drive(async () => {
      const run = await h.liveRun();
      return (
        !!run && ['done', 'blocked'].includes(run.state) && (await h.bot.runs.ledger.listOpen()).length === 0
      );
    }, 600_000);
    const run = (await h.liveRun())!;
    const rows = await h.bot.runs.listRunIssues(run.id);
    const attempts = await h.bot.runs.ledger.listByRun(run.id);
    return {
      redone: rows.filter((r) => r.bouncedAfter !== undefined).length,
      perIssue: attempts.length / issues.length,
      resumes: resumesIn(trace),
      refusedMerges: rows.reduce((n, r) => n + (r.conflictResumes ?? 0), 0),
      closed: issues.filter((i) => h.world.issue(h.repo, i.number!)?.state === 'closed').length,
    };
  } finally {
    await h.close();
  }
};

const bench: Bench = async () => {
  const now = await conflicts('merge-base');
  const baseline = await conflicts('fail');
  const figures: Figure[] = [
    { name: 'conflicts.redone_from_scratch', value: now.redone, unit: 'issues' },
    { name: 'conflicts.attempts_per_issue', value: round(now.perIssue, 2), unit: 'attempts' },
    { name: 'conflicts.resumed_sessions', value: now.resumes, unit: 'resumes' },
    { name: 'conflicts.refused_merge_resumes', value: now.refusedMerges, unit: 'resumes' },
    { name: 'conflicts.issues_closed', value: now.closed, unit: 'issues' },
    { name: 'conflicts.baseline.redone_from_scratch', value: baseline.redone, unit: 'issues' },
    { name: 'conflicts.baseline.attempts_per_issue', value: round(baseline.perIssue, 2), unit: 'attempts' },
    { name: 'conflicts.baseline.issues_closed', value: baseline.closed, unit: 'issues' },
  ];
  return figures;
};

export default bench;
