// `blitz-bot doctor`'s look at the Gitea token: `GET /user` says whose it is, and for each
// repository asked about, the permission that user has there (the bot needs write).
import { z } from 'zod';
import { silentLogger } from '../../observability/logger.ts';
import { formatRepo, type RepoRef } from '../types.ts';
import { defaultRetryPolicy, GiteaClient } from './client.ts';
import { repoPath } from './paths.ts';

const userSchema = z.object({ login: z.string() });
const permissionSchema = z.object({ permission: z.string() });

export interface GiteaTokenCheck {
  login: string;
  permissions: { repo: string; permission: string }[];
}

export const checkGiteaToken = async (opts: {
  url: string;
  token: string;
  repos: RepoRef[];
  fetch?: typeof fetch;
}): Promise<GiteaTokenCheck> => {
  const client = new GiteaClient({
    url: opts.url,
    token: opts.token,
    botLogin: '',
    logger: silentLogger(),
    retry: { ...defaultRetryPolicy, retries: 0 },
    fetch: opts.fetch ?? globalThis.fetch,
    requestTimeoutMs: 15_000,
  });
  const me = await client.json(userSchema, { method: 'GET', path: '/user', what: 'read the token’s user' });
  const permissions: GiteaTokenCheck['permissions'] = [];
  for (const repo of opts.repos) {
    const p = await client.json(permissionSchema, {
      method: 'GET',
      path: `${repoPath(repo)}/collaborators/${encodeURIComponent(me.login)}/permission`,
      what: `read ${me.login}'s permission on ${formatRepo(repo)}`,
    });
    permissions.push({ repo: formatRepo(repo), permission: p.permission });
  }
  return { login: me.login, permissions };
};
