// The repositories the bot's Gitea account can reach (`GET /user/repos`, paged). Gitea sends no
// milestone webhook, so the orchestrator's tick looks through these for `[blitz]` milestones.
import { z } from 'zod';
import type { RepoRef } from '../types.ts';
import type { GiteaClient } from './client.ts';

const GiteaRepoName = z.object({
  full_name: z.string().regex(/^[^/\s]+\/[^/\s]+$/),
  archived: z.boolean().optional(),
});

export const listRepositories = async (client: GiteaClient, pageSize: number): Promise<RepoRef[]> =>
  (
    await client.paged(
      GiteaRepoName,
      { method: 'GET', path: '/user/repos', what: 'list the repositories the bot can reach' },
      pageSize,
    )
  )
    // An archived repository takes no new work.
    .filter((r) => !r.archived)
    .map((r) => {
      const [owner = '', name = ''] = r.full_name.split('/');
      return { owner, name };
    });
