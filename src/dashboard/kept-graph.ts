// The run graph kept in a run's progress for the status page. A dashboard draws a closed issue
// without edges (its blockers are no longer read once it left the open set), so a finished run
// would lose every edge: an issue drawn closed with none keeps the edges it was last drawn with.
import type { RunGraphNode } from '../store/run-store.ts';
import type { DashboardIssue } from './types.ts';

export const keptGraph = (
  drawn: readonly DashboardIssue[],
  before: readonly RunGraphNode[] = [],
): RunGraphNode[] => {
  const edgesBefore = new Map(before.map((g) => [g.number, g.blockedBy]));
  return drawn.map((i) => ({
    number: i.number,
    title: i.title,
    state: i.state,
    ...(i.epic ? { epic: true } : {}),
    blockedBy:
      i.state === 'closed' && i.blockedBy.length === 0 ? [...(edgesBefore.get(i.number) ?? [])] : i.blockedBy,
  }));
};
