// An App permission the installation lacks (plan/permission-block.ts decides; forges/permission-view.ts
// makes the planner's view of it). A read refused this pass is seen by the load itself. A refused write
// (a merge, a PR, a comment) is an action's outcome: the pass keeps it on the run (`refusedWrite`,
// through the run writer) and each later load asks whether it still stands.
import { isAppError } from '../errors.ts';
import { missingPermissionOf } from '../forges/app-permission.ts';
import type { Clock, Records } from './ports.ts';
import { writeProgress } from './run-writer.ts';

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
