// The planner's view of an App permission the installation lacks (plan/permission-block.ts): the
// permission, typed as the adapter found it, and the page where an admin accepts it, as the forge names
// it (GitHub: the installation's settings, under the owner's account). A page the forge cannot name is
// left out; the notice then says where to find it.
// A refused write the run kept (runs/missing-permission.ts) stands until the credential the bot
// holds carries the permission (GitHub mints a new token once the old expires, or at once when it says
// new permissions were accepted). Where the forge cannot tell, the write is tried again after a token's
// lifetime.
import type { MissingPermissionView } from '../plan/snapshot.ts';
import type { RunProgress } from '../store/run-store.ts';
import type { AppPermission } from './app-permission.ts';
import type { Forge, RepoRef } from './types.ts';

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
