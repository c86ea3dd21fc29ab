// Which GitHub App installation covers a repository. Commands stored as intents carry no installation
// id, so a run started from one asks `GET /repos/{owner}/{repo}/installation` with the App's own JWT;
// answers are cached (an installation id does not change while the App stays installed).
import { createAppAuth } from '@octokit/auth-app';
import { Octokit } from '@octokit/rest';
import { z } from 'zod';
import { AppError } from '../../errors.ts';
import type { Logger } from '../../observability/logger.ts';
import { octokitLog } from '../../observability/octokit-log.ts';
import type { RepoRef } from '../types.ts';

const installationSchema = z.object({ id: z.number().int().positive() });

export interface AppCredentials {
  baseUrl: string;
  appId: string | number;
  privateKey: string;
  logger: Logger;
}

/** An Octokit that authenticates as the App itself (a JWT), for the `/app…` endpoints and lookups. */
export const appOctokit = (opts: AppCredentials): Octokit =>
  new Octokit({
    log: octokitLog(opts.logger),
    authStrategy: createAppAuth,
    auth: { appId: opts.appId, privateKey: opts.privateKey },
    baseUrl: opts.baseUrl,
    userAgent: 'blitz-bot',
  });

export type InstallationLookup = (repo: RepoRef) => Promise<number>;

export const createInstallationLookup = (opts: {
  baseUrl: string;
  appId: string | number;
  privateKey: string;
  logger: Logger;
}): InstallationLookup => {
  const octokit = appOctokit(opts);
  const cache = new Map<string, Promise<number>>();
  const ask = async (repo: RepoRef): Promise<number> => {
    try {
      const { data } = await octokit.request('GET /repos/{owner}/{repo}/installation', {
        owner: repo.owner,
        repo: repo.name,
      });
      return installationSchema.parse(data).id;
    } catch (err) {
      const status = (err as { status?: unknown }).status;
      if (status === 404)
        throw new AppError(
          'forge_unavailable',
          `the GitHub App is not installed on ${repo.owner}/${repo.name}`,
        );
      throw err;
    }
  };
  return (repo) => {
    const key = `${repo.owner}/${repo.name}`.toLowerCase();
    let hit = cache.get(key);
    if (!hit) {
      hit = ask(repo);
      // A failure is not remembered: the App may be installed a minute later.
      hit.catch(() => cache.delete(key));
      cache.set(key, hit);
    }
    return hit;
  };
};
