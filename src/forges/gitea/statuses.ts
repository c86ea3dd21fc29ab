// Commit statuses on Gitea: a commit's combined status (the latest status per context) normalised to
// CheckInfo, and the bot's own progress as the commit status `blitz`. Gitea sends no webhook for
// statuses, so the bot polls this on its tick; it has no job logs to read.
import { z } from 'zod';
import { openingReports } from '../opening-reports.ts';
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

export const statusOps = (client: GiteaClient) => {
  // Gitea has one `pending` for queued and in progress: the first in-progress report after the opening
  // one, only waiting on the legs it names, is not sent (opening-reports.ts).
  const opening = openingReports();
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
      if (!opening.send(key, report)) return undefined;
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
      opening.sent(key, report.state);
      return undefined;
    },
  };
};
