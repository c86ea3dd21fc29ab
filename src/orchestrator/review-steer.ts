// `/blitz review` and `/blitz accept-review` (writers only, stored as intents): decideSteer says what
// each does given the run's latest integration review, and this applies it between reconcile passes.
// `review` asks for the review again on the integration branch as it is now; `accept-review` records
// who accepted an unclear one, so readiness goes on. Either takes a run out of `review_unclear`.
import type { Command } from '../commands/schema.ts';
import { reviewSteerPatch } from '../plan/run-patches.ts';
import { decideSteer, type ReviewVerdict, type SteerFacts } from '../plan/steer.ts';
import type { Clock, Forges, Log, Records } from '../runs/ports.ts';
import { writeRun } from '../runs/run-writer.ts';
import type { RunProgress, RunRecord } from '../store/run-store.ts';
import type { Intent } from '../store/types.ts';
import { type CommandHooks, type IntentOutcome, placeOf, runOfCommand } from './start-run.ts';

/**
 * The latest review as decideSteer reads it: a review that filed nothing new is unclear whatever it
 * called itself (no reviewer answered, or "minor"/"blocking" with nothing to work on).
 */
export const reviewVerdictOf = (p: RunProgress): ReviewVerdict | undefined => {
  const r = p.integrationReview;
  if (!r) return undefined;
  if (r.verdict === 'clean') return 'clean';
  if ((r.verdict === 'minor' || r.verdict === 'blocking') && r.filed > 0) return r.verdict;
  return 'unclear';
};

const steerFacts = (run: RunRecord): SteerFacts => {
  const verdict = reviewVerdictOf(run.progress);
  return { runState: run.state, ...(verdict ? { review: { verdict } } : {}) };
};

export const createReviewSteering = (deps: Records & Forges & Clock & Log, hooks: CommandHooks) => {
  return async (intent: Intent, cmd: Extract<Command, { name: 'blitz-review' }>): Promise<IntentOutcome> => {
    const { answer } = await placeOf(deps, intent);
    // The integration review belongs to blitz runs: a plan run or a fleet has none.
    const { run, runs } = await runOfCommand(deps, intent, ['blitz']);
    if (!run) {
      await answer(
        runs.length === 0
          ? 'No blitz is running on this repository, so there is no integration review to steer.'
          : 'Several blitzes are running here; use the command on the issue that carries the one you mean.',
      );
      return 'answered';
    }
    const decision = await hooks.serialized(run.id, async () => {
      const fresh = (await deps.store.getRun(run.id)) ?? run;
      const d = decideSteer({ name: 'blitz-review', action: cmd.action }, steerFacts(fresh));
      if (!d.ok) return d;
      const mark = { by: intent.sender, at: deps.clock.now().toISOString() };
      const effect = d.effect.type === 'accept_review' ? 'accept_review' : 'rerun_review';
      await writeRun(deps.store, run.id, (now) => reviewSteerPatch(now, effect, mark));
      return d;
    });
    deps.logger.info(
      { runId: run.id, action: cmd.action, sender: intent.sender, ok: decision.ok },
      'integration review steered',
    );
    await answer(decision.reply);
    if (decision.ok) hooks.reconcileSoon(run.id);
    return decision.ok ? 'answered' : 'refused';
  };
};
