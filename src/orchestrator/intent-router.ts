// Which handler an intent goes to: a blitz start or its run commands first (start-run.ts), then
// `/blitz retry | skip | unhold #n`, `/blitz review`, `/blitz tell`, and the registered run kinds'
// commands last (`/plan-blitz`, the fleet's). Queued intents are drained one after another; each is marked taken once handled.
import { commandSchema } from '../commands/schema.ts';
import { renderDashboard } from '../dashboard/render.ts';
import { onAttemptHost } from '../queue/dispatcher.ts';
import type { Announcer, Clock, Forges, Log, Records, Settings, Workers } from '../runs/ports.ts';
import type { RunRecord } from '../store/run-store.ts';
import type { Intent } from '../store/types.ts';
import { createReviewSteering } from './review-steer.ts';
import type { RunDashboards } from './run-dashboards.ts';
import type { RunKind } from './run-kind.ts';
import { type CommandHooks, createIntentHandler, type IntentOutcome } from './start-run.ts';
import { createSteerHandler } from './steer-run.ts';
import { handleTell } from './tell.ts';

export interface IntentRouter {
  /** Hands one intent to its handler; `not_mine` when none takes it. */
  handle(intent: Intent): Promise<IntentOutcome>;
  /** Takes the queued intents, one after another, after the drain before this one. */
  drain(): Promise<void>;
  /** Resolves when the drain in flight (if any) is over. */
  settled(): Promise<void>;
}

/** The first dashboard of a new blitz: nothing planned yet. */
const firstBlitzDashboard = (run: RunRecord): string =>
  renderDashboard({
    runId: run.id,
    milestone: run.milestoneTitle,
    runState: run.state,
    wave: 1,
    integrationBranch: run.integrationBranch,
    issues: [],
    awaitingApproval: [],
    blockers: [],
    notifyFailures: [],
  });

export const createIntentRouter = (
  deps: Records & Workers & Forges & Announcer & Clock & Log & Settings,
  hooks: CommandHooks & { dashboards: RunDashboards; runKinds: readonly RunKind[] },
): IntentRouter => {
  const { reconcileSoon, serialized, dashboards, runKinds } = hooks;
  const commandHooks = { reconcileSoon, serialized };
  const handleBlitzIntent = createIntentHandler(deps, {
    ...commandHooks,
    postDashboard: dashboards.first(firstBlitzDashboard),
    async cancelWorkers(run: RunRecord) {
      const open = (await deps.ledger.listByRun(run.id)).filter((a) => a.outcome === undefined);
      // A remote runner's attempt is cancelled on its host, through that host's queue.
      for (const a of open) await onAttemptHost(deps, { kind: 'cancel', attemptId: a.id }, [a]);
      return open.length;
    },
  });
  const handleReviewSteer = createReviewSteering(deps, commandHooks);
  const handleSteer = createSteerHandler(deps, commandHooks);

  const handle = async (intent: Intent): Promise<IntentOutcome> => {
    const outcome = await handleBlitzIntent(intent);
    if (outcome !== 'not_mine') return outcome;
    const cmd = commandSchema.safeParse(intent.command);
    // `/blitz retry | skip | unhold #n` (writers only, checked at intake) steer one issue of the live run.
    if (cmd.success && cmd.data.name === 'blitz-issue') return handleSteer(intent, cmd.data);
    if (cmd.success && cmd.data.name === 'blitz-review') return handleReviewSteer(intent, cmd.data);
    // `/blitz tell #n`: kept for the worker's next resume by the PR feedback loop.
    if (cmd.success && cmd.data.name === 'blitz-tell')
      return handleTell(deps, { reconcileSoon }, intent, cmd.data);
    // The kinds' commands: /plan-blitz, /ticket-fleet, /merge, /review.
    for (const kind of runKinds) {
      const outcome = await kind.handleIntent(intent);
      if (outcome !== 'not_mine') return outcome;
    }
    return 'not_mine';
  };

  // Drains run one after another. The chain never holds a rejection: a drain that failed (the store
  // went away under listQueuedIntents) fails its own caller only, and the next drain reads the store
  // again instead of handing every later tick the same stale error.
  let busy: Promise<void> = Promise.resolve();
  const drain = (): Promise<void> => {
    const next = busy.then(async () => {
      for (const intent of await deps.store.listQueuedIntents()) {
        try {
          const outcome = await handle(intent);
          if (outcome !== 'not_mine') await deps.store.claimIntent(intent.id, outcome);
        } catch (err) {
          deps.logger.error({ intent: intent.id, err }, 'intent failed; it stays queued for the next tick');
        }
      }
    });
    busy = next.catch(() => {});
    return next;
  };
  return { handle, drain, settled: () => busy };
};
