// A fleet PR a person merged (or closed) on the forge without `/merge`: a merge by hand is a person's
// word too, so it is recorded and the ticket closes on the next step; a PR closed unmerged is noted.
// Read once per reconcile (one PR read per open fleet PR).
import { formatRepo } from '../forges/types.ts';
import { ticketOf } from '../plan/fleet-progress.ts';
import { refOf } from '../plan/types.ts';
import type { Records } from '../runs/ports.ts';
import { writeOutcome } from '../runs/run-writer.ts';
import type { FleetCtx } from './fleet-context.ts';
import { updateTicket } from './fleet-state.ts';

/** True when something changed (the caller reads the run again). */
export const syncPulls = async (deps: Records, ctx: FleetCtx): Promise<boolean> => {
  let changed = false;
  for (const [key, row] of ctx.rows) {
    if (row.prNumber === undefined || row.mergedSha !== undefined) continue;
    const ref = refOf(key);
    const facts = ctx.repos.get(formatRepo(ref.repo).toLowerCase());
    if (!facts) continue;
    const pr = await facts.forge.getPullRequest({ repo: facts.repo, number: row.prNumber });
    if (pr.merged) {
      await writeOutcome(deps.store, ctx.run.id, row, row, {
        kind: 'merged',
        sha: pr.mergeCommitSha ?? pr.head.sha,
      });
      changed = true;
    } else if (pr.state === 'closed') {
      const note = 'the PR was closed without merging';
      if (ticketOf(ctx.fleet, key).note !== note) {
        ctx.run = await updateTicket(deps.store, ctx.run.id, key, () => ({ note }));
        changed = true;
      }
    }
  }
  return changed;
};
