// The executor's two steps that move a run's state, for blitz, fleet and plan runs alike: the
// planner's `set_state` (only from the states it names: a run that moved meanwhile is left alone) and
// its `stop` (the state and the reason, in one write). Both write through run-writer.ts.
import { updateModelNotesFile } from '../model-notes/notes.ts';
import { stopPatch } from '../plan/run-patches.ts';
import type { Action } from '../plan/snapshot.ts';
import type { StopCause } from '../plan/stop-cause.ts';
import type { RunRecord } from '../store/run-store.ts';
import type { Log, Records, Settings, Workers } from './ports.ts';
import { writeRun } from './run-writer.ts';

/** `set_state`: the run moves to `to` when it is in one of `from` now. */
export const setRunState = (
  deps: Records,
  runId: string,
  a: Extract<Action, { type: 'set_state' }>,
): Promise<RunRecord> =>
  writeRun(deps.store, runId, (run) => (a.from.includes(run.state) ? { state: a.to } : undefined));

/**
 * `stop`: the run ends (or pauses, by the one pause rule of plan/pause.ts) in `state`, saying why. A run
 * that ends (done or blocked, whatever its kind) merges its attempts into the model notes (seed 001).
 */
export const stopRun = async (
  deps: Records & Workers & Log & Settings,
  runId: string,
  state: RunRecord['state'],
  reason: string,
  command: string | undefined,
  cause: StopCause,
): Promise<RunRecord> => {
  const run = await writeRun(deps.store, runId, (fresh) => stopPatch(fresh, state, reason, command, cause));
  deps.logger.info({ runId, state, reason }, 'run stopped');
  if (state !== 'paused') await recordModelNotes(deps, runId, state === 'done');
  return run;
};

/**
 * What the run's finished attempts taught about the roster, merged into the model notes file. The
 * notes count a run's records merged so far, in ledger order: a run that may go on (blocked) gives
 * only the finished ones before its first still running, so one that ends later is merged then, in
 * its place, and none twice; a run that ended (done) gives every finished one.
 */
const recordModelNotes = async (deps: Workers & Log & Settings, runId: string, ended: boolean) => {
  const attempts = await deps.ledger.listByRun(runId);
  const open = attempts.findIndex((a) => a.outcome === undefined);
  const evidence = (ended || open < 0 ? attempts : attempts.slice(0, open))
    .filter((a) => a.outcome !== undefined)
    .map((a) => ({
      runId: a.runId,
      entry: a.rosterEntry,
      tier: a.tier,
      outcome: a.outcome!,
      tokens: a.tokens.input + a.tokens.output,
      nudges: a.nudges,
      durationMs: a.endedAt ? Date.parse(a.endedAt) - Date.parse(a.startedAt) : 0,
    }));
  try {
    await updateModelNotesFile(deps.config.modelNotesPath, evidence);
  } catch (err) {
    deps.logger.warn({ runId, err }, 'model notes not updated');
  }
};
