// Where a forge keeps the repo's blitz.yml, and reading it from the default branch only (a branch
// anyone can push to must not steer the bot). The path is a map by forge kind: the one place that
// knows it, so nothing else asks which forge it talks to.
import { parseRepoConfig, type RepoConfig, type RepoConfigResult } from '../config/repo-config.ts';
import type { Forge, ForgeKind, RepoRef } from '../forges/types.ts';

export const repoConfigPath: Record<ForgeKind, string> = {
  github: '.github/blitz.yml',
  gitea: '.gitea/blitz.yml',
};

/** The repository's own build and smoke commands: a worker may run them (claude's allowlist, jobEntry). */
export const repoCommandsOf = (cfg: Pick<RepoConfig, 'build' | 'smoke'>): { repoCommands?: string[][] } => {
  const commands = [cfg.build, cfg.smoke].filter((c): c is string[] => c !== undefined && c.length > 0);
  return commands.length > 0 ? { repoCommands: commands } : {};
};

export const loadRepoConfig = async (
  forge: Forge,
  repo: RepoRef,
): Promise<{ path: string; defaultBranch: string; result: RepoConfigResult }> => {
  const path = repoConfigPath[forge.kind];
  const defaultBranch = await forge.getDefaultBranch(repo);
  const text = await forge.getFile(repo, path, defaultBranch);
  return { path, defaultBranch, result: parseRepoConfig(text) };
};
