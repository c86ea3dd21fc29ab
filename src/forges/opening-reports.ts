// The bot's first `blitz` report on a new PR's head (ProgressReport state `queued`) already says what
// the gate waits on: the review leg and the build. The next report on that head, when it is in progress
// and only waiting on those same legs (`ProgressReport.waiting`), tells a person nothing new, so the
// adapter leaves it unsent: one write per PR. A report with news (a worker resumed, a change request,
// a hold) is sent, and so is every report after the first on that head. Remembered per head and
// process, bounded, oldest out: a forgotten head (or another replica) only sends one report more.
// GitHub's rule; Gitea, whose statuses say less, keeps a wider one (forges/gitea/statuses.ts).
import type { ProgressReport } from './types.ts';

export interface OpeningReports {
  /** Whether this report on `head` is worth a request; the head's opening is spent either way. */
  send(head: string, report: ProgressReport): boolean;
  /** A report is on the forge now: an opening one (`queued`) is remembered for its head. */
  sent(head: string, state: ProgressReport['state']): void;
}

export const openingReports = (max = 2_000): OpeningReports => {
  const heads = new Set<string>();
  return {
    send(head, report) {
      const opened = heads.delete(head);
      return !(opened && report.state === 'in_progress' && report.waiting === true);
    },
    sent(head, state) {
      if (state !== 'queued') return;
      heads.delete(head);
      heads.add(head);
      if (heads.size > max) heads.delete(heads.values().next().value as string);
    },
  };
};
