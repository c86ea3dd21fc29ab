// GitHub's `installation.new_permissions_accepted` naming no repository (issue 37): an owner accepted
// the App's new permissions on the whole installation. Runs keep no installation id (the forge resolver
// finds it by repository, and the runs' column is never written), so the installation's account stands
// for it: on GitHub an App has one installation per account, so the account's repositories are exactly
// the installation's. Of its live runs, those that wait on a permission look again: BLOCKED on a missing
// one, or reporting as commit statuses for lack of one. Any other run has nothing to gain from the grant
// and is not reconciled for it. Each run's forge drops its installation token first, so the pass reads
// and writes with a token that carries the new permissions.

import { repoRefOf } from '../forges/types.ts';
import type { ForgeEvent } from '../intake/events.ts';
import { forgeOfRun } from '../runs/context.ts';
import type { Forges, Log, Records } from '../runs/ports.ts';
import type { RunRecord } from '../store/run-store.ts';

type InstallationAccepted = Extract<ForgeEvent, { kind: 'installation-permissions-accepted' }>;

/** Whether a run waits on an App permission: blocked on one, or its reports go another way for lack of one. */
export const waitsOnPermission = (run: RunRecord): boolean =>
  (run.state === 'blocked' && run.progress.hardBlocker?.cause?.kind === 'missing_permission') ||
  run.progress.refusedWrite !== undefined ||
  run.progress.reportedInstead !== undefined;

/** The live runs of the installation's account that wait on a permission look again, with a new token. */
export const wakeInstallation = async (
  deps: Records & Forges & Log,
  event: InstallationAccepted,
  reconcile: (runId: string) => Promise<void>,
): Promise<void> => {
  const account = event.account.toLowerCase();
  const runs = (await deps.store.listLiveRuns()).filter(
    (r) => r.forge === 'github' && r.repo.split('/')[0]?.toLowerCase() === account && waitsOnPermission(r),
  );
  for (const r of runs) {
    const repo = repoRefOf(r.repo);
    await forgeOfRun(deps, r, repo).then(
      (forge) => forge.observeEvent?.({ kind: 'permissions-accepted', repo }),
      (err: unknown) =>
        deps.logger.debug({ err, runId: r.id }, 'no forge for the run; its token ages out instead'),
    );
  }
  deps.logger.info(
    { installationId: event.installationId, account: event.account, runs: runs.length },
    'new permissions accepted; the runs that wait on one look again',
  );
  await Promise.all(runs.map((r) => reconcile(r.id)));
};
