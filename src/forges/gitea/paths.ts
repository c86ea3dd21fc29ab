// API paths and the access phrases used in error messages, shared by the Gitea adapter's modules.
import type { IssueRef, RepoRef } from '../types.ts';
import { formatRepo } from '../types.ts';

export const repoPath = (r: RepoRef): string =>
  `/repos/${encodeURIComponent(r.owner)}/${encodeURIComponent(r.name)}`;

export const issuePath = (ref: IssueRef): string => `${repoPath(ref.repo)}/issues/${ref.number}`;

/** For a 403: "the bot lacks write access to acme/app to ...". */
export const writeOn = (repo: RepoRef): string => `write access to ${formatRepo(repo)}`;
