// The planner's view of an App permission the installation lacks (plan/permission-block.ts): the
// permission, typed as the adapter found it, and the page where an admin accepts it, as the forge names
// it (GitHub: the installation's settings, under the owner's account). A page the forge cannot name is
// left out; the notice then says where to find it.
// A read refused this pass is seen by the load itself. A refused write (a merge, a PR, a comment) is an
// action's outcome: the pass keeps it on the run (`refusedWrite`, through the run writer) and each later
// load asks whether it still stands: it does until the credential the bot holds carries the permission
// (GitHub mints a new token once the old expires, or at once when it says new permissions were
// accepted). Where the forge cannot tell, the write is tried again after a token's lifetime.
import { isAppError } from '../errors.ts';
import { type AppPermission, missingPermissionOf } from '../forges/app-permission.ts';
import type { Forge, RepoRef } from '../forges/types.ts';
import type { MissingPermissionView } from '../plan/snapshot.ts';
import type { RunProgress } from '../store/run-store.ts';
import type { Clock, Records } from './ports.ts';
import { writeProgress } from './run-writer.ts';

export const missingPermissionViewOf = async (
  forge: Pick<Forge, 'installationSettingsPage'>,
  repo: RepoRef,
  permission: AppPermission,
): Promise<MissingPermissionView> => {
  const page = await forge.installationSettingsPage?.(repo).catch(() => undefined);
  return { permission, ...(page ? { page } : {}) };
};

/** How long a refused write stands where the forge cannot say what the bot holds: a GitHub token's life. */
export const refusalUnknownMs = 3_600_000;

const rank: Record<string, number> = { read: 1, write: 2, admin: 3 };

/** Whether `held` (the forge's words: read, write, admin) covers `p`. */
export const covers = (held: Readonly<Record<string, string>>, p: AppPermission): boolean =>
  (rank[held[p.name] ?? ''] ?? 0) >= rank[p.level]!;

/**
 * The kept refused write as the planner's view while it stands; undefined once the bot's credential
 * carries the permission (the block lifts and the write is tried again), or, where the forge cannot
 * tell, once a token's lifetime has passed since the refusal.
 */
export const refusedWriteViewOf = async (
  forge: Pick<Forge, 'installationSettingsPage' | 'heldPermissions'>,
  repo: RepoRef,
  kept: RunProgress['refusedWrite'],
  now: Date,
): Promise<MissingPermissionView | undefined> => {
  if (!kept) return undefined;
  const permission: AppPermission = kept.permission;
  if (forge.heldPermissions) {
    // An answer the forge could not give (the token could not be minted) leaves the refusal standing.
    const held = await forge.heldPermissions(repo).catch(() => undefined);
    if (held && covers(held, permission)) return undefined;
  } else if (now.getTime() - Date.parse(kept.since) >= refusalUnknownMs) return undefined;
  return missingPermissionViewOf(forge, repo, permission);
};

/**
 * Keeps an action's refusal for an App permission on the run (the next load blocks on it); any other
 * outcome leaves the run alone. Written only when it changed, through the run writer.
 */
export const keepRefusedWrite = async (deps: Records & Clock, runId: string, err: unknown): Promise<void> => {
  const permission = missingPermissionOf(err);
  if (!permission) return;
  // The repository the adapter named on the error (`owner/name`); anything else is left out.
  const named = isAppError(err) ? err.details.repo : undefined;
  const repo = typeof named === 'string' && /^[\w.-]+\/[\w.-]+$/.test(named) ? named : undefined;
  await writeProgress(deps.store, runId, (p) =>
    p.refusedWrite?.permission.name === permission.name &&
    p.refusedWrite.permission.level === permission.level &&
    p.refusedWrite.repo === repo
      ? undefined
      : { refusedWrite: { permission, since: deps.clock.now().toISOString(), ...(repo ? { repo } : {}) } },
  );
};
