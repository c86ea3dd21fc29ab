// The planner's view of an App permission a read of this pass was refused for (plan/permission-block.ts):
// the permission, typed as the adapter found it, and the page where an admin accepts it, as the forge
// names it (GitHub: the installation's settings, under the owner's account). A page the forge cannot
// name is left out; the notice then says where to find it.
import type { AppPermission } from '../forges/app-permission.ts';
import type { Forge, RepoRef } from '../forges/types.ts';
import type { MissingPermissionView } from '../plan/snapshot.ts';

export const missingPermissionViewOf = async (
  forge: Pick<Forge, 'installationSettingsPage'>,
  repo: RepoRef,
  permission: AppPermission,
): Promise<MissingPermissionView> => {
  const page = await forge.installationSettingsPage?.(repo).catch(() => undefined);
  return { permission, ...(page ? { page } : {}) };
};
