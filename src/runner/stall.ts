// Stall detection (seed 001 "Babysitting"): a worker is stalled when neither its log nor its commits
// (worktree HEAD, pushed ref) changed across two consecutive checks. One quiet check is not enough:
// models legitimately pause. Pure: the supervisor gathers observations and keeps the state.

export interface Observation {
  logSize: number;
  head: string | null;
  remote: string | null;
}

export interface StallState {
  last?: Observation;
}

const same = (a: Observation, b: Observation): boolean =>
  a.logSize === b.logSize && a.head === b.head && a.remote === b.remote;

/** Records an observation; `stalled` when it equals the previous one. */
export const stallCheck = (state: StallState, obs: Observation): { state: StallState; stalled: boolean } => {
  const stalled = state.last !== undefined && same(state.last, obs);
  return { state: { last: obs }, stalled };
};
