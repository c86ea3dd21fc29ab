// Who may command the bot in one repository: the operator's policy (BLITZ_PERMISSION,
// BLITZ_ALLOWED_BOTS) combined with the repository's own `blitz.yml`. The operator sets the floor: a
// repository may ask for more permission than the operator does, never less; its allowed bots are
// added to the operator's. A file that does not parse stops every command, with the errors in words.
import { createHash } from 'node:crypto';
import type { AuthPolicy } from '../commands/authorize.ts';
import { formatConfigErrors, parseRepoConfig } from '../config/repo-config.ts';
import type { Forge, ForgeKind, RepoRef } from '../forges/types.ts';
import { type Permission, permissionRank } from '../forges/types.ts';

/** Where each forge keeps the repository config, read from the default branch. */
export const repoConfigPath: Record<ForgeKind, string> = {
  github: '.github/blitz.yml',
  gitea: '.gitea/blitz.yml',
};

export type RepoPolicy = { ok: true; policy: AuthPolicy } | { ok: false; reply: string };

export type RepoPolicyLoader = (forge: Forge, repo: RepoRef, base: AuthPolicy) => Promise<RepoPolicy>;

/** What a repository's file says about commands: who may give them, or why none may. */
type FileSays = { ok: true; permission: Permission; allowedBots: string[] } | { ok: false; reply: string };

/**
 * What each recent file text said: a repository's file rarely changes between two deliveries, and
 * parsing the YAML and its schema costs more than the rest of a command's processing. A short file is
 * its own key (a map lookup hashes it faster than SHA-256 does); a long one is keyed by its hash.
 */
const recent = new Map<string, FileSays>();
const MAX_RECENT = 256;
const KEY_AS_TEXT_BELOW = 4096;

const keyOf = (text: string | undefined, path: string): string => {
  if (text === undefined) return `${path}\u0000-`;
  if (text.length < KEY_AS_TEXT_BELOW) return `${path}\u0000+${text}`;
  return `${path}\u0000#${createHash('sha256').update(text).digest('base64')}`;
};

const fileSays = (text: string | undefined, path: string): FileSays => {
  const key = keyOf(text, path);
  const known = recent.get(key);
  if (known) return known;
  const parsed = parseRepoConfig(text);
  const says: FileSays = parsed.ok
    ? { ok: true, permission: parsed.config.permission, allowedBots: parsed.config.allowedBots }
    : { ok: false, reply: formatConfigErrors(parsed.errors, path) };
  if (recent.size >= MAX_RECENT) recent.delete(recent.keys().next().value!);
  recent.set(key, says);
  return says;
};

export const loadRepoPolicy: RepoPolicyLoader = async (forge, repo, base) => {
  const path = repoConfigPath[forge.kind];
  const says = fileSays(await forge.getFile(repo, path), path);
  if (!says.ok) return says;
  return {
    ok: true,
    policy: {
      ...base,
      required:
        permissionRank[says.permission] > permissionRank[base.required] ? says.permission : base.required,
      allowedBots: [...new Set([...base.allowedBots, ...says.allowedBots])],
    },
  };
};
