// Where a repository is cloned from for workers and for the bot's own integration clone: the URL the
// deployment configured (a mirror, a proxy), else the forge's plain clone URL; and the run's integration
// branch in the runner's workspace, cloned from that same place.
import type { Forge, RepoRef } from '../forges/types.ts';
import type { IntegrationGit } from './integration-git.ts';
import type { RunnerPort } from './runner-port.ts';

/** The URL workers clone from, when the deployment configures one (absent: the forge's own). */
export interface CloneSource {
  cloneUrl?: (forge: Forge, repo: RepoRef) => Promise<string>;
}

/** What a clone in the runner's workspace needs: where to clone from, git's context, the workspace. */
export type WorkspacePorts = CloneSource & {
  runner: Pick<RunnerPort, 'gitContext'>;
  config: { runner: { workspace: string } };
};

/** The URL a worker clones from: the configured one, else the forge's plain clone URL. */
export const cloneUrlOf = async (deps: CloneSource, forge: Forge, repo: RepoRef): Promise<string> =>
  deps.cloneUrl ? deps.cloneUrl(forge, repo) : (await forge.cloneCredentials(repo)).url;

/** The run's integration branch in the runner's workspace, cloned from where workers clone. */
export const integrationGitOf = async (
  deps: WorkspacePorts,
  at: { forge: Forge; repo: RepoRef; run: { integrationBranch: string } },
): Promise<IntegrationGit> => ({
  workspace: deps.config.runner.workspace,
  repo: at.repo,
  cloneUrl: await cloneUrlOf(deps, at.forge, at.repo),
  branch: at.run.integrationBranch,
  ctx: await deps.runner.gitContext(at.repo),
});
