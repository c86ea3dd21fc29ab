// What the bot read from a forge and can trust until something tells it otherwise, for both adapters:
// the milestone snapshot a reconcile plans on, and files read from a ref (the repo config).
//
// A milestone snapshot is kept after a load and served again without a request while it is fresh
// (`freshMs`, default a minute: the cron tick's interval) and nothing invalidated it. What invalidates:
// - the bot's own writes through this forge that change what a snapshot shows: a closed issue is
//   taken out of the kept snapshot (its blockers then read `closed`, as a reload would say; a close that
//   failed drops the repository's snapshots instead), a reopened,
//   created, labelled or re-linked issue drops the snapshots of its repository;
// - a webhook, handed over through `observeEvent`: an issue closed is applied like the bot's own close
//   (no re-read of what the webhook just told us); any other issue, label, dependency, sub-issue or
//   milestone change drops every kept snapshot that names the repository;
// - age: past `freshMs` the next load asks the forge again (GitHub's loader asks conditionally first).
// What no webhook reports (an edited body, an issue moved into the milestone) is seen at that reload.
// Files (the repo config) are kept for `freshMs` per repository, path and ref (the default branch by
// name and unnamed are one ref, once its name was read). What the PR feedback
// loop reads of a head's finished checks is kept by kept-feedback-reads.ts.
// Each replica keeps its own: a replica that did not receive a webhook sees the change at its next
// reload, at most `freshMs` later.
import { withKeptFeedbackReads } from './kept-feedback-reads.ts';
import type { Forge, IssueRef, MilestoneSnapshot, RepoRef } from './types.ts';
import { sameIssue, sameRepo } from './types.ts';

/** Events that change nothing a kept read holds: comments (commands), PR heads, checks, reviews. */
const harmless = new Set(['command', 'pr-opened', 'pr-synchronized', 'checks-changed', 'review-changed']);

export interface KeptReadsOptions {
  freshMs?: number;
  now?: () => number;
}

const repoKey = (repo: RepoRef) => `${repo.owner}/${repo.name}`.toLowerCase();

/** True when the snapshot shows anything of `repo` (its own issues, a blocker, a parent or a child). */
const touches = (snap: MilestoneSnapshot, repo: RepoRef): boolean =>
  snap.issues.some(
    (i) =>
      sameRepo(i.ref.repo, repo) ||
      i.blockedBy.some((b) => sameRepo(b.repo, repo)) ||
      i.children.some((c) => sameRepo(c.repo, repo)) ||
      (i.parent !== undefined && sameRepo(i.parent.repo, repo)),
  ) || snap.externalBlockers.some((b) => sameRepo(b.ref.repo, repo));

/** The snapshot with `ref` closed: out of the open issues; stated closed where an issue still names it. */
export const withIssueClosed = (snap: MilestoneSnapshot, ref: IssueRef): MilestoneSnapshot => {
  const gone = snap.issues.find((i) => sameIssue(i.ref, ref));
  const issues = snap.issues.filter((i) => !sameIssue(i.ref, ref));
  const named = issues.some((i) => i.blockedBy.some((b) => sameIssue(b, ref)));
  const others = snap.externalBlockers.filter((b) => !sameIssue(b.ref, ref));
  const known = snap.externalBlockers.find((b) => sameIssue(b.ref, ref));
  const title = gone?.title ?? known?.title;
  return {
    milestone: gone
      ? {
          ...snap.milestone,
          openIssues: Math.max(0, snap.milestone.openIssues - 1),
          closedIssues: snap.milestone.closedIssues + 1,
        }
      : snap.milestone,
    issues,
    externalBlockers: named
      ? [...others, { ref, state: 'closed', ...(title !== undefined ? { title } : {}) }]
      : others,
  };
};

/** `forge` with kept milestone snapshots and files; `observeEvent` is how webhooks reach them. */
export const withKeptReads = (forge: Forge, opts: KeptReadsOptions = {}): Forge => {
  const freshMs = opts.freshMs ?? 60_000;
  const now = opts.now ?? Date.now;
  const snapshots = new Map<string, { at: number; repo: RepoRef; snap: MilestoneSnapshot }>();
  const files = new Map<string, { at: number; value: Promise<string | undefined> }>();
  const loading = new Map<string, Promise<MilestoneSnapshot>>();
  // Each repository's default branch as last read.
  const defaults = new Map<string, string>();
  // Bumped on every invalidation: a load that started before one is not kept.
  let generation = 0;

  const dropRepo = (repo: RepoRef) => {
    generation += 1;
    for (const [k, v] of snapshots) if (touches(v.snap, repo) || sameRepo(v.repo, repo)) snapshots.delete(k);
  };
  const closed = (ref: IssueRef) => {
    generation += 1;
    for (const v of snapshots.values()) v.snap = withIssueClosed(v.snap, ref);
  };
  const after =
    <A extends unknown[], R>(fn: (...a: A) => Promise<R>, then: (...a: A) => void) =>
    async (...a: A): Promise<R> => {
      try {
        return await fn(...a);
      } finally {
        // Also on failure: the write may have happened before the answer was lost.
        then(...a);
      }
    };

  const feedback = withKeptFeedbackReads(forge, { freshMs, now });
  const { observe, ...feedbackReads } = feedback;
  return {
    ...forge,
    ...feedbackReads,
    async loadMilestone(repo, number) {
      const key = `${repoKey(repo)}#${number}`;
      const hit = snapshots.get(key);
      if (hit && now() - hit.at < freshMs) return structuredClone(hit.snap);
      const pending = loading.get(key);
      if (pending) return structuredClone(await pending);
      const started = generation;
      const at = now();
      const load = forge.loadMilestone(repo, number);
      loading.set(key, load);
      try {
        const snap = await load;
        if (generation === started) snapshots.set(key, { at, repo, snap: structuredClone(snap) });
        else snapshots.delete(key);
        return snap;
      } finally {
        loading.delete(key);
      }
    },
    async getDefaultBranch(repo) {
      const branch = await forge.getDefaultBranch(repo);
      defaults.set(repoKey(repo), branch);
      return branch;
    },
    async getFile(repo, path, ref) {
      // The default branch named is the default branch unnamed (the config read by commands and runs).
      const at = ref === undefined || ref === defaults.get(repoKey(repo)) ? '' : ref;
      const key = `${repoKey(repo)} ${at} ${path}`;
      const hit = files.get(key);
      if (hit && now() - hit.at < freshMs) return hit.value;
      const value = forge.getFile(repo, path, ref);
      files.set(key, { at: now(), value });
      value.catch(() => {
        if (files.get(key)?.value === value) files.delete(key);
      });
      return value;
    },
    // A close the forge refused or whose answer was lost is not taken as done: the next load reads the
    // issue's state from the forge (a run must not finish on an issue that is still open).
    async closeIssue(ref, close) {
      try {
        await forge.closeIssue(ref, close);
      } catch (err) {
        dropRepo(ref.repo);
        throw err;
      }
      closed(ref);
    },
    ...(forge.closeIssues
      ? {
          closeIssues: async (closes: readonly { ref: IssueRef; comment: string }[]) => {
            const answers = await forge.closeIssues!(closes).catch((err: unknown) => {
              for (const c of closes) dropRepo(c.ref.repo);
              throw err;
            });
            answers.forEach((a, i) => {
              const { ref } = closes[i]!;
              if (a.status === 'fulfilled') closed(ref);
              else dropRepo(ref.repo);
            });
            return answers;
          },
        }
      : {}),
    reopenIssue: after(forge.reopenIssue, (ref) => dropRepo(ref.repo)),
    createIssue: after(forge.createIssue, (repo) => dropRepo(repo)),
    addBlockedBy: after(forge.addBlockedBy, (issue) => dropRepo(issue.repo)),
    addLabels: after(forge.addLabels, (ref) => dropRepo(ref.repo)),
    removeLabel: after(forge.removeLabel, (ref) => dropRepo(ref.repo)),
    observeEvent(event) {
      forge.observeEvent?.(event);
      observe(event);
      if (harmless.has(event.kind)) return;
      if (event.kind === 'issue-closed' && event.issueNumber !== undefined) {
        closed({ repo: event.repo, number: event.issueNumber });
        return;
      }
      // A merged PR closes issues only on the default branch, and then the forge says so (issue closed).
      if (event.kind === 'pr-merged' || event.kind === 'pr-closed') return;
      dropRepo(event.repo);
    },
  };
};
