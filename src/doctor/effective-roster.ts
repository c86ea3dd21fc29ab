// The roster `serve` works with, as doctor checks it: the configured entries, and every built-in
// default the planner falls back to (plan/routing.ts: `pickWorker` for a role and tier with no entry,
// `pickReviewer` when no entry reviews). Asked of the same functions serve asks, so the two agree.
import type { BlitzConfig } from '../config/blitz-config.ts';
import { pickWorker, type Role } from '../plan/routing.ts';
import { tiers } from '../plan/tier.ts';
import { reviewerOrder } from '../review/reviewers.ts';
import { type CheckResult, ok, warn } from './checks.ts';

export interface EffectiveRoster {
  /** What doctor checks: the configured entries, then each built-in default serve would use. */
  entries: RosterEntry[];
  /** Lines saying which built-in defaults apply, and for what. */
  notes: CheckResult[];
}

type RosterEntry = BlitzConfig['roster'][number];

const authorRoles: Role[] = ['blitz', 'fleet', 'plan'];

const describe = (e: RosterEntry): string => `${e.name} (${e.tool}${e.model ? ` --model ${e.model}` : ''})`;

export const effectiveRoster = (roster: readonly RosterEntry[]): EffectiveRoster => {
  const defaults = new Map<string, { entry: RosterEntry; uses: string[] }>();
  const use = (entry: RosterEntry, what: string) => {
    const seen = defaults.get(entry.name) ?? { entry, uses: [] };
    if (!seen.uses.includes(what)) seen.uses.push(what);
    defaults.set(entry.name, seen);
  };
  const authors: RosterEntry[] = roster.filter((e) => e.roles.some((r) => authorRoles.includes(r)));
  for (const role of authorRoles)
    for (const tier of tiers) {
      const pick = pickWorker({ role, assessedTier: tier, roster, attempts: [] });
      if (!pick.fallback) continue;
      const entry = pick.entry as RosterEntry;
      use(entry, `${role} ${tier}`);
      if (!authors.some((a) => a.name === entry.name)) authors.push(entry);
    }
  for (const author of authors) {
    const first = reviewerOrder(roster, author)[0];
    if (first && !roster.some((e) => e.name === first.entry.name))
      use(first.entry, `reviews of ${author.tool} work`);
  }
  const notes: CheckResult[] = [];
  const list = [...defaults.values()];
  if (roster.length === 0)
    notes.push(
      ok(
        'roster',
        `none configured: serve uses the built-in roster: ${list.map((d) => `${describe(d.entry)} for ${d.uses.join(', ')}`).join('; ')}`,
      ),
    );
  else
    for (const d of list)
      notes.push(
        warn(
          'roster',
          `no entry for ${d.uses.join(', ')}: serve uses the built-in ${describe(d.entry)} there`,
        ),
      );
  return { entries: [...roster, ...list.map((d) => d.entry)], notes };
};
