// The PR feedback loop's reads, once per reconcile call: a call makes up to a dozen passes within
// seconds (a PR opened, reviewed, merged), and each pass gates every open worker PR. Within one call a
// PR with its feedback (or a head's checks and a PR's reviews and comments) is read once; a webhook or a tick that arrives
// meanwhile starts another call, which reads afresh, so nothing waits on these longer than the call.
// A PR the call opened is taken from the forge's answer to the open, not read back (Gitea reads the
// PR apart from its checks and reviews).
import type { Forge, IssueRef, OpenedPullRequest } from '../forges/types.ts';

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

export const readsPerCall = (forge: Forge, memo: Map<string, Promise<unknown>>): Forge => {
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
            once(`pull ${pullKey(ref)}`, async () => {
              const opened = memo.get(`opened ${pullKey(ref)}`) as Promise<OpenedPullRequest> | undefined;
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
          listReviews: (ref) =>
            once(`reviews ${ref.repo.owner}/${ref.repo.name}#${ref.number}`, () => listReviews(ref)),
        }
      : {}),
    ...(listReviewComments
      ? {
          listReviewComments: (ref) =>
            once(`comments ${ref.repo.owner}/${ref.repo.name}#${ref.number}`, () => listReviewComments(ref)),
        }
      : {}),
  };
  return { ...forge, ...reads };
};
