// Why a run is where it is: words for people (`progress.reason`) and the kind of step that wrote them
// (`progress.reasonKind`). A step that takes its cause away (a park that lifts, a hard blocker a pass
// got through) drops the reason only when it was its own kind; nothing matches on the words.
import type { RunProgress } from '../store/run-store.ts';
import type { RunReasonKind } from './states.ts';
import type { StopCause } from './stop-cause.ts';

/** `progress` saying why in `words`, written by a step of `kind`. */
export const withReason = (progress: RunProgress, kind: RunReasonKind, words: string): RunProgress => ({
  ...progress,
  reason: words,
  reasonKind: kind,
});

/**
 * The kind that wrote the run's reason. A run kept before kinds were written: a hard blocker's or a
 * park's when one is on the run (each wrote the reason when it came), else a stop's.
 */
export const reasonKindOf = (p: RunProgress): RunReasonKind | undefined =>
  p.reason === undefined
    ? undefined
    : (p.reasonKind ?? (p.hardBlocker ? 'hard_blocker' : p.park ? 'park' : 'stop'));

/** `progress` without its reason when a step of `kind` wrote it; otherwise unchanged. */
export const withoutReason = (progress: RunProgress, kind: RunReasonKind): RunProgress => {
  if (reasonKindOf(progress) !== kind) return progress;
  const { reason: _words, reasonKind: _kind, ...rest } = progress;
  return rest;
};

/** The cause of the run's last stop while the run's reason is still that stop's; else none. */
export const keptStopCause = (p: RunProgress): StopCause | undefined =>
  reasonKindOf(p) === 'stop' ? p.stopCause : undefined;
