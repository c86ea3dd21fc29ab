// What a person's `/blitz pause`, `/blitz resume` and `/blitz cancel` do to a milestone run (blitz or
// plan-blitz; `/ticket-fleet resume` and `/plan-blitz resume` apply it too: plan/resume-command.ts), decided from the run as it stands when the command is applied: the change to write and
// what to tell the person. orchestrator/start-run.ts applies it under the run lock through the run
// writer. Pure, like the rest of src/plan/.
import type { RunPatch, RunProgress, RunRecord } from '../store/run-store.ts';
import { pausePatch, resumePatch } from './pause.ts';
import { isTerminalRunState } from './states.ts';

export type RunControlAction = 'pause' | 'resume' | 'cancel';

export interface RunControlStep {
  /**
   * What the command did. `review_unclear`: nothing, a resume does not answer an unclear review;
   * `blocked`: nothing, a blocked run is stopped already and a pause would hide what continues it;
   * `ended`: nothing, the run is done or cancelled.
   */
  outcome: 'paused' | 'resumed' | 'cancelled' | 'review_unclear' | 'blocked' | 'ended';
  /** The change to write; none when the run already is where the command would put it. */
  patch?: RunPatch;
}

/**
 * What `/blitz resume` clears on a run that stopped BLOCKED at a gate: the red build, smoke or ship that
 * stopped it counts from nought again, so the run builds, smokes or ships afresh on the integration
 * branch as it is now (a person fixed it, or the cause outside went away). Nothing else changes; a run
 * blocked for another reason resumes as it was.
 */
export const gatesAfterResume = (p: RunProgress): Partial<RunProgress> => ({
  // A check that "passed" because no command was configured runs again: one may be configured now.
  ...(p.build?.status === 'failed' || p.build?.notConfigured
    ? { build: { status: 'none', covers: [], failures: 0 } }
    : {}),
  ...(p.smoke === 'failed' || p.smokeGate?.notConfigured
    ? { smoke: 'none', smokeGate: { failures: 0 } }
    : {}),
  ...(p.ship?.status === 'failed' ? { ship: undefined } : {}),
});

export const runControlOf = (
  run: Pick<RunRecord, 'state' | 'progress'>,
  action: RunControlAction,
): RunControlStep => {
  // The state table (plan/states.ts) has no way out of an ended run; the run writer refuses one.
  if (isTerminalRunState(run.state)) return { outcome: 'ended' };
  if (action === 'cancel')
    return {
      outcome: 'cancelled',
      patch: { state: 'cancelled', progress: { ...run.progress, reason: 'cancelled by a person' } },
    };
  if (action === 'pause') {
    if (run.state === 'paused') return { outcome: 'paused' };
    if (run.state === 'blocked') return { outcome: 'blocked' };
    return { outcome: 'paused', patch: pausePatch(run) };
  }
  // Waiting on the integration review is not a pause: `/blitz accept-review` or `/blitz review` goes on.
  if (run.state === 'review_unclear') return { outcome: 'review_unclear' };
  if (run.state === 'paused') return { outcome: 'resumed', patch: resumePatch(run) };
  if (run.state === 'blocked')
    return {
      outcome: 'resumed',
      patch: { state: 'running', progress: { ...run.progress, ...gatesAfterResume(run.progress) } },
    };
  return { outcome: 'resumed' };
};
