// The ForgeResolver main hands to the event processor: one Gitea forge for the configured token, one
// GitHub forge per App installation (created on first use, then kept). A forge that is not configured
// is an error in words, never a silent no-op.
import { AppError } from '../errors.ts';
import { createGiteaForge } from '../forges/gitea/index.ts';
import { createGithubForge } from '../forges/github/index.ts';
import type { Forge } from '../forges/types.ts';
import type { Logger } from '../observability/logger.ts';
import type { ForgeResolver } from './process-events.ts';

export interface ForgeResolverOptions {
  github?: { appId: string; privateKey: string; baseUrl: string; botLogin: string };
  gitea?: { url: string; token: string; botLogin: string };
  logger: Logger;
}

export const createForgeResolver = (opts: ForgeResolverOptions): ForgeResolver => {
  const installations = new Map<number, Forge>();
  let gitea: Forge | undefined;
  return async ({ forge, installationId }) => {
    if (forge === 'gitea') {
      if (!opts.gitea) throw new AppError('forge_unavailable', 'Gitea is not configured on this bot');
      gitea ??= createGiteaForge({ ...opts.gitea, logger: opts.logger.child({ forge: 'gitea' }) });
      return gitea;
    }
    const github = opts.github;
    if (!github) throw new AppError('forge_unavailable', 'GitHub is not configured on this bot');
    if (installationId === undefined) {
      throw new AppError(
        'forge_unavailable',
        'the GitHub event carries no installation: is the App installed?',
      );
    }
    let found = installations.get(installationId);
    if (!found) {
      found = createGithubForge({
        baseUrl: github.baseUrl,
        auth: { appId: github.appId, privateKey: github.privateKey, installationId },
        botLogin: github.botLogin,
        logger: opts.logger.child({ forge: 'github', installationId }),
      });
      installations.set(installationId, found);
    }
    return found;
  };
};
