// Gitea sends no milestone webhook, so a `[blitz]` marker in a milestone's title or description is
// found by looking: every repository the bot's account can reach, its open milestones with open
// issues. A marked milestone without a live run becomes an intent standing for `/blitz <milestone>`,
// sent by the bot itself (no permission lookup: whoever could edit the milestone already had write).
// The intent is keyed by repository and milestone, so a marker starts a run once, not every tick (nor
// again after a run that already covered it when the marker was first seen).
import type { Forge, Milestone } from '../forges/types.ts';
import { formatRepo } from '../forges/types.ts';
import type { Logger } from '../observability/logger.ts';
import type { RunStore } from '../store/run-store.ts';
import type { Store } from '../store/types.ts';

const marker = /\[blitz\]/i;

export const hasBlitzMarker = (m: Pick<Milestone, 'title' | 'description'>): boolean =>
  marker.test(m.title) || marker.test(m.description);

/** The delivery id the marker's intent is stored under: one per repository and milestone, ever. */
export const markerDeliveryId = (repo: string, milestone: number): string =>
  `blitz-marker:${repo.toLowerCase()}#${milestone}`;

export interface MarkerScanDeps {
  forge: Forge;
  store: Pick<Store, 'addIntent'>;
  runs: Pick<RunStore, 'liveRun' | 'claimIntent'>;
  botLogin: string;
  logger: Logger;
}

/** One pass over the reachable repositories; returns the intents it queued. */
export const scanBlitzMarkers = async (deps: MarkerScanDeps): Promise<number> => {
  if (!deps.forge.listRepositories) return 0;
  let queued = 0;
  for (const repo of await deps.forge.listRepositories()) {
    const full = formatRepo(repo);
    let milestones: Milestone[];
    try {
      milestones = await deps.forge.listOpenMilestones(repo);
    } catch (err) {
      // One unreadable repository must not hide the markers of the others.
      deps.logger.warn({ repo: full, err }, 'could not list milestones while looking for [blitz] markers');
      continue;
    }
    for (const m of milestones) {
      if (!hasBlitzMarker(m) || m.openIssues === 0) continue;
      const live = await deps.runs.liveRun(deps.forge.kind, full, m.number);
      const { created, intent } = await deps.store.addIntent({
        forge: deps.forge.kind,
        repo: full,
        command: { name: 'blitz', milestone: String(m.number), dryRun: false },
        sender: deps.botLogin,
        deliveryId: markerDeliveryId(full, m.number),
        seq: 0,
      });
      if (!created) continue;
      // A run already covers the milestone (started by a command): the marker counts as taken, so
      // it does not start another run when that one ends.
      if (live) {
        await deps.runs.claimIntent(intent.id, 'answered');
        continue;
      }
      queued += 1;
      deps.logger.info({ repo: full, milestone: m.title }, '[blitz] milestone marker found: run queued');
    }
  }
  return queued;
};
