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

/**
 * Gitea has one `pending` for GitHub's queued and in progress: the first in-progress report on a head
 * whose status the bot just set queued, when it is only waiting on the legs the queued words name
 * ("queued: waiting for the review leg and the build", which still holds), is not sent (one request
 * per PR). One with news (a worker resumed, a change request) is, and so is every later report on
 * that head. Remembered per head, bounded, oldest out.
 */
const queuedHeads = (max = 2_000) => {
  const heads = new Set<string>();
  return {
    /** Whether this report is worth a request. */
    send(key: string, report: ProgressReport): boolean {
      const wasQueued = heads.delete(key);
      return !(wasQueued && report.state === 'in_progress' && report.waiting === true);
    },
    /** A report was written: a queued one is remembered (only once it is on the forge). */
    sent(key: string, state: ProgressReport['state']): void {
      if (state !== 'queued') return;
      heads.add(key);
      if (heads.size > max) heads.delete(heads.values().next().value as string);
    },
  };
};

export const statusOps = (client: GiteaClient) => {
  const queued = queuedHeads();
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

    reportProgress: async (repo: RepoRef, sha: string, report: ProgressReport): Promise<void> => {
      const key = `${formatRepo(repo)}@${sha}`.toLowerCase();
      if (!queued.send(key, report)) return;
      await client.none({
        method: 'POST',
        path: `${repoPath(repo)}/statuses/${encodeURIComponent(sha)}`,
        body: {
          context: progressContext,
          state: giteaState[report.state],
          description: report.title.slice(0, maxDescriptionChars),
          ...(report.detailsUrl ? { target_url: report.detailsUrl } : {}),
        },
        what: `report progress on ${sha.slice(0, 7)} in ${formatRepo(repo)}`,
        needs: writeOn(repo),
      });
      queued.sent(key, report.state);
    },
  };
};
