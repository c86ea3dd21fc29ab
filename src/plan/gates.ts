// The two plan-blitz gates, computed here and nowhere else (seed 002: "read them, never derive
// them"). Execution: every blocker closed. Planning: every blocker closed or carrying an approved
// plan (label `plan/approved`). A blocker nobody can read fails both gates closed.
import type { PlanGraph } from './graph.ts';
import { stateOf } from './graph.ts';
import type { IssueKey } from './types.ts';
import { hasLabel, planLabels } from './types.ts';

export interface Gate {
  open: boolean;
  /** Blockers that are open (and, for the planning gate, lack an approved plan). */
  waitingOn: IssueKey[];
  /** Blockers that do not exist or could not be read. */
  unknown: IssueKey[];
}

export type GateKind = 'execution' | 'planning';

const gate = (g: PlanGraph, k: IssueKey, satisfied: (b: IssueKey) => boolean): Gate => {
  const waitingOn: IssueKey[] = [];
  const unknown: IssueKey[] = [];
  for (const b of g.blockers.get(k) ?? []) {
    const s = stateOf(g, b);
    if (s === 'unknown') unknown.push(b);
    else if (s === 'open' && !satisfied(b)) waitingOn.push(b);
  }
  return { open: waitingOn.length === 0 && unknown.length === 0, waitingOn, unknown };
};

export const executionGate = (g: PlanGraph, k: IssueKey): Gate => gate(g, k, () => false);

export const planningGate = (g: PlanGraph, k: IssueKey): Gate =>
  gate(g, k, (b) => {
    const blocker = g.issues.get(b);
    return blocker !== undefined && hasLabel(blocker, planLabels.planApproved);
  });

export const gateFor = (kind: GateKind, g: PlanGraph, k: IssueKey): Gate =>
  kind === 'planning' ? planningGate(g, k) : executionGate(g, k);
