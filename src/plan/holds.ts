// Holds: an issue a person has asked the bot to leave alone (label `hold`). The reason comes from
// the label's description or from a `hold:` line in the body. Unlike plan-blitz's hold keys (seed
// 002, where a reasonless hold is ignored), a `hold` label is an explicit signal put there by a
// person, so a reasonless hold still holds and says "no reason given": failing closed is cheaper
// than running work someone tried to stop.
import type { PlanIssue } from './types.ts';
import { planLabels } from './types.ts';

export const noHoldReason = 'no reason given';

const holdLine = /^\s*hold:\s*(.*)$/im;

/** The hold reason when the issue is held, undefined when it is not. */
export const holdReason = (issue: Pick<PlanIssue, 'labels' | 'body'>): string | undefined => {
  const label = issue.labels.find((l) => l.name.toLowerCase() === planLabels.hold);
  if (!label) return undefined;
  const fromLabel = label.description?.trim();
  if (fromLabel) return fromLabel;
  const fromBody = holdLine.exec(issue.body)?.[1]?.trim();
  return fromBody || noHoldReason;
};
