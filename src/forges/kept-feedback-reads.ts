// What the PR feedback loop reads of a worker PR, kept between reconcile passes (beside kept-reads.ts,
// which composes it into both adapters). Every pass gates every open worker PR; without these, a PR
// whose head's CI has finished would have its checks and annotations read again on every pass.
//
// - A head's checks are kept once they are final: every check but the bot's own has completed. Until
//   then they are read afresh (CI is running, or has not started). A kept list goes when a webhook says
//   a check of that head (or, unsure which, of that repository) changed (`checks-changed`: GitHub's
//   `check_run`, `check_suite` and `status`), or with age: Gitea sends no status webhook, so a re-run
//   there is seen at most `freshMs` later.
// - A PR's reviews and review comments are not kept: a writer's change request must stop a merge at
//   once, whatever order the review and `/merge` webhooks arrive in.
import type { CheckInfo, Forge, ObservedEvent, RepoRef } from './types.ts';

/** The bot's own check (GitHub check run, Gitea status context): it never makes a list unfinished. */
const ownCheck = 'blitz';

const repoKey = (repo: RepoRef) => `${repo.owner}/${repo.name}`.toLowerCase();

const bare = (login: string) => login.toLowerCase().replace(/\[bot\]$/, '');

/** Every check but the bot's own has completed, and there is one. */
const final = (checks: readonly CheckInfo[], botLogin: string): boolean => {
  const others = checks.filter(
    (c) => !(c.name.toLowerCase() === ownCheck && bare(c.reporter ?? '') === bare(botLogin)),
  );
  return others.length > 0 && others.every((c) => c.status === 'completed');
};

export interface KeptFeedbackOptions {
  freshMs: number;
  now: () => number;
}

export const withKeptFeedbackReads = (
  forge: Forge,
  opts: KeptFeedbackOptions,
): Pick<Forge, 'listChecks'> & { observe(event: ObservedEvent): void } => {
  const checks = new Map<string, { at: number; repo: string; sha: string; value: CheckInfo[] }>();
  const fresh = (at: number) => opts.now() - at < opts.freshMs;
  const { listChecks } = forge;
  return {
    ...(listChecks
      ? {
          async listChecks(repo: RepoRef, sha: string) {
            const key = `${repoKey(repo)}@${sha}`;
            const hit = checks.get(key);
            if (hit && fresh(hit.at)) return structuredClone(hit.value);
            const at = opts.now();
            const value = await listChecks(repo, sha);
            if (final(value, forge.botLogin))
              checks.set(key, { at, repo: repoKey(repo), sha, value: structuredClone(value) });
            else checks.delete(key);
            return value;
          },
        }
      : {}),
    observe(event) {
      if (event.kind !== 'checks-changed') return;
      const repo = repoKey(event.repo);
      for (const [k, v] of checks)
        if (v.repo === repo && (event.headSha === undefined || v.sha === event.headSha)) checks.delete(k);
    },
  };
};
