// `/blitz tell` to a running worker: the messages waiting for issue n go to its running session at once,
// by a nudge that carries them (the runner stops the session and resumes it with them, wherever the
// worktree is). The planner asks for it (`tell` action) when `tellStep` says so; the messages are
// marked sent to that session, and count as delivered once the runner carried the nudge out. A session
// that ended first leaves them waiting for its next resume (src/ship/tell-delivery.ts).
import { isAppError } from '../errors.ts';
import { issueAttempts } from '../plan/issue-progress.ts';
import { onAttemptHost } from '../queue/dispatcher.ts';
import type { AttemptRecord } from '../runner/types.ts';
import type { Log, Records, Workers } from '../runs/ports.ts';
import { writeProgress } from '../runs/run-writer.ts';
import { tellSection } from '../ship/feedback-prompt.ts';
import { tellStep } from '../ship/tell-delivery.ts';
import type { RunIssueRecord, RunRecord, TellMessage } from '../store/run-store.ts';

/** Sends the waiting messages to the issue's running session; true when the nudge went out. */
export const nudgeWithTells = async (
  deps: Records & Workers & Log,
  ctx: { run: RunRecord; attempts: readonly AttemptRecord[]; rows: ReadonlyMap<string, RunIssueRecord> },
  key: string,
): Promise<boolean> => {
  const attempts = issueAttempts(ctx, key);
  const step = tellStep(ctx.run.progress.prFeedback?.[key]?.tells, attempts);
  if (step.kind !== 'nudge') return false;
  const attempt = attempts.find((a) => a.id === step.attemptId)!;
  try {
    await onAttemptHost(
      deps,
      {
        kind: 'resume',
        attemptId: attempt.id,
        reason: 'tell',
        conflictFiles: [],
        feedback: tellSection(step.tells),
        interrupt: { feedbackResumes: step.resumes },
      },
      [attempt],
    );
  } catch (err) {
    // The session ended (or moved on) before the nudge: the messages wait for its next resume.
    if (!isAppError(err, 'conflict')) throw err;
    deps.logger.info({ runId: ctx.run.id, issue: key }, 'session ended before a message reached it; kept');
    return false;
  }
  const sent = new Set(step.tells.map((t) => t.id));
  const mark = (t: TellMessage): TellMessage =>
    sent.has(t.id) ? { ...t, sent: { attemptId: attempt.id, resumes: step.resumes } } : t;
  await writeProgress(deps.store, ctx.run.id, (run) => {
    const state = run.prFeedback?.[key];
    if (!state?.tells) return undefined;
    return { prFeedback: { ...run.prFeedback, [key]: { ...state, tells: state.tells.map(mark) } } };
  });
  deps.logger.info(
    { runId: ctx.run.id, issue: key, messages: sent.size },
    'messages sent to a running worker',
  );
  return true;
};
