// Where each `/blitz tell` message for one issue stands, pure: waiting for the session, in flight to a
// running session (a nudge was sent that carries it), or delivered (the runner carried that nudge
// out: the session's feedback resumes went past the count the bot saw). A nudge that never happened
// (the session ended first, the runner refused it) puts its messages back to waiting, so the next
// resume of the session carries them: a message is never dropped without being delivered.
import type { TellMessage } from '../store/run-store.ts';

/** What the decision reads of an attempt (the ledger's record). */
export interface TellAttempt {
  id: string;
  outcome?: string | undefined;
  feedbackResumes?: number | undefined;
}

export interface TellStanding {
  waiting: TellMessage[];
  inFlight: TellMessage[];
  delivered: TellMessage[];
}

export const tellStanding = (
  tells: readonly TellMessage[] | undefined,
  attempts: readonly TellAttempt[],
): TellStanding => {
  const out: TellStanding = { waiting: [], inFlight: [], delivered: [] };
  for (const t of tells ?? []) {
    const a = t.sent && attempts.find((x) => x.id === t.sent!.attemptId);
    if (!t.sent || !a) out.waiting.push(t);
    else if ((a.feedbackResumes ?? 0) > t.sent.resumes) out.delivered.push(t);
    else if (a.outcome === undefined) out.inFlight.push(t);
    else out.waiting.push(t);
  }
  return out;
};

export type TellStep =
  /** Nudge the running session now: stop it and resume it with these messages. */
  | { kind: 'nudge'; attemptId: string; resumes: number; tells: TellMessage[] }
  /** Nothing to send now (none waiting, one in flight, or no running session: the next resume). */
  | { kind: 'wait' };

/** Whether the messages waiting go to the running session now (its latest attempt, live). */
export const tellStep = (
  tells: readonly TellMessage[] | undefined,
  attempts: readonly TellAttempt[],
): TellStep => {
  const s = tellStanding(tells, attempts);
  const latest = attempts.at(-1);
  // The bot's own word that the integration branch moved waits for the next resume (which merges it in).
  const people = s.waiting.filter((t) => t.kind !== 'base_change');
  if (people.length === 0 || s.inFlight.length > 0 || !latest || latest.outcome !== undefined)
    return { kind: 'wait' };
  return { kind: 'nudge', attemptId: latest.id, resumes: latest.feedbackResumes ?? 0, tells: people };
};
