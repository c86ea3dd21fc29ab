// Where a scale run's time went, per issue, from what the run left behind: the World's log (each entry
// stamped with the wall clock), the CI results' times and the bot's attempt ledger. Two stretches are
// the orchestrator's, not the worker's: from "ready" to "worker started", and from "PR green" (its
// head's CI passed and the PR is open) to "merged". Each is cut into the steps the bench can see:
// "worker started" is when a runner took the issue's job (the attempt's row), then the process starts
// once its repository is made (the ledger's launchedAt).
import type { AttemptRecord } from '../src/runner/types.ts';
import type { World, WorldRepo } from '../test/support/world.ts';
import { percentile, round } from './figures.ts';

export interface TimelineInput {
  world: World;
  repo: WorldRepo;
  /** Wall-clock time of each World log entry, by index (performance.now). */
  stamps: readonly number[];
  ciAt: ReadonlyMap<string, { at: number; passed: boolean }>;
  /** The attempts of the repository's run. */
  attempts: readonly AttemptRecord[];
  /** When `/blitz M1` was sent (performance.now). */
  commandAt: number;
  /** The milestone's issues a worker takes (its epics apart: no worker, closed with their children). */
  issues: readonly number[];
  epics: ReadonlySet<number>;
  /** performance.now() − Date.now() at one instant: maps the ledger's ISO times onto the stamps. */
  clockOffset: number;
}

export type Steps = Map<string, number[]>;

const add = (steps: Steps, name: string, ms: number | undefined) => {
  if (ms === undefined || !Number.isFinite(ms)) return;
  const list = steps.get(name) ?? [];
  list.push(Math.max(0, ms));
  steps.set(name, list);
};

/** Adds one repository's steps to `steps`. */
export const timelineSteps = (t: TimelineInput, steps: Steps): void => {
  const full = `${t.repo.owner}/${t.repo.name}`;
  const firstAt = (action: string, target: number) => {
    const i = t.world.log.findIndex((e) => e.repo === full && e.action === action && e.target === target);
    return i < 0 ? undefined : t.stamps[i];
  };
  const lastAt = (action: string, target: number) => {
    const i = t.world.log.findLastIndex((e) => e.repo === full && e.action === action && e.target === target);
    return i < 0 ? undefined : t.stamps[i];
  };
  const onBot = (iso: string | undefined) => (iso ? Date.parse(iso) + t.clockOffset : undefined);
  // The worker PR of each issue and when it merged.
  const prOf = new Map<number, number>();
  for (const a of t.attempts) {
    const pr = [...t.repo.issues.values()].find((i) => i.pull?.head === a.branch);
    if (pr) prOf.set(a.issue.number, pr.number);
  }
  const mergedAt = (n: number) => {
    const pr = prOf.get(n);
    return pr === undefined ? undefined : firstAt('merge', pr);
  };
  for (const number of t.issues) {
    const issue = t.repo.issues.get(number)!;
    const first = t.attempts
      .filter((a) => a.issue.number === issue.number)
      .sort((a, b) => a.startedAt.localeCompare(b.startedAt))[0];
    const started = onBot(first?.startedAt);
    // The first session's process start, where nothing relaunched it since (a resume moves launchedAt).
    const launched =
      first && first.nudges === 0 && (first.feedbackResumes ?? 0) === 0 ? onBot(first.launchedAt) : undefined;
    if (started !== undefined && launched !== undefined)
      add(steps, 'ready→started: job taken → worker launched (its repository made)', launched - started);
    const blockers = issue.blockedBy.filter((b) => b.repo === t.repo.name && !t.epics.has(b.number));
    if (blockers.length === 0)
      add(steps, 'ready→started: command sent → job taken (first wave)', started! - t.commandAt);
    else {
      // Ready when its last blocker merged; the bot sees it through that blocker's close.
      const last = blockers
        .map((b) => ({ merged: mergedAt(b.number), closed: firstAt('close', b.number) }))
        .sort((a, b) => (b.merged ?? 0) - (a.merged ?? 0))[0]!;
      if (last.merged !== undefined && started !== undefined) {
        add(
          steps,
          'ready→started: blocker merged → blocker closed',
          (last.closed ?? last.merged) - last.merged,
        );
        add(steps, 'ready→started: blocker closed → job taken', started - (last.closed ?? last.merged));
        add(steps, 'ready→started: total (merged → job taken)', started - last.merged);
      }
    }
    const pr = prOf.get(issue.number);
    if (pr === undefined) continue;
    const opened = firstAt('open_pull', pr);
    const merged = mergedAt(issue.number);
    const exited = onBot(
      t.attempts
        .filter((a) => a.issue.number === issue.number && a.endedAt)
        .sort((a, b) => a.endedAt!.localeCompare(b.endedAt!))[0]?.endedAt,
    );
    add(steps, 'worker: started → exited (first session)', exited! - started!);
    add(steps, 'PR: worker exited → PR opened', opened! - exited!);
    const head = t.repo.issues.get(pr)?.pull?.headSha;
    const ci = head ? t.ciAt.get(head) : undefined;
    if (opened === undefined || merged === undefined || !ci?.passed) continue;
    const green = Math.max(opened, ci.at);
    add(steps, 'PR: PR opened → green (its head’s CI passed)', green - opened);
    // The review leg's one comment on the PR, when it came after green.
    const reviewed = lastAt('comment', pr);
    if (reviewed !== undefined && reviewed > green && reviewed < merged) {
      add(steps, 'green→merged: green → review posted', reviewed - green);
      add(steps, 'green→merged: review posted → merged', merged - reviewed);
    }
    add(steps, 'green→merged: total', merged - green);
    const closed = firstAt('close', issue.number);
    if (closed !== undefined) add(steps, 'merged→closed', closed - merged);
  }
};

/** `name: p50 … p95 … (n)` lines, in a fixed order. */
export const stepLines = (steps: Steps): string[] =>
  [...steps]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(
      ([name, xs]) =>
        `  ${name}: p50 ${round(percentile(xs, 50) / 1000, 2)} s, p95 ${round(percentile(xs, 95) / 1000, 2)} s (n=${xs.length})`,
    );
