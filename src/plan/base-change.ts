// The integration branch moved under work still in progress (issue 37): when an issue merges into the
// integration branch, every issue whose open PR changes any of the same files is told, at its next
// resume, to merge the branch in. Pure: the merges the run kept, which of them each issue was already
// compared with and when its work began go in; the compare actions and the tell's files come out. The
// executor reads the merged files from the merge commit in the bot's own integration clone and the open
// PR's from the forge, never from a worker's repository; a worker still running is compared once its PR
// opens.
import type { IssueKey } from './types.ts';

/** The planner's action: compare an open PR's files with the merges `shas` made under it. */
export interface CheckBaseChange {
  type: 'check_base_change';
  issue: IssueKey;
  pr: number;
  shas: string[];
}

/** One merge into the integration branch, kept in the run's progress. */
export interface BaseChange {
  issue: IssueKey;
  /** The merge commit. */
  sha: string;
  /** The files the merged PR changed (capped at `maxBaseChangeFiles`). */
  files: string[];
  /** When it merged (ISO-8601, only compared). */
  at: string;
}

/** What the planner reads: the kept merges, and per issue what it was compared with and since when. */
export interface BaseChangeView {
  changes: readonly BaseChange[];
  /** Per issue: the merge commits its PR was already compared with (told or not). */
  checked: Readonly<Record<IssueKey, readonly string[]>>;
  /** Per issue with work in progress: when its current work began (its first attempt since a redo). */
  since: Readonly<Record<IssueKey, string>>;
}

/** At most this many files are kept per merge; a larger merge counts as touching them. */
export const maxBaseChangeFiles = 300;

/** The merges under an issue's work (after it began, not its own) that its PR was not compared with. */
export const baseChangesUnder = (view: BaseChangeView, key: IssueKey): BaseChange[] => {
  const since = view.since[key];
  if (since === undefined) return [];
  const checked = new Set(view.checked[key] ?? []);
  return view.changes.filter((c) => c.issue !== key && c.at > since && !checked.has(c.sha));
};

/** A compare for each issue with an open PR that a merge moved the integration branch under. */
export const baseChangeChecks = (
  view: BaseChangeView | undefined,
  open: readonly { key: IssueKey; pr: number }[],
): CheckBaseChange[] => {
  if (!view || view.changes.length === 0) return [];
  return open.flatMap(({ key, pr }) => {
    const under = baseChangesUnder(view, key);
    return under.length
      ? [{ type: 'check_base_change' as const, issue: key, pr, shas: under.map((c) => c.sha) }]
      : [];
  });
};

export interface BaseChangeTell {
  /** The files both sides changed, sorted. */
  files: string[];
  /** The merge commits that changed them, oldest first. */
  shas: string[];
}

/** What the merges `changes` did to the files the issue's PR changes: nothing, or the tell. */
export const baseChangeTell = (
  changes: readonly BaseChange[],
  prFiles: readonly string[],
): BaseChangeTell | undefined => {
  const mine = new Set(prFiles);
  const files = new Set<string>();
  const shas: string[] = [];
  for (const c of changes) {
    const both = c.files.filter((f) => mine.has(f));
    if (both.length === 0) continue;
    for (const f of both) files.add(f);
    shas.push(c.sha);
  }
  return shas.length ? { files: [...files].sort(), shas } : undefined;
};

/**
 * The bot's tell to the issue's session: one per newest merge under it (its id: the bot's own are
 * negative, people's are their intents' ids), naming the branch and the merge commits.
 */
export const baseChangeMessage = (all: readonly BaseChange[], tell: BaseChangeTell, branch: string) => {
  const commits = tell.shas.map((s) => s.slice(0, 7)).join(', ');
  const one = tell.files.length === 1;
  return {
    id: -(all.findIndex((c) => c.sha === tell.shas.at(-1)) + 1),
    by: 'blitz-bot',
    kind: 'base_change' as const,
    files: tell.files,
    text: [
      `The integration branch \`${branch}\` changed ${one ? 'a file' : `${tell.files.length} files`} you changed too, under you (merge commit ${commits}): ${one ? 'it is' : 'they are'} named in the block below.`,
      'Merge it in (never rebase), resolve, run the checks, push: the runner has merged it into your branch already; `git diff --name-only --diff-filter=U` lists any file the merge left conflicted. Do not rebase, reset or force-push.',
    ].join(' '),
  };
};
