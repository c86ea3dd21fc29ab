// What a worker's exit means for its attempt, decided from facts the supervisor gathered (the exit
// file, the branch on origin, conflict markers, the nudges so far). Pure: runner/supervisor.ts reads
// the facts and applies the decision; how an ordinary exit is classified is runner/failure-class.ts.

export interface ExitFacts {
  /** The wrapper's exit record; absent when it died without writing one (host restart, kill -9). */
  exit?: { exitCode: number | null };
  /** The agent's tool can resume a session (a nudge or an interrupted worker goes on). */
  canResume: boolean;
  /** The branch on origin holds commits ahead of the base. */
  branchMoved: boolean;
  /** Files on the pushed branch that still hold conflict markers (read only after a clean exit that pushed). */
  markers: readonly string[];
  nudges: number;
  maxNudges: number;
  /** The attempt's worktree, named to the person when it stalls. */
  worktree: string;
}

export type ExitDecision =
  /** Interrupted: resume the session. */
  | { kind: 'resume' }
  /** Stopped early with nothing pushed: nudge it to go on. */
  | { kind: 'nudge' }
  /** Stopped early and out of nudges: stalled, a person has to look. */
  | { kind: 'stalled'; summary: string }
  /** Ends the attempt with this outcome; `withExit` records the exit code and log. */
  | { kind: 'finish'; outcome: 'unsolved'; summary: string; withExit: boolean }
  /** An ordinary exit: the outcome is the exit's classification (classifyExit). */
  | { kind: 'classify' };

/** A worker that stopped making progress (stalled, or exited with nothing pushed): nudge it, or give up. */
export const decideStopped = (
  f: Pick<ExitFacts, 'canResume' | 'nudges' | 'maxNudges' | 'worktree'>,
): Extract<ExitDecision, { kind: 'nudge' | 'stalled' }> =>
  f.nudges < f.maxNudges && f.canResume
    ? { kind: 'nudge' }
    : {
        kind: 'stalled',
        summary: `Stalled after ${f.nudges} nudge(s); a person has to look at ${f.worktree}.`,
      };

export const decideExit = (f: ExitFacts): ExitDecision => {
  // The wrapper died without writing its exit: the worker was interrupted.
  if (!f.exit)
    return f.canResume
      ? { kind: 'resume' }
      : {
          kind: 'finish',
          outcome: 'unsolved',
          summary: 'The worker disappeared without an exit code.',
          withExit: false,
        };
  if (f.exit.exitCode === 0 && !f.branchMoved) return decideStopped(f);
  // Seed 004: a truncated conflict listing once hid hunks; never call a branch with markers solved.
  if (f.exit.exitCode === 0 && f.markers.length > 0)
    return {
      kind: 'finish',
      outcome: 'unsolved',
      summary: `Conflict markers left in ${f.markers.join(', ')}.`,
      withExit: true,
    };
  return { kind: 'classify' };
};
