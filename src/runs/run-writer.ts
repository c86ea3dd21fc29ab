// The one writer of a run's state, progress and options. Every write reads the run afresh, computes
// its patch from what it read, and names the version it read: a run that changed in between refuses
// the write (StaleRunWriteError) rather than lose what it did not see. The reconcile passes call it
// under the run lock; background work (builds, smoke checks) never writes here: it records a result
// row (recordGateResult) and asks for a pass, and the pass folds the rows in (foldResults).
// A change of state must be an edge of the run state table (plan/states.ts): the writer refuses any
// other (RunTransitionError), whoever computed it. Issue rows are written here too: a step's outcome
// through writeOutcome (plan/issue-outcomes.ts decides the row's state from it, and the store writes it
// only while the stored row is in the state it was decided from), fields through writeIssue, each
// state one of plan/states.ts's IssueRowState.
import { createHash } from 'node:crypto';
import { AppError } from '../errors.ts';
import { type IssueOutcome, issuePatch } from '../plan/issue-outcomes.ts';
import { canTransitionRun, type IssueRowState, isIssueRowState, type RunState } from '../plan/states.ts';
import {
  type IssueExpect,
  isStaleIssueWrite,
  type RunIssuePatch,
  type RunIssueRecord,
  type RunPatch,
  type RunProgress,
  type RunRecord,
  type RunStore,
} from '../store/run-store.ts';

type Store = Pick<RunStore, 'getRun' | 'updateRun'>;

/** A write that would move a run along an edge the state table does not have: refused, never applied. */
export class RunTransitionError extends AppError {
  constructor(
    readonly runId: string,
    readonly from: RunState,
    readonly to: RunState,
  ) {
    super('forbidden_transition', `Run ${runId} cannot go from ${from} to ${to}; the write was refused.`, {
      runId,
      from,
      to,
    });
  }
}

export const isRunTransitionError = (err: unknown): err is RunTransitionError =>
  err instanceof RunTransitionError;

/**
 * Applies `change` to the run as stored now; `undefined` from it writes nothing. A patch that moves the
 * run along an edge the state table has not is refused with a RunTransitionError (nothing is written).
 */
export const writeRun = async (
  store: Store,
  runId: string,
  change: (run: RunRecord) => RunPatch | undefined,
): Promise<RunRecord> => {
  const run = await store.getRun(runId);
  if (!run) throw new AppError('not_found', `No run ${runId}.`);
  const patch = change(run);
  if (patch === undefined) return run;
  if (patch.state !== undefined && patch.state !== run.state && !canTransitionRun(run.state, patch.state))
    throw new RunTransitionError(runId, run.state, patch.state);
  return store.updateRun(runId, patch, { version: run.version });
};

/** Where an issue row is written: the run store, or one of its transactions (a dispatch's). */
export type IssueWrites = Pick<RunStore, 'upsertRunIssue'>;

/** An issue row's fields a step writes itself: anything but its state, which only an outcome moves. */
export type IssueFields = Omit<RunIssuePatch, 'state'>;

/**
 * The one write of an issue row (created `ready` when missing); a state outside IssueRowState is refused.
 * With `expect`, the store applies it only to a row still in that state (StaleIssueWriteError otherwise).
 */
const writeRow = (
  w: IssueWrites,
  runId: string,
  repo: string,
  number: number,
  patch: RunIssuePatch,
  expect?: IssueExpect,
): Promise<RunIssueRecord> => {
  if (patch.state !== undefined && !isIssueRowState(patch.state))
    return Promise.reject(
      new AppError(
        'bad_request',
        `Issue ${repo}#${number} of run ${runId} cannot be in state ${String(patch.state)}.`,
      ),
    );
  return w.upsertRunIssue(runId, repo, number, patch, expect);
};

/**
 * Writes fields of one issue row of the run (created `ready` when missing), never its state (the type has
 * none; a state that slips in anyway and is not an IssueRowState is refused, `bad_request`, nothing written).
 */
export const writeIssue = (
  w: IssueWrites,
  runId: string,
  repo: string,
  number: number,
  fields: IssueFields,
): Promise<RunIssueRecord> => writeRow(w, runId, repo, number, fields);

/**
 * Records what a step did to one issue: the fold (plan/issue-outcomes.ts) makes the row's patch from the
 * outcome and the row's state (undefined: no row yet, `ready`), so no step picks the row's state. The
 * store writes it only while the stored row is in the state the patch was made from: when another write
 * moved the row since the step read it, the patch is made again from the stored state (so a move the
 * table forbids from there is not taken) and written once more; a second mismatch is refused
 * (StaleIssueWriteError), nothing written.
 */
export const writeOutcome = async (
  w: IssueWrites,
  runId: string,
  at: { repo: string; number: number },
  row: Pick<RunIssueRecord, 'state'> | undefined,
  outcome: IssueOutcome,
): Promise<RunIssueRecord> => {
  const from = (state: IssueRowState) =>
    writeRow(w, runId, at.repo, at.number, issuePatch({ state }, outcome), { state });
  try {
    return await from(row?.state ?? 'ready');
  } catch (err) {
    if (!isStaleIssueWrite(err)) throw err;
    return from(err.found);
  }
};

/** Merges the fields `change` returns into the run's progress (nothing when it returns undefined). */
export const writeProgress = (
  store: Store,
  runId: string,
  change: (progress: RunProgress, run: RunRecord) => Partial<RunProgress> | undefined,
): Promise<RunRecord> =>
  writeRun(store, runId, (run) => {
    const d = change(run.progress, run);
    return d === undefined ? undefined : { progress: { ...run.progress, ...d } };
  });

/** The dashboard comment's id: a field of its own, written alone (it does not count as a version). */
export const setDashboardComment = async (store: Store, runId: string, commentId: number): Promise<void> => {
  await store.updateRun(runId, { dashboardCommentId: commentId });
};

/** How many posted reports and notices a run remembers: the oldest are forgotten past this. */
export const maxPosted = 200;

/** A posted content key as kept: a short hash, so a long notice does not grow the run. */
export const postedKey = (key: string): string => createHash('sha256').update(key).digest('hex').slice(0, 16);

/**
 * Records that the report or notice with this content key was posted; false when it already was (post
 * nothing). Keys are kept hashed and at most `maxPosted` of them (a key from before hashing still counts).
 */
export const markPosted = async (
  store: Store,
  runId: string,
  key: string,
): Promise<{ first: boolean; run: RunRecord }> => {
  const hashed = postedKey(key);
  let first = false;
  const run = await writeProgress(store, runId, (p) => {
    const posted = p.posted ?? [];
    if (posted.includes(hashed) || posted.includes(key)) return undefined;
    first = true;
    return { posted: [...posted, hashed].slice(-maxPosted) };
  });
  return { first, run };
};

/**
 * Records a content key in the run's progress and refreshes `ctx.run`; false when it was already there (post nothing).
 */
export const firstTime = async (
  deps: { store: Store },
  ctx: { run: RunRecord },
  key: string,
): Promise<boolean> => {
  const { first, run } = await markPosted(deps.store, ctx.run.id, key);
  ctx.run = run;
  return first;
};

/** Writes fields of the run's progress (computed from the stored progress when a function); refreshes `ctx.run`. */
export const setProgress = async (
  deps: { store: Store },
  ctx: { run: RunRecord },
  patch: Partial<RunProgress> | ((p: RunProgress) => Partial<RunProgress> | undefined),
): Promise<void> => {
  ctx.run = await writeProgress(deps.store, ctx.run.id, typeof patch === 'function' ? patch : () => patch);
};

/** What a background gate found, as recorded in run_results. */
export type GateResult =
  | {
      name: 'build';
      gate: string;
      status: 'passed' | 'failed';
      failures: number;
      tail?: string;
      responsible?: string;
      /** The integration branch commit it ran on. */
      sha?: string;
    }
  | { name: 'smoke'; status: 'passed' | 'failed'; sha?: string; tail?: string };

/** Background work's only write: one row. The caller asks for a pass afterwards. */
export const recordGateResult = (
  store: Pick<RunStore, 'recordRunResult'>,
  runId: string,
  result: GateResult,
): Promise<void> => store.recordRunResult(runId, result.name, result);

/** The progress with one result folded in; a result for a start that is no longer running is dropped. */
export const applyGateResult = (p: RunProgress, r: GateResult): Partial<RunProgress> => {
  if (r.name === 'smoke') {
    if (p.smoke !== 'running') return {};
    const failures = r.status === 'failed' ? (p.smokeGate?.failures ?? 0) + 1 : 0;
    return {
      smoke: r.status,
      smokeGate: {
        failures,
        ...(r.sha !== undefined ? { sha: r.sha } : {}),
        ...(r.status === 'failed' && r.tail !== undefined ? { tail: r.tail } : {}),
      },
    };
  }
  const build = p.build;
  if (build?.status !== 'running' || (build.gate !== undefined && build.gate !== r.gate)) return {};
  return {
    build: {
      status: r.status,
      gate: r.gate,
      covers: build.covers,
      failures: r.failures,
      ...(r.tail !== undefined ? { tail: r.tail } : {}),
      ...(r.responsible !== undefined ? { responsible: r.responsible } : {}),
      ...(r.sha !== undefined ? { sha: r.sha } : {}),
    },
  };
};

/**
 * Folds the recorded results into the run's progress (one write) and drops them. A result folded twice
 * (a crash between the write and the drop) finds its gate no longer running and changes nothing.
 */
export const foldResults = async (
  store: Store & Pick<RunStore, 'listRunResults' | 'dropRunResults'>,
  runId: string,
): Promise<void> => {
  const results = await store.listRunResults(runId);
  const last = results.at(-1);
  if (!last) return;
  await writeProgress(store, runId, (p) => {
    let next = p;
    for (const r of results) {
      const d = applyGateResult(next, r.value as GateResult);
      if (Object.keys(d).length > 0) next = { ...next, ...d };
    }
    return next === p ? undefined : next;
  });
  await store.dropRunResults(runId, last.id);
};
