// The forge resolver main hands to the event processor and the orchestrator: one Gitea forge for the
// configured token, one GitHub forge per App installation (created on first use, then kept). A GitHub
// target without an installation id (a run started from a stored command) is resolved by repository:
// the installation a signed webhook of that repository named, else the App's installation lookup. A
// forge that is not configured is an error in words.
import { AppError } from '../errors.ts';
import { createGiteaForge } from '../forges/gitea/index.ts';
import { createGithubForge, createInstallationLookup, type RetryOptions } from '../forges/github/index.ts';
import { withCleanOutgoing } from '../forges/outgoing-text.ts';
import type { ForgeRequestHook } from '../forges/request-hook.ts';
import type { Forge, ForgeKind, RepoRef } from '../forges/types.ts';
import type { Logger } from '../observability/logger.ts';
import type { Redact } from '../observability/redact.ts';

export interface ForgeResolverOptions {
  /** `retry`: retries and write spacing of each installation's client (default client.ts's defaultRetry). */
  github?: { appId: string; privateKey: string; baseUrl: string; botLogin: string; retry?: RetryOptions };
  gitea?: { url: string; token: string; pushToken?: string; botLogin: string };
  logger: Logger;
  /** Installation of a repository (default: asked of GitHub with the App's JWT, cached). */
  installationOf?: (repo: RepoRef) => Promise<number>;
  /** The request hook each forge client gets (forge metrics). */
  onRequest?: (forge: ForgeKind, installationId?: number) => ForgeRequestHook;
  /** Secrets out of every text the bot writes (forges/outgoing-text.ts also strips controls and commands). */
  redact: Redact;
}

export type ResolveForge = (target: {
  forge: ForgeKind;
  installationId?: number;
  repo?: RepoRef;
}) => Promise<Forge>;

export const createForgeResolver = (opts: ForgeResolverOptions): ResolveForge => {
  const installations = new Map<number, Forge>();
  // Repositories' installations as signed webhooks named them (latest wins), by `owner/name`.
  const covering = new Map<string, number>();
  let gitea: Forge | undefined;
  const github = opts.github;
  const installationOf =
    opts.installationOf ??
    (github
      ? createInstallationLookup({
          baseUrl: github.baseUrl,
          appId: github.appId,
          privateKey: github.privateKey,
          logger: opts.logger.child({ forge: 'github' }),
        })
      : undefined);
  return async ({ forge, installationId, repo }) => {
    if (forge === 'gitea') {
      if (!opts.gitea) throw new AppError('forge_unavailable', 'Gitea is not configured on this bot');
      gitea ??= withCleanOutgoing(
        createGiteaForge({
          ...opts.gitea,
          logger: opts.logger.child({ forge: 'gitea' }),
          ...(opts.onRequest ? { onRequest: opts.onRequest('gitea') } : {}),
        }),
        opts.redact,
      );
      return gitea;
    }
    if (!github || !installationOf)
      throw new AppError('forge_unavailable', 'GitHub is not configured on this bot');
    const key = repo ? `${repo.owner}/${repo.name}`.toLowerCase() : undefined;
    // A webhook names its installation with its repository: a run of that repository needs no lookup.
    if (key && installationId !== undefined) covering.set(key, installationId);
    const id =
      installationId ??
      (key !== undefined ? covering.get(key) : undefined) ??
      (repo ? await installationOf(repo) : undefined);
    if (id === undefined) {
      throw new AppError(
        'forge_unavailable',
        'the GitHub event carries no installation: is the App installed?',
      );
    }
    let found = installations.get(id);
    if (!found) {
      found = withCleanOutgoing(
        createGithubForge({
          baseUrl: github.baseUrl,
          auth: { appId: github.appId, privateKey: github.privateKey, installationId: id },
          botLogin: github.botLogin,
          ...(github.retry ? { retry: github.retry } : {}),
          logger: opts.logger.child({ forge: 'github', installationId: id }),
          ...(opts.onRequest ? { onRequest: opts.onRequest('github', id) } : {}),
        }),
        opts.redact,
      );
      installations.set(id, found);
    }
    return found;
  };
};
