// One step of one wave member down its size lane, each step checking the world first: a member with
// no phase yet starts one (XS → a worker; S/M/L → a planner; no size → the planner sizes it first); a
// finished attempt hands over to its lane (xs-lane.ts, plan-lane.ts); a failed one lands refused.

import { sizeOf } from '../../plan/plan-labels.ts';
import type { IssueKey } from '../../plan/types.ts';
import type { AttemptRecord } from '../../runner/types.ts';
import { issueAttempts } from '../run-progress.ts';
import { dispatchPending, enterPhase, land, type Phase, readPlan, startAttempt } from './member-phases.ts';
import { type PlanCtx, waveOf } from './plan-context.ts';
import { planned, review } from './plan-lane.ts';
import { readyXs, ship } from './xs-lane.ts';

const failed = (a: AttemptRecord, runnerRetries: number): boolean =>
  a.outcome !== undefined &&
  a.outcome !== 'solved' &&
  !(a.outcome === 'unsolved' && a.job.retry < runnerRetries);

/** Takes one wave member one step further; a member already landed is left alone. */
export const advanceMember = async (pc: PlanCtx, key: IssueKey): Promise<void> => {
  if (waveOf(pc).outcomes[key]) return;
  const issue = pc.issues.get(key);
  if (!issue) return land(pc, key, { landing: 'closed', note: 'closed on the tracker during the wave' });
  const row = pc.rows.get(key);
  const state = row?.state ?? 'queued';
  if (
    state === 'queued' ||
    !['sizing', 'planning', 'fixing', 'coding', 'reviewing', 'shipping'].includes(state)
  ) {
    const size = sizeOf(issue);
    if (size === 'XS' && !pc.executionOpen.has(key)) return readyXs(pc, key);
    const phase: Phase = size === undefined ? 'sizing' : size === 'XS' ? 'coding' : 'planning';
    if (pc.slots.free <= 0) return;
    await enterPhase(pc, key, phase);
    return startAttempt(pc, key, phase);
  }
  // Attempts of the issue's current phase: those recorded after the phase began.
  const attempts = issueAttempts(pc, key);
  const latest = attempts.at(-1);
  if (state === 'reviewing' || state === 'shipping') {
    const solved = attempts.filter((a) => a.outcome === 'solved').at(-1);
    if (!solved) return land(pc, key, { landing: 'refused', note: 'its worker result was lost' });
    if (state === 'shipping') return ship(pc, key, solved);
    const text = await readPlan(pc, solved);
    const size = sizeOf(issue);
    if (!text || !size) return land(pc, key, { landing: 'refused', note: 'the plan to review is gone' });
    return review(pc, key, size, text, solved);
  }
  const phase = state as Phase;
  if (!latest) return dispatchPending(pc, key) ? undefined : startAttempt(pc, key, phase);
  if (latest.outcome === undefined) return;
  if (failed(latest, pc.deps.config.runner.retries))
    return land(pc, key, {
      landing: 'refused',
      ...(sizeOf(issue) ? { size: sizeOf(issue)! } : {}),
      note: `its ${phase === 'coding' ? 'worker' : 'planner'} finished ${latest.outcome}${latest.failureSummary ? `: ${latest.failureSummary.slice(0, 200)}` : ''}`,
    });
  if (latest.outcome !== 'solved') return;
  if (phase === 'coding') {
    await enterPhase(pc, key, 'shipping');
    return ship(pc, key, latest);
  }
  return planned(pc, key, phase, latest);
};
