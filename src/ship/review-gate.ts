// Whether people's reviews hold a merge: a writer's changes-requested review holds it while it stands
// on the PR's current head. Each person's latest approving / changes-requested / dismissed review is
// their standing (comments do not change it, as on GitHub); one given on an older head is stale (as
// Gitea marks it, and as GitHub's dismiss-stale-reviews does) once the worker pushed after it, so the
// merge proceeds when CI is green, and the writer can request changes again.
import { hasPermission, type Permission, type Review } from '../forges/types.ts';

export interface ReviewGateInput {
  reviews: readonly Review[];
  headSha: string;
  /** Each reviewer's permission (looked up by the caller); missing means none. */
  permissions: ReadonlyMap<string, Permission>;
  botLogin: string;
}

export type ReviewGate =
  | { kind: 'clear'; staleChangeRequests: Review[] }
  | { kind: 'changes_requested'; by: Review[] };

export const reviewGate = (input: ReviewGateInput): ReviewGate => {
  const standing = new Map<string, Review>();
  for (const r of [...input.reviews].sort(
    (a, b) => (a.submittedAt ?? '').localeCompare(b.submittedAt ?? '') || a.id - b.id,
  )) {
    if (r.state === 'commented' || r.state === 'pending') continue;
    standing.set(r.author.toLowerCase(), r);
  }
  const writerRequests = [...standing.values()].filter(
    (r) =>
      r.state === 'changes_requested' &&
      r.author.toLowerCase() !== input.botLogin.toLowerCase() &&
      hasPermission(
        input.permissions.get(r.author.toLowerCase()) ?? input.permissions.get(r.author) ?? 'none',
        'write',
      ),
  );
  const isStale = (r: Review) =>
    r.stale === true || (r.commitSha !== undefined && r.commitSha !== input.headSha);
  const standingOnHead = writerRequests.filter((r) => !isStale(r));
  if (standingOnHead.length > 0) return { kind: 'changes_requested', by: standingOnHead };
  return { kind: 'clear', staleChangeRequests: writerRequests.filter(isStale) };
};
