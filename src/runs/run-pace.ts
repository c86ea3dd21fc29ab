// What a run of any kind (blitz, fleet, plan) reads alike in its load (its rows and attempts, this
// host's worker limit, the forge's pace), the part of its snapshot built from that alike, and how it
// obeys that pace (forges/rate-budget.ts): the session limit it plans with, whether it may start a
// worker at all this pass, and the reason its dashboard shows. One place, so the three run kinds slow
// down the same way and say so in the same words.
import { type Pace, pacedSessions } from '../forges/rate-budget.ts';
import { budgetOf, type ProbeAnswer } from '../plan/budget.ts';
import type { RunSnapshot } from '../plan/snapshot.ts';
import type { RunRecord } from '../store/run-store.ts';
import type { Forges, Records, Settings, Workers } from './ports.ts';

/** The run's rows and attempts, this host's worker limit and the forge's pace: every load reads them. */
export const readRunRecords = async (deps: Records & Workers & Forges, run: RunRecord) => ({
  rows: await deps.store.listRunIssues(run.id),
  attempts: await deps.ledger.listByRun(run.id),
  machine: deps.machine?.() ?? deps.runner.limit(),
  pace: deps.forgePace?.(run),
});

/**
 * The session limit under a pace: the same at full speed, fewer near a limit. A spent budget keeps the
 * limit and holds dispatches instead (`dispatchHeld`), so a planner does not read a limit of 0 as a
 * park that waits for a person.
 */
export const pacedLimit = (limit: number, pace: Pace | undefined): number =>
  pace && pace.sessionFactor > 0 ? Math.min(limit, pacedSessions(limit, pace)) : limit;

/** True when the pace allows no new worker this pass (the budget is nearly spent until its reset). */
export const dispatchHeld = (pace: Pace | undefined): boolean => pace?.sessionFactor === 0;

/** The reason a run goes slower than it could, for its dashboard; undefined at full speed. */
export const paceReason = (pace: Pace | undefined): string | undefined => pace?.reason || undefined;

/**
 * The part of a pass's snapshot every run kind builds alike: its issues, the budget, the host's worker
 * limit under the forge's pace, the roster, and no changed files, build, smoke or ship yet. Each kind
 * adds its own fields (or replaces these) after it.
 */
export const commonSnapshot = (
  deps: Settings,
  kind: RunSnapshot['kind'],
  options: RunSnapshot['options'],
  r: Pick<RunSnapshot, 'issues'> &
    Partial<Pick<RunSnapshot, 'external' | 'progress'>> & {
      milestone: { title: string; description: string };
      /** The budget probe's last answer; none yet plans with one worker. */
      budget: ProbeAnswer | undefined;
    } & Pick<Awaited<ReturnType<typeof readRunRecords>>, 'machine' | 'pace'>,
): RunSnapshot => ({
  kind,
  options,
  milestoneTitle: r.milestone.title,
  milestoneDescription: r.milestone.description,
  changedFiles: [],
  issues: r.issues,
  external: r.external ?? [],
  progress: r.progress ?? [],
  budget: budgetOf(r.budget, options.maxSessions),
  ...pacedMachine(r.machine, r.pace),
  build: { status: 'none', covers: [], failures: 0 },
  smoke: 'none',
  ship: 'none',
  roster: deps.config.roster,
});

/** The host's worker limit under the pace, and the dispatches held while it is spent. */
const pacedMachine = (
  machine: RunSnapshot['machine'],
  pace: Pace | undefined,
): Pick<RunSnapshot, 'machine' | 'forgeSpent'> => ({
  machine: { limit: pacedLimit(machine.limit, pace), contended: machine.contended },
  ...(dispatchHeld(pace) ? { forgeSpent: true } : {}),
});
