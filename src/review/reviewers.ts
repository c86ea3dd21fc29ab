// The order reviewers are tried in: the planner's review pick first, then the planner's pick among
// the entries not yet tried, so a fallback obeys the same "different tool and provider" rule.
import { pickReviewer, type RosterEntry } from '../plan/routing.ts';
import type { ReviewAuthor, ReviewRosterEntry } from './types.ts';

export interface OrderedReviewer {
  entry: ReviewRosterEntry;
  /** The planner's reason, for logs. */
  reason: string;
}

const asAuthor = (a: ReviewAuthor): RosterEntry => ({
  name: a.name,
  tool: a.tool,
  ...(a.provider === undefined ? {} : { provider: a.provider }),
  roles: [],
  tiers: [],
  costRank: 0,
});

/**
 * Every review entry of the roster, best first. When the roster has no review entry at all, the
 * planner's built-in default is the only one; it is not appended after roster entries have failed,
 * because an operator who lists reviewers has said which tools this host has.
 */
export const reviewerOrder = (
  roster: readonly ReviewRosterEntry[],
  author: ReviewAuthor,
): OrderedReviewer[] => {
  const author_ = asAuthor(author);
  const remaining = [...roster];
  const order: OrderedReviewer[] = [];
  for (;;) {
    const pick = pickReviewer(remaining, author_);
    if (pick.fallback) {
      if (order.length === 0) order.push({ entry: pick.entry, reason: pick.reason });
      return order;
    }
    const entry = remaining.find((e) => e.name === pick.entry.name);
    if (!entry) return order;
    order.push({ entry, reason: pick.reason });
    remaining.splice(remaining.indexOf(entry), 1);
  }
};
