// The dependency handoff (seed 000: a dependent builds on what its blockers did): the job names each
// merged blocker and the commit it merged as; the runner adds what that merge changed, read with its
// own git from its own clone (never a worker's repository), capped so a huge merge cannot crowd the
// prompt. A sha the clone does not hold leaves the entry without files rather than failing the start.
import { type GitContext, gitTry } from './git.ts';
import type { PromptHandoff } from './prompt.ts';
import type { Handoff } from './types.ts';

const SHA = /^[0-9a-f]{7,64}$/;

/** At most this many files per blocker, then git's own "N files changed" line. */
export const HANDOFF_MAX_FILES = 20;

const changedFiles = (repoDir: string, sha: string, ctx: GitContext): Promise<string | undefined> =>
  gitTry(
    [
      'diff',
      '--no-ext-diff',
      '--no-color',
      `--stat=120,80`,
      `--stat-count=${HANDOFF_MAX_FILES}`,
      `${sha}^1`,
      sha,
      '--',
    ],
    repoDir,
    ctx,
  ).then((out) => out?.replace(/\s+$/, '') || undefined);

export const withChangedFiles = async (
  handoff: readonly Handoff[] | undefined,
  repoDir: string,
  ctx: GitContext,
): Promise<PromptHandoff[] | undefined> => {
  if (!handoff?.length) return undefined;
  return Promise.all(
    handoff.map(async (h) => {
      // Only a value shaped like a sha reaches git's argv (never an option such as `--output=…`).
      const sha = h.mergedSha && SHA.test(h.mergedSha) ? h.mergedSha : undefined;
      const files = sha ? await changedFiles(repoDir, sha, ctx) : undefined;
      return files ? { ...h, files } : { ...h };
    }),
  );
};
