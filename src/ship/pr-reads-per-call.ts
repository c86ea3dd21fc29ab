// The PR feedback loop's reads, once per reconcile call: a call makes up to a dozen passes within
// seconds (a PR opened, reviewed, merged), and each pass gates every open worker PR. Within one call a
// PR with its feedback (or a head's checks and a PR's reviews and comments) is read once; a webhook or a tick that arrives
// meanwhile starts another call, which reads afresh, so nothing waits on these longer than the call.
// A PR the call opened is taken from the forge's answer to the open, not read back (Gitea reads the
// PR apart from its checks and reviews). A PR's reads are kept only while its worker's attempts stand
// as they were when read: a worker pushes before its attempt ends, so a pass that sees the attempt
// ended must see that push too (else its resume looks as if it pushed nothing and the review threads
// it addressed go unanswered, or a fixed red head is resumed again).
import type { Forge, IssueRef, OpenedPullRequest } from '../forges/types.ts';
import { attemptKey } from '../plan/issue-progress.ts';
import type { IssueProgress } from '../plan/snapshot.ts';
import type { AttemptRecord } from '../runner/types.ts';

type Reads = Pick<Forge, 'listChecks' | 'listReviews' | 'listReviewComments' | 'readPullFeedback'>;

const pullKey = (ref: IssueRef) => `${ref.repo.owner}/${ref.repo.name}#${ref.number}`;

/** `forge` whose PR opens are kept in the call's `memo`, for readsPerCall's feedback read over the same memo. */
export const keepOpenedPulls = (forge: Forge, memo: Map<string, Promise<unknown>>): Forge => ({
  ...forge,
  openPullRequest: async (repo, pr, opts) => {
    const opened = await forge.openPullRequest(repo, pr, opts);
    memo.set(`opened ${pullKey(opened.ref)}`, Promise.resolve(opened));
    return opened;
  },
});

/**
 * What a PR's reads are judged with, by PR number: its issue's attempts, each as far as the worker's
 * phase goes (started, resumed with feedback, ended). A tick's own writes (stall checks) do not count.
 */
export const workerStamps = (
  progress: readonly Pick<IssueProgress, 'key' | 'pr'>[],
  attempts: readonly Pick<AttemptRecord, 'id' | 'issue' | 'outcome' | 'feedbackResumes'>[],
): Map<number, string> => {
  const stamps = new Map<number, string>();
  for (const p of progress) {
    if (!p.pr) continue;
    const mine = attempts.filter((a) => attemptKey(a) === p.key);
    stamps.set(
      p.pr.number,
      mine.map((a) => `${a.id}:${a.outcome ?? ''}:${a.feedbackResumes ?? 0}`).join(','),
    );
  }
  return stamps;
};

/**
 * `forge` whose PR feedback reads are made once per call (`memo`); `stampOf` names what a PR's reads
 * are judged with (workerStamps): a read made under another stamp is made again.
 */
export const readsPerCall = (
  forge: Forge,
  memo: Map<string, Promise<unknown>>,
  stampOf: (ref: IssueRef) => string = () => '',
): Forge => {
  const once = <T>(key: string, read: () => Promise<T>): Promise<T> => {
    const hit = memo.get(key) as Promise<T> | undefined;
    if (hit) return hit;
    const value = read();
    memo.set(key, value);
    // A failed read is not kept: the next pass asks again.
    value.catch(() => memo.delete(key));
    return value;
  };
  const { listChecks, listReviews, listReviewComments, readPullFeedback } = forge;
  const reads: Reads = {
    ...(readPullFeedback
      ? {
          readPullFeedback: (ref) =>
            once(`pull ${pullKey(ref)} ${stampOf(ref)}`, async () => {
              // Taken once: a read under a later stamp reads the PR back (its head may have moved).
              const opened = memo.get(`opened ${pullKey(ref)}`) as Promise<OpenedPullRequest> | undefined;
              memo.delete(`opened ${pullKey(ref)}`);
              return readPullFeedback(ref, opened ? { pull: await opened } : undefined);
            }),
        }
      : {}),
    ...(listChecks
      ? {
          listChecks: (repo, sha) =>
            once(`checks ${repo.owner}/${repo.name}@${sha}`, () => listChecks(repo, sha)),
        }
      : {}),
    ...(listReviews
      ? {
          listReviews: (ref) => once(`reviews ${pullKey(ref)} ${stampOf(ref)}`, () => listReviews(ref)),
        }
      : {}),
    ...(listReviewComments
      ? {
          listReviewComments: (ref) =>
            once(`comments ${pullKey(ref)} ${stampOf(ref)}`, () => listReviewComments(ref)),
        }
      : {}),
  };
  return { ...forge, ...reads };
};
