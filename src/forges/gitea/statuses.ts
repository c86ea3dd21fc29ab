// Commit statuses on Gitea: a commit's combined status (the latest status per context) normalised to
// CheckInfo, and the bot's own progress as the commit status `blitz`. Gitea sends no webhook for
// statuses, so the bot polls this on its tick; it has no job logs to read.
import { z } from 'zod';
import type { CheckConclusion, CheckInfo, ProgressReport, RepoRef } from '../types.ts';
import { formatRepo } from '../types.ts';
import type { GiteaClient } from './client.ts';
import { repoPath, writeOn } from './paths.ts';
import { GiteaUser } from './schema.ts';

/** The bot's own status context, as the check run name on GitHub. */
export const progressContext = 'blitz';

/** Gitea stores a status description in a 255-character column. */
const maxDescriptionChars = 255;

export const GiteaCommitStatus = z.object({
  id: z.number(),
  context: z.string().nullish(),
  status: z.string().nullish(),
  description: z.string().nullish(),
  target_url: z.string().nullish(),
  created_at: z.string().nullish(),
  creator: GiteaUser.nullish(),
});
export type GiteaCommitStatus = z.infer<typeof GiteaCommitStatus>;

const GiteaCombinedStatus = z.object({
  state: z.string().nullish(),
  statuses: z.array(GiteaCommitStatus).nullish(),
});

const conclusionOf = (state: string): CheckConclusion | undefined => {
  if (state === 'pending') return undefined;
  if (state === 'success') return 'success';
  if (state === 'failure') return 'failure';
  if (state === 'warning') return 'neutral';
  return 'error';
};

export const toCheckFromGiteaStatus = (s: GiteaCommitStatus): CheckInfo => {
  const conclusion = conclusionOf(s.status ?? 'pending');
  return {
    name: s.context ?? '',
    status: conclusion ? 'completed' : 'in_progress',
    ...(conclusion ? { conclusion } : {}),
    summary: s.description ?? '',
    url: s.target_url ?? '',
    externalId: `status:${s.id}`,
    ...(s.creator?.login ? { reporter: s.creator.login } : {}),
    ...(s.created_at ? { startedAt: s.created_at } : {}),
  };
};

const giteaState: Record<ProgressReport['state'], string> = {
  queued: 'pending',
  in_progress: 'pending',
  success: 'success',
  failure: 'failure',
  // Gitea's `warning` counts as passing in its own combined state, as GitHub's neutral does.
  neutral: 'warning',
};

/** Heads remembered at most (oldest first out). */
const maxHeads = 2_000;

export const statusOps = (client: GiteaClient) => {
  // Gitea has one `pending` for queued and in progress, and a status says no more than its state and a
  // line. A report that only waits, on the legs (queued, or `ProgressReport.waiting`: CI, the review
  // leg, the merge) or on the worker the last report resumed (`working`), is not sent while the head's
  // last `blitz` status is pending, nor while it has none: the PR's own CI status shows it waits, and
  // the head's first status is then the gate's completion (a PR whose CI is in merges with one status,
  // not three). News (a worker resumed, a change request, a hold) and every change of state are sent.
  // Remembered per head and process, bounded: a restart forgets which heads are pending, which at worst
  // sends one report more, or leaves a `success` whose merge was refused as the crash came standing
  // until the next change of state.
  const pending = new Set<string>();
  const reported = new Set<string>();
  return {
    listChecks: async (repo: RepoRef, sha: string): Promise<CheckInfo[]> => {
      const combined = await client.json(GiteaCombinedStatus, {
        method: 'GET',
        path: `${repoPath(repo)}/commits/${encodeURIComponent(sha)}/status`,
        query: { limit: 50 },
        what: `read the combined status of ${sha.slice(0, 7)} in ${formatRepo(repo)}`,
      });
      return (combined.statuses ?? []).map(toCheckFromGiteaStatus);
    },

    reportProgress: async (repo: RepoRef, sha: string, report: ProgressReport): Promise<undefined> => {
      const key = `${formatRepo(repo)}@${sha}`.toLowerCase();
      const state = giteaState[report.state];
      const nothingNew =
        report.state === 'queued' ||
        (report.state === 'in_progress' && (report.waiting === true || report.working === true));
      if (nothingNew && (pending.has(key) || !reported.has(key))) return undefined;
      await client.none({
        method: 'POST',
        path: `${repoPath(repo)}/statuses/${encodeURIComponent(sha)}`,
        body: {
          context: progressContext,
          state,
          description: report.title.slice(0, maxDescriptionChars),
          ...(report.detailsUrl ? { target_url: report.detailsUrl } : {}),
        },
        what: `report progress on ${sha.slice(0, 7)} in ${formatRepo(repo)}`,
        needs: writeOn(repo),
      });
      pending.delete(key);
      if (state === 'pending') pending.add(key);
      if (pending.size > maxHeads) pending.delete(pending.values().next().value as string);
      reported.delete(key);
      reported.add(key);
      if (reported.size > maxHeads) reported.delete(reported.values().next().value as string);
      return undefined;
    },
  };
};
