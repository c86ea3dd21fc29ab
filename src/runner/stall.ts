// Stall detection (seed 001 "Babysitting"): a worker is stalled when neither its log nor its commits
// (worktree HEAD, pushed ref) changed across two consecutive checks, and it was not busy meanwhile: a
// quiet command (a test suite, a build) is work, so a worker whose process tree used CPU since the last
// check, or whose agent has a command of its own running, is not stalled however quiet its log. One
// quiet check is not enough: models legitimately pause. Pure: the supervisor gathers observations
// and keeps the state.

export interface Observation {
  logSize: number;
  head: string | null;
  remote: string | null;
  /** CPU the worker's process tree used so far, in ms (absent: not known, e.g. an older record). */
  cpuMs?: number;
  /** Commands the agent started that are still running. */
  commands?: number;
}

export interface StallState {
  last?: Observation;
}

/** CPU a tree must use between two checks to count as busy: an idle CLI's timers use far less. */
export const BUSY_CPU_MS = 1000;

const sameProgress = (a: Observation, b: Observation): boolean =>
  a.logSize === b.logSize && a.head === b.head && a.remote === b.remote;

/** Busy: a command of the agent's is running, or the tree used CPU since the previous check. */
export const busy = (last: Observation, obs: Observation): boolean =>
  (obs.commands ?? 0) > 0 ||
  (obs.cpuMs !== undefined && last.cpuMs !== undefined && obs.cpuMs - last.cpuMs >= BUSY_CPU_MS);

/** Records an observation; `stalled` when it shows no progress since the previous one and no work. */
export const stallCheck = (state: StallState, obs: Observation): { state: StallState; stalled: boolean } => {
  const stalled = state.last !== undefined && sameProgress(state.last, obs) && !busy(state.last, obs);
  return { state: { last: obs }, stalled };
};
