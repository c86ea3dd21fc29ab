// Git credentials for the runner. The runner asks by repository only; the live run of that
// repository says which forge (and GitHub installation) serves it. With one forge configured, that
// forge; with two and no live run, none (a clone without credentials fails in words, not silently).
import type { ForgeKind, RepoRef } from '../forges/types.ts';
import type { ResolveForge } from '../intake/forge-resolver.ts';
import { fleetTouchesRepo } from '../plan/fleet-progress.ts';
import type { CredentialsProvider } from '../runner/git.ts';
import type { RunStore } from '../store/run-store.ts';

export const runnerCredentials = (deps: {
  runs: Pick<RunStore, 'listLiveRunHeads'>;
  forges: ResolveForge;
  configured: readonly ForgeKind[];
}): CredentialsProvider => {
  return async (repo: RepoRef) => {
    const full = `${repo.owner}/${repo.name}`.toLowerCase();
    // Heads only: a run's progress is not read (this is asked for every git context of the runner).
    const live = (await deps.runs.listLiveRunHeads()).find(
      (r) => r.repo.toLowerCase() === full || fleetTouchesRepo(r, full),
    );
    const kind = live?.forge ?? (deps.configured.length === 1 ? deps.configured[0] : undefined);
    if (!kind) return undefined;
    const forge = await deps.forges({
      forge: kind,
      repo,
      ...(live?.installationId ? { installationId: live.installationId } : {}),
    });
    const c = await forge.cloneCredentials(repo);
    return { username: c.username, token: c.password };
  };
};
