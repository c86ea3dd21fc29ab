// The one pause rule, for every way a run pauses (`/blitz pause`, an environment or budget park, the
// planner's `paused` stop) and every way it goes on (`/blitz resume`, a park that lifts): a paused run
// remembers the working state it left, and going on returns it there. Pure, like the rest of src/plan/.
import type { RunPatch, RunProgress, RunRecord } from '../store/run-store.ts';
import { activeRunStates, type RunState } from './states.ts';

/**
 * The state a pause from `state` returns to: the working state itself, or `running` for a run that
 * waited on a person's answer (an unclear integration review), which the next pass asks again.
 */
export const pausedFromOf = (state: RunState): RunState =>
  activeRunStates.includes(state) ? state : 'running';

/** Where a paused run goes on: the state its pause came from (`running` for one kept before the rule). */
export const resumeStateOf = (p: Pick<RunProgress, 'pausedFrom'>): RunState =>
  p.pausedFrom !== undefined && activeRunStates.includes(p.pausedFrom) ? p.pausedFrom : 'running';

/**
 * The run paused: `progress` (the run's own by default) with the state it leaves remembered; a run
 * paused already keeps where its first pause came from.
 */
export const pausePatch = (
  run: Pick<RunRecord, 'state' | 'progress'>,
  progress: RunProgress = run.progress,
): RunPatch => ({
  state: 'paused',
  progress: {
    ...progress,
    pausedFrom: run.state === 'paused' ? resumeStateOf(run.progress) : pausedFromOf(run.state),
  },
});

/** The paused run going on where its pause came from; the memory of the pause is dropped. */
export const resumePatch = (
  run: Pick<RunRecord, 'progress'>,
  progress: RunProgress = run.progress,
): RunPatch => {
  const { pausedFrom: _left, ...rest } = progress;
  return { state: resumeStateOf(run.progress), progress: rest };
};
