// What a run's stop is about, as typed facts. A blocked run whose plan stops it for the same cause again
// writes nothing (plan/next-actions.ts); the run keeps the cause of its last stop (`progress.stopCause`)
// and the planner compares that, never the stop's sentence, which is made for people from the same facts.
import type { Classified, HoldKind } from './classify.ts';
import { factsKey } from './facts-key.ts';
import type { IssueKey } from './types.ts';

/** The gate whose red result stopped the run. */
export type GateCause = 'build' | 'smoke' | 'ship';

/** One issue that keeps the run from going on, as the classifier saw it. */
export interface StuckIssue {
  issue: IssueKey;
  category: 'blocked' | 'cycle' | 'held' | 'epic';
  /** The open issues it waits on: its blockers, its cycle's other members, an epic's open children. */
  on?: IssueKey[];
  /** Blockers it names that cannot be found or read. */
  unknown?: IssueKey[];
  hold?: HoldKind;
}

/** plan-blitz: what its stop left out for a person to cut (cycles, blockers that cannot be read). */
export interface NotPlanned {
  cycles: IssueKey[][];
  unreadable: { blocker: IssueKey; namedBy: IssueKey[] }[];
}

export type StopCause = (
  | { kind: 'finished' }
  | { kind: 'dry_run' }
  | { kind: 'budget_park' }
  /** A red gate: the build or smoke red `failures` times in a row, or the ship on `path` failed. */
  | { kind: 'gate_red'; gate: GateCause; failures?: number; path?: string }
  /** Checks are required and none ran green. */
  | { kind: 'unverified' }
  /** Only open epics are left, or nothing can run: the issues that keep it from going on. */
  | { kind: 'epics_open' | 'nothing_can_run'; stuck: StuckIssue[] }
  /** plan-blitz: the last wave approved, readied and closed nothing. */
  | { kind: 'wave_idle'; wave: number }
  /** plan-blitz: its waves are spent with `left` still to plan, or the next one is empty. */
  | { kind: 'waves_spent'; left: IssueKey[] }
  | { kind: 'wave_empty' }
) & { notPlanned?: NotPlanned };

export type StopKind = StopCause['kind'];

/** The stuck issues `keys` as their classification says, in the order given. */
export const stuckIssuesOf = (c: Classified, keys: readonly IssueKey[]): StuckIssue[] =>
  keys.flatMap((issue): StuckIssue[] => {
    const x = c.byKey.get(issue);
    switch (x?.category) {
      case 'blocked':
        return [{ issue, category: x.category, on: x.waitingOn, unknown: x.unknown }];
      case 'cycle':
        return [{ issue, category: x.category, on: x.members }];
      case 'held':
        return [{ issue, category: x.category, hold: x.kind }];
      case 'epic':
        return [{ issue, category: x.category, on: x.openChildren }];
      default:
        return [];
    }
  });

/** True when both are the same stop; a stop kept before causes were kept is never the same as one now. */
export const sameStopCause = (a: StopCause | undefined, b: StopCause | undefined): boolean =>
  a !== undefined && b !== undefined && factsKey(a) === factsKey(b);
