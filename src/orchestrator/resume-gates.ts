// What `/blitz resume` clears on a run that stopped BLOCKED at a gate: the red build, smoke or ship
// that stopped it counts from nought again, so the run builds, smokes or ships afresh on the
// integration branch as it is now (a person fixed it, or the cause outside went away). Nothing else
// changes; a run blocked for another reason resumes as it was.
import type { RunProgress } from '../store/run-store.ts';

export const gatesAfterResume = (p: RunProgress): Partial<RunProgress> => ({
  ...(p.build?.status === 'failed' ? { build: { status: 'none', covers: [], failures: 0 } } : {}),
  ...(p.smoke === 'failed' ? { smoke: 'none', smokeGate: { failures: 0 } } : {}),
  ...(p.ship?.status === 'failed' ? { ship: undefined } : {}),
});
