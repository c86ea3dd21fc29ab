// The GitHub Forge: one octokit client (app installation or token auth, retries and rate limits
// handled in client.ts) behind the Forge interface. Works against api.github.com, GitHub Enterprise
// Server (`githubBaseUrl({ host, protocol })`) and the local fake in tests.
import { z } from 'zod';
import { type Logger, silentLogger } from '../../observability/logger.ts';
import { withKeptReads } from '../kept-reads.ts';
import type { ForgeRequestHook } from '../request-hook.ts';
import { type Forge, type IssueRef, type RepoRef, sameIssue } from '../types.ts';
import { checkOps } from './checks.ts';
import { createGithubClient, type GithubAuth, type RetryOptions } from './client.ts';
import { call } from './errors.ts';
import { appOctokit } from './installation.ts';
import { issueOps } from './issues.ts';
import { cachedMilestoneLoader, listOpenMilestones, loadMilestone, resolveMilestone } from './milestones.ts';
import { nodeIds } from './node-ids.ts';
import { feedbackOfOpened, readPullFeedback } from './pull-feedback.ts';
import { pullOps } from './pulls.ts';
import { repoOps } from './repos.ts';
import { reviewOps } from './reviews.ts';

export { githubBaseUrl, type RetryOptions } from './client.ts';
export { createInstallationLookup, type InstallationLookup } from './installation.ts';

export interface GithubForgeOptions {
  /** REST base URL; default https://api.github.com. GitHub Enterprise Server: `{protocol}://{host}/api/v3`. */
  baseUrl?: string;
  auth: GithubAuth;
  /** The bot's own login (e.g. `blitz-bot[bot]`): sticky comments are only ever the bot's. */
  botLogin: string;
  logger?: Logger;
  retry?: RetryOptions;
  /** Told after every API request (forge metrics). */
  onRequest?: ForgeRequestHook /** Conditional requests and kept answers (clone credentials, ETags, milestone reloads); false only for the bench baseline. */;
  requestCache?: boolean;
  /** How long a milestone snapshot or file is served again without asking (kept-reads.ts); default a minute. */
  keptForMs?: number;
}

/** The permissions auth-app answers an installation token with (read from GitHub's answer when minted). */
const HeldPermissions = z.object({ permissions: z.record(z.string(), z.string()) });

/** The web address of a GitHub whose API is at `apiBase`: github.com, or the Enterprise host (`…/api/v3`). */
export const webBaseOf = (apiBase: string): string => {
  const url = new URL(apiBase);
  if (url.hostname === 'api.github.com') return 'https://github.com';
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/api\/v3\/?$/, '').replace(/\/+$/, '')}`;
};

/** The installation's settings page: under the organization, or the user's own settings. */
export const installationSettingsPage = (
  web: string,
  owner: string,
  organization: boolean,
  installationId: number,
): string =>
  organization
    ? `${web}/organizations/${encodeURIComponent(owner)}/settings/installations/${installationId}`
    : `${web}/settings/installations/${installationId}`;

export const createGithubForge = (opts: GithubForgeOptions): Forge => {
  const logger = (opts.logger ?? silentLogger()).child({ forge: 'github' });
  // Installation tokens, kept by app auth until GitHub says the installation's permissions changed.
  const tokens = new Map<string, string>();
  const gh = createGithubClient({
    baseUrl: opts.baseUrl ?? 'https://api.github.com',
    auth: opts.auth,
    tokenCache: tokens,
    logger,
    retry: opts.retry,
    ...(opts.onRequest ? { onRequest: opts.onRequest } : {}),
    conditional: opts.requestCache !== false,
  });
  const ids = nodeIds();
  // Repositories' node ids as their REST reads named them: a PR opens with its first check in one request.
  const repoIds = new Map<string, string>();
  const repoKey = (repo: RepoRef) => `${repo.owner}/${repo.name}`.toLowerCase();
  const cached = opts.requestCache !== false ? cachedMilestoneLoader(gh, ids) : undefined;
  const {
    ownRunSeen,
    ownRunAbsent,
    ownRunMade,
    ownRunKnown,
    ownRunKnownAbsent,
    ownRunNode,
    ownRunReported,
    ...checks
  } = checkOps(gh, { botLogin: opts.botLogin });
  // PRs' node ids as the feedback read or the open named them: a merge carries the bot's last report.
  const pullIds = nodeIds();
  const reviews = reviewOps(gh);
  const feedbackParts = {
    ...checks,
    ...reviews,
    ownRunSeen,
    ownRunAbsent,
    pullSeen: (ref: IssueRef, id: string) => pullIds.set(ref, id),
    botSlug: opts.botLogin.replace(/\[bot\]$/, ''),
  };
  const pulls = pullOps(gh, {
    feedbackOfOpened: (ref, node) => feedbackOfOpened(ref, node, feedbackParts),
    repoId: (repo) => repoIds.get(repoKey(repo)),
    ownRunMade,
    ownRunKnown,
    ownRunKnownAbsent,
    ownRunNode,
    ownRunReported,
    reportProgress: (repo, sha, report) => checks.reportProgress(repo, sha, report),
    pullIds,
    logger,
  });
  const { ownerTypeOf, ...repos } = repoOps(gh, {
    cache: opts.requestCache !== false,
    onRepoId: (repo, id) => {
      if (repoIds.size >= 1_000) repoIds.delete(repoIds.keys().next().value as string);
      repoIds.set(repoKey(repo), id);
    },
  });
  const { checksGranted, ...checkReads } = checks;
  const installationId = 'installationId' in opts.auth ? opts.auth.installationId : undefined;
  const app = 'installationId' in opts.auth ? opts.auth : undefined;
  let asApp: ReturnType<typeof appOctokit> | undefined;
  /**
   * What the bot can use on `repo` now: the permissions of the installation token it holds (auth-app
   * keeps them with the token it minted) that the installation holds too (asked with the App's JWT: a
   * permission taken away is gone at once, one granted reaches the bot only in a new token).
   */
  const heldPermissions = async (repo: RepoRef): Promise<Record<string, string>> => {
    asApp ??= app && appOctokit({ baseUrl: opts.baseUrl ?? 'https://api.github.com', ...app, logger });
    const token = HeldPermissions.safeParse(await gh.auth({ type: 'installation' }));
    const now = await call({ action: 'read the installation', repo }, () =>
      asApp!.request('GET /repos/{owner}/{repo}/installation', { owner: repo.owner, repo: repo.name }),
    );
    const installed = HeldPermissions.safeParse(now.data);
    if (!token.success || !installed.success) return {};
    const rank: Record<string, number> = { read: 1, write: 2, admin: 3 };
    return Object.fromEntries(
      Object.entries(token.data.permissions).flatMap(([name, level]) => {
        const has = installed.data.permissions[name];
        if (has === undefined) return [];
        return [[name, (rank[has] ?? 0) < (rank[level] ?? 0) ? has : level]];
      }),
    );
  };
  const forge: Forge = {
    kind: 'github',
    botLogin: opts.botLogin,
    opensWithProgress: true,
    mergesWithProgress: true,
    resolveMilestone: (repo, query) => resolveMilestone(gh, repo, query),
    listOpenMilestones: (repo) => listOpenMilestones(gh, repo),
    loadMilestone: (repo, number) => (cached ? cached(repo, number) : loadMilestone(gh, repo, number, ids)),
    ...issueOps(gh, opts.botLogin, { cache: opts.requestCache !== false, ids }),
    ...repos,
    ...pulls,
    ...checkReads,
    ...reviews,
    observeEvent(event) {
      // New permissions reach the bot only in a new installation token; the bot's check runs are tried again.
      if (event.kind !== 'permissions-accepted') return;
      tokens.clear();
      checksGranted();
    },
    ...(installationId !== undefined
      ? {
          heldPermissions: (repo: RepoRef) => heldPermissions(repo),
          installationSettingsPage: async (repo: RepoRef) =>
            installationSettingsPage(
              webBaseOf(opts.baseUrl ?? 'https://api.github.com'),
              repo.owner,
              (await ownerTypeOf(repo)) === 'Organization',
              installationId,
            ),
        }
      : {}),
    // A PR this call opened: the open's answer carried its feedback (pulls.ts `openWithCheck`).
    readPullFeedback: async (ref, given) =>
      given?.pull?.feedback && sameIssue(given.pull.ref, ref)
        ? given.pull.feedback
        : readPullFeedback(gh, ref, feedbackParts),
  };
  // Milestone snapshots and the repo config kept until a write or webhook changes them (kept-reads.ts).
  return opts.requestCache === false
    ? forge
    : withKeptReads(forge, opts.keptForMs === undefined ? {} : { freshMs: opts.keptForMs });
};
