// A worker PR's feedback read (the PR, its head's checks, its reviews) kept past its reconcile call
// while the PR only waits: on its repository's CI, or on its worker. Every webhook, cron tick and
// runner event starts a call that gates every open PR; without this, a PR whose CI runs for ten
// minutes is read on each of them (Gitea: the PR, its status and its reviews, three requests). A kept
// read is served again until the first of:
// - its backoff ends: `firstMs` after the first read of a head that waits, doubling with each read of
//   that head that still waits, up to `maxMs` (at once while it waits on its worker, whose stamp or a
//   webhook ends that wait), and never past the CI verdict's `recheckAt` (the settle
//   window or the timeout, where "pending" turns into something else with no check changing). On Gitea,
//   which sends no commit-status webhook, this is when a finished CI is seen; a new head starts again
//   at `firstMs`;
// - a webhook about the PR (its head moved, it merged or closed, it was reviewed or commented on) or a
//   check of its head changed (GitHub's `check_run`, `check_suite`, `status`);
// - its worker started, resumed or ended (the stamp, pr-reads-per-call.ts `workerStamps`).
// Only a read whose gate answer was such a wait is kept, so nothing merges, resumes or holds on a
// kept read; a writer's review is seen at its webhook, or at the backoff's end if that was lost.
import type { Forge, IssueRef, ObservedEvent, PullFeedback } from '../forges/types.ts';
import type { PrFacts } from './pr-facts.ts';

export interface CiPollBackoff {
  firstMs: number;
  maxMs: number;
}

export const defaultCiPollBackoff: CiPollBackoff = { firstMs: 2_000, maxMs: 30_000 };

/** Kept PRs at most (oldest first out): a merged PR's entry goes at its last gate anyway. */
const maxEntries = 5_000;

const repoKey = (repo: IssueRef['repo']) => `${repo.owner}/${repo.name}`.toLowerCase();
const pullKey = (ref: IssueRef) => `${repoKey(ref.repo)}#${ref.number}`;

interface Entry {
  repo: string;
  number: number;
  stamp: string;
  read: PullFeedback;
  head: string;
  /** Reads of this head in a row whose gate answer waited. */
  waits: number;
  /** Served again until then (ms). */
  until: number;
}

export interface KeptPrReads {
  /** `forge` whose `readPullFeedback` serves a kept read while it stands (stampOf: workerStamps). */
  over(forge: Forge, stampOf: (ref: IssueRef) => string): Forge;
  /** The gate's facts of a PR: a fresh read whose answer only waits is kept, any other is dropped. */
  settled(ref: IssueRef, facts: PrFacts): void;
  /** A webhook: the reads it may have changed are served no more. */
  observe(event: ObservedEvent): void;
}

/** Whether the gate's answer waits on nothing a kept read could miss but the events that drop it. */
const onlyWaits = (facts: PrFacts): boolean =>
  facts.decision.kind === 'wait' &&
  facts.state.held === undefined &&
  (facts.decision.on === 'ci' || facts.worker !== 'idle');

export const createKeptPrReads = (
  now: () => number,
  backoff: CiPollBackoff = defaultCiPollBackoff,
): KeptPrReads => {
  const entries = new Map<string, Entry>();
  // Fresh reads not yet gated, by PR: what `settled` keeps or drops.
  const fresh = new Map<string, { stamp: string; read: PullFeedback; at: number }>();
  return {
    over(forge, stampOf) {
      const { readPullFeedback } = forge;
      if (!readPullFeedback) return forge;
      return {
        ...forge,
        readPullFeedback: async (ref, opts) => {
          const key = pullKey(ref);
          const stamp = stampOf(ref);
          const hit = entries.get(key);
          if (hit && hit.stamp === stamp && now() < hit.until) return structuredClone(hit.read);
          const at = now();
          const read = await readPullFeedback(ref, opts);
          fresh.set(key, { stamp, read: structuredClone(read), at });
          return read;
        },
      };
    },
    settled(ref, facts) {
      const key = pullKey(ref);
      const got = fresh.get(key);
      if (!got) return;
      fresh.delete(key);
      if (!onlyWaits(facts)) {
        entries.delete(key);
        return;
      }
      const before = entries.get(key);
      const waits = before?.head === facts.head ? before.waits + 1 : 1;
      // Waiting on its worker, nothing the PR's reads hold moves the gate: the worker's stamp or a
      // webhook ends the wait, and the longest backoff is only the fallback for a webhook lost.
      const wait =
        facts.worker !== 'idle' ? backoff.maxMs : Math.min(backoff.maxMs, backoff.firstMs * 2 ** (waits - 1));
      const recheckAt = facts.ci.kind === 'pending' ? facts.ci.recheckAt : Number.POSITIVE_INFINITY;
      entries.delete(key);
      entries.set(key, {
        repo: repoKey(ref.repo),
        number: ref.number,
        stamp: got.stamp,
        read: got.read,
        head: facts.head,
        waits,
        until: Math.min(got.at + wait, recheckAt),
      });
      while (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
    },
    observe(event) {
      const repo = repoKey(event.repo);
      const number = event.number ?? event.issueNumber;
      for (const e of entries.values()) {
        if (e.repo !== repo) continue;
        const touched =
          event.kind === 'checks-changed'
            ? event.headSha === undefined || event.headSha === e.head
            : number === e.number;
        // Served no more; its backoff stands (a new head resets it).
        if (touched) e.until = 0;
      }
    },
  };
};
