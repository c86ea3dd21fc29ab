// What the PR feedback loop reads of a worker PR, kept between reconcile passes (beside kept-reads.ts,
// which composes it into both adapters). Every pass gates every open worker PR; without these, a PR
// whose head's CI has finished is read again, checks, annotations, reviews and comments, on every pass.
//
// - A head's checks are kept once they are final: every check but the bot's own has completed. Until
//   then they are read afresh (CI is running, or has not started). A kept list goes when a webhook says
//   a check of that head (or, unsure which, of that repository) changed (`checks-changed`: GitHub's
//   `check_run`, `check_suite` and `status`), or with age: Gitea sends no status webhook, so a re-run
//   there is seen at most `freshMs` later.
// - A PR's reviews and review comments are kept until a webhook says someone reviewed or commented on
//   it (`review-changed`, both forges), the bot answers on one of its threads, or with age.
import type { CheckInfo, Forge, IssueRef, ObservedEvent, RepoRef } from './types.ts';

/** The bot's own check (GitHub check run, Gitea status context): it never makes a list unfinished. */
const ownCheck = 'blitz';

const repoKey = (repo: RepoRef) => `${repo.owner}/${repo.name}`.toLowerCase();
const prKey = (ref: IssueRef) => `${repoKey(ref.repo)}#${ref.number}`;

const bare = (login: string) => login.toLowerCase().replace(/\[bot\]$/, '');

/** Every check but the bot's own has completed, and there is one. */
const final = (checks: readonly CheckInfo[], botLogin: string): boolean => {
  const others = checks.filter(
    (c) => !(c.name.toLowerCase() === ownCheck && bare(c.reporter ?? '') === bare(botLogin)),
  );
  return others.length > 0 && others.every((c) => c.status === 'completed');
};

export interface KeptFeedbackOptions {
  freshMs: number;
  now: () => number;
}

type FeedbackReads = Pick<
  Forge,
  'listChecks' | 'listReviews' | 'listReviewComments' | 'replyToReviewComment'
>;

export const withKeptFeedbackReads = (
  forge: Forge,
  opts: KeptFeedbackOptions,
): FeedbackReads & { observe(event: ObservedEvent): void } => {
  const checks = new Map<string, { at: number; repo: string; sha: string; value: CheckInfo[] }>();
  const reviews = new Map<string, { at: number; value: unknown }>();
  const fresh = (at: number) => opts.now() - at < opts.freshMs;

  /** `read` once per key while fresh; a failed read is not kept. */
  const keptRead =
    <T>(key: string, read: () => Promise<T>) =>
    async (): Promise<T> => {
      const hit = reviews.get(key);
      if (hit && fresh(hit.at)) return structuredClone(hit.value) as T;
      const at = opts.now();
      const value = await read();
      reviews.set(key, { at, value: structuredClone(value) });
      return value;
    };
  const dropPr = (repo: RepoRef, number?: number) => {
    const prefix = number === undefined ? `${repoKey(repo)}#` : `${prKey({ repo, number })} `;
    for (const k of reviews.keys()) if (k.startsWith(prefix)) reviews.delete(k);
  };

  const { listChecks, listReviews, listReviewComments, replyToReviewComment } = forge;
  return {
    ...(listChecks
      ? {
          async listChecks(repo: RepoRef, sha: string) {
            const key = `${repoKey(repo)}@${sha}`;
            const hit = checks.get(key);
            if (hit && fresh(hit.at)) return structuredClone(hit.value);
            const at = opts.now();
            const value = await listChecks(repo, sha);
            if (final(value, forge.botLogin))
              checks.set(key, { at, repo: repoKey(repo), sha, value: structuredClone(value) });
            else checks.delete(key);
            return value;
          },
        }
      : {}),
    ...(listReviews
      ? { listReviews: (ref: IssueRef) => keptRead(`${prKey(ref)} reviews`, () => listReviews(ref))() }
      : {}),
    ...(listReviewComments
      ? {
          listReviewComments: (ref: IssueRef) =>
            keptRead(`${prKey(ref)} comments`, () => listReviewComments(ref))(),
        }
      : {}),
    ...(replyToReviewComment
      ? {
          async replyToReviewComment(ref: IssueRef, commentId: number, body: string) {
            try {
              return await replyToReviewComment(ref, commentId, body);
            } finally {
              dropPr(ref.repo, ref.number);
            }
          },
        }
      : {}),
    observe(event) {
      if (event.kind === 'checks-changed') {
        const repo = repoKey(event.repo);
        for (const [k, v] of checks)
          if (v.repo === repo && (event.headSha === undefined || v.sha === event.headSha)) checks.delete(k);
      } else if (event.kind === 'review-changed') dropPr(event.repo, event.number);
    },
  };
};
