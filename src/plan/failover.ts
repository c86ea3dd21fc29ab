// Which roster entry an issue goes to, with the parked endpoints passed over (provider failover, issue
// 37): the dispatch of a wave and the park's question "can another entry take this issue now?" are
// answered by the same routing, so a failure parks only its endpoint exactly when a dispatch would then
// find another entry for the issue.
import { endpointOf, waitingEndpoints } from './entry-park.ts';
import type { FailsOver, OtherEntries } from './park.ts';
import type { Pick, Role } from './routing.ts';
import { pickWorker } from './routing.ts';
import type { ParkView, RunKind, RunSnapshot } from './snapshot.ts';
import { assessTier } from './tier.ts';
import type { IssueKey, PlanIssue } from './types.ts';
import { issueKey } from './types.ts';

const roleOf: Record<RunKind, Role> = { blitz: 'blitz', fleet: 'fleet', plan: 'plan' };

/** Endpoints that take no work now: those waiting out an entry park, and those of the run's waiting park. */
export const parkedEndpoints = (v: ParkView | undefined): Set<string> => {
  const parked = waitingEndpoints(v?.entries);
  if (v?.current && v.current.probingSince === undefined)
    for (const e of v.current.endpoints ?? []) parked.add(e);
  return parked;
};

/** The worker routing picks for `issue` now: its attempts so far, the run's usage, the parks. */
export const routeIssue = (
  snap: RunSnapshot,
  issue: PlanIssue,
  o: { usage: Readonly<Record<string, number>>; parked: ReadonlySet<string> },
): Pick => {
  const key = issueKey(issue.repo, issue.number);
  const attempts = snap.progress.find((p) => p.key === key)?.attempts ?? [];
  return pickWorker({
    role: roleOf[snap.kind],
    assessedTier: assessTier(issue.body, issue.labels).tier,
    roster: snap.roster,
    attempts,
    usage: o.usage,
    ...(snap.options.override ? { override: snap.options.override } : {}),
    preferMedium: snap.budget.preferMedium,
    ...(snap.notes ? { notes: snap.notes } : {}),
    parked: o.parked,
  });
};

/**
 * The park's failover question for this snapshot: the failure's issue, still open in the run, has an
 * entry on an endpoint that is not parked (a built-in default the roster did not name does not count).
 */
export const failsOverIn = (snap: RunSnapshot): FailsOver => {
  const byKey = new Map<IssueKey, PlanIssue>(snap.issues.map((i) => [issueKey(i.repo, i.number), i]));
  return (f, parked) => {
    const issue = f.issue === undefined ? undefined : byKey.get(f.issue);
    if (!issue) return false;
    const pick = routeIssue(snap, issue, { usage: {}, parked });
    return pick.parked !== true && !pick.fallback;
  };
};

/**
 * The run park's question when another entry comes back: can any of the run's open issues go to an
 * entry whose endpoint is not parked, and which roster entries share an endpoint.
 */
export const otherEntriesIn = (snap: RunSnapshot): OtherEntries => ({
  canTake: (parked) =>
    snap.issues.some((issue) => {
      const pick = routeIssue(snap, issue, { usage: {}, parked });
      return pick.parked !== true && !pick.fallback;
    }),
  entriesOf: (endpoint) => snap.roster.filter((e) => endpointOf(e) === endpoint).map((e) => e.name),
});
