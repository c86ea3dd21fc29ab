// Who may command the bot in one repository: the operator's policy (BLITZ_PERMISSION,
// BLITZ_ALLOWED_BOTS) combined with the repository's own `blitz.yml`. The operator sets the floor: a
// repository may ask for more permission than the operator does, never less; its allowed bots are
// added to the operator's. A file that does not parse stops every command, with the errors in words.
import type { AuthPolicy } from '../commands/authorize.ts';
import { formatConfigErrors, parseRepoConfig } from '../config/repo-config.ts';
import type { Forge, ForgeKind, RepoRef } from '../forges/types.ts';
import { permissionRank } from '../forges/types.ts';

/** Where each forge keeps the repository config, read from the default branch. */
export const repoConfigPath: Record<ForgeKind, string> = {
  github: '.github/blitz.yml',
  gitea: '.gitea/blitz.yml',
};

export type RepoPolicy = { ok: true; policy: AuthPolicy } | { ok: false; reply: string };

export type RepoPolicyLoader = (forge: Forge, repo: RepoRef, base: AuthPolicy) => Promise<RepoPolicy>;

export const loadRepoPolicy: RepoPolicyLoader = async (forge, repo, base) => {
  const path = repoConfigPath[forge.kind];
  const parsed = parseRepoConfig(await forge.getFile(repo, path));
  if (!parsed.ok) return { ok: false, reply: formatConfigErrors(parsed.errors, path) };
  const wanted = parsed.config.permission;
  return {
    ok: true,
    policy: {
      ...base,
      required: permissionRank[wanted] > permissionRank[base.required] ? wanted : base.required,
      allowedBots: [...new Set([...base.allowedBots, ...parsed.config.allowedBots])],
    },
  };
};
