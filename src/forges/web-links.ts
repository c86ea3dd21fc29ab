// Where a person opens an issue or a pull request of a run in the browser: github.com (or the GitHub
// Enterprise host) and the Gitea instance. The one place that knows each forge's web paths (GitHub
// `/pull/N`, Gitea `/pulls/N`), so the status pages link without asking which forge they show.
import type { ForgeKind } from './types.ts';

export interface RepoWebLinks {
  issue(number: number): string;
  pull(number: number): string;
}

/** The links of `owner/name` on a forge; undefined when that forge's web address is not known. */
export type ForgeWebLinks = (forge: ForgeKind, repo: string) => RepoWebLinks | undefined;

const repoPath = (repo: string): string | undefined => {
  const m = /^([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)$/.exec(repo);
  // `.` and `..` would climb out of the repository's path once the browser resolves the URL.
  if (!m || [m[1], m[2]].some((part) => part === '.' || part === '..')) return undefined;
  return `${encodeURIComponent(m[1]!)}/${encodeURIComponent(m[2]!)}`;
};

export const forgeWebLinks =
  (bases: { github?: string; gitea?: string }): ForgeWebLinks =>
  (forge, repo) => {
    const base = bases[forge]?.replace(/\/+$/, '');
    const path = repoPath(repo);
    if (!base || !path) return undefined;
    const pulls = forge === 'github' ? 'pull' : 'pulls';
    return {
      issue: (n) => `${base}/${path}/issues/${n}`,
      pull: (n) => `${base}/${path}/${pulls}/${n}`,
    };
  };
