// The fake GitHub's App endpoints a bot calls with its JWT (not an installation token): the App
// itself (its slug: the bot's login is `<slug>[bot]`), its installations, and which installation covers
// a repository. One installation covers every repository of the World, on the account of its first
// repository's owner.
import type { World, WorldRepo } from '../world.ts';
import { userJson } from './serialize.ts';

export const repoInstallationJson = (
  world: World,
  repo: WorldRepo,
  urls: { web: string; api: string },
  app: { appId: number; installationId: number },
  /** What the installation holds now (app-permissions.ts); the bot's full set unless a test changed it. */
  permissions: Record<string, string> = {
    contents: 'write',
    issues: 'write',
    pull_requests: 'write',
    metadata: 'read',
  },
): Record<string, unknown> => ({
  id: app.installationId,
  account: userJson(world, repo.owner, urls),
  repository_selection: 'all',
  access_tokens_url: `${urls.api}/app/installations/${app.installationId}/access_tokens`,
  repositories_url: `${urls.api}/installation/repositories`,
  html_url: `${urls.web}/settings/installations/${app.installationId}`,
  app_id: app.appId,
  target_id: 1,
  target_type: 'Organization',
  permissions,
  events: ['issue_comment', 'issues', 'milestone', 'pull_request'],
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
  single_file_name: null,
  app_slug: 'blitz-bot',
  suspended_by: null,
  suspended_at: null,
});

/** `GET /app`: the authenticated App; its slug is the World bot's login without `[bot]`. */
export const appJson = (
  world: World,
  owner: string,
  urls: { web: string; api: string },
  app: { appId: number },
): Record<string, unknown> => {
  const slug = world.botLogin.replace(/\[bot\]$/i, '');
  return {
    id: app.appId,
    slug,
    node_id: `A_${app.appId}`,
    client_id: `Iv1.${app.appId}`,
    owner: userJson(world, owner, urls),
    name: slug,
    description: 'Drives coding agents over a milestone',
    external_url: urls.web,
    html_url: `${urls.web}/apps/${slug}`,
    created_at: '2026-01-01T00:00:00Z',
    updated_at: '2026-01-01T00:00:00Z',
    permissions: { contents: 'write', issues: 'write', pull_requests: 'write', metadata: 'read' },
    events: ['issue_comment', 'issues', 'milestone', 'pull_request'],
    installations_count: 1,
  };
};
