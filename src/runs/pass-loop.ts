// The one pass loop of every run kind (blitz, fleet, plan). A pass is load → one `nextActions` →
// perform each action in order → publish; passes repeat while one moved something the next can build
// on (a merge frees a dependent, a probe answered, a wave started). A run kind supplies only what
// differs, as a `PassKind`: its load, its perform, its publish and which actions advance. Every
// decision is the planner's (src/plan/); this loop reads, applies and shows.
import { nextActions } from '../plan/next-actions.ts';
import { type Action, type ActionType, type RunSnapshot, replanAfter } from '../plan/snapshot.ts';
import { isTerminalRunState, type RunState } from '../plan/states.ts';
import type { Log } from './ports.ts';

/** What the loop reads of a pass: the run as it now stands, and the planner's snapshot. */
export interface Pass {
  run: { id: string; state: RunState };
  snap: RunSnapshot;
}

export interface PassKind<Ctx extends Pass> {
  /** Reads one pass (the first is 0); undefined ends the loop: the run is gone, finished, or waits. */
  load(pass: number): Promise<Ctx | undefined>;
  /** Told the pass's actions before the first is performed (what a later one will do, e.g. a merge). */
  planned?(ctx: Ctx, actions: readonly Action[]): void;
  /** Applies one action; true when it moved the run on although its type is not `advancing`. */
  perform(ctx: Ctx, a: Action): Promise<unknown>;
  /** The actions that, performed, give the next pass something to build on. */
  advancing: ReadonlySet<ActionType>;
  /** Shows the run as the pass left it. */
  publish(ctx: Ctx, actions: readonly Action[]): Promise<void>;
  /**
   * Told how each action ended (`err` when it threw), so a kind can keep why an issue waits on its row
   * (wait-reason.ts). A failure here is logged and changes nothing else.
   */
  ended?(ctx: Ctx, a: Action, err?: unknown): Promise<void>;
}

/** At most this many passes per call: the next reconcile (an event, the cron) goes on from there. */
export const maxPasses = 12;

/**
 * Performs the actions in order; true when one moved the run on. A failed action is logged and the
 * rest go on (the next pass plans it again). After an action in `replanAfter` the pass ends: the rest
 * was planned without its result.
 */
const performAll = async <Ctx extends Pass>(
  deps: Log,
  kind: PassKind<Ctx>,
  ctx: Ctx,
  actions: readonly Action[],
): Promise<boolean> => {
  let moved = false;
  const ended = async (a: Action, err?: unknown): Promise<void> => {
    await kind
      .ended?.(ctx, a, err)
      .catch((e: unknown) =>
        deps.logger.warn({ runId: ctx.run.id, action: a.type, err: e }, 'why the issue waits was not kept'),
      );
  };
  for (const a of actions) {
    try {
      if ((await kind.perform(ctx, a)) === true || kind.advancing.has(a.type)) moved = true;
    } catch (err) {
      deps.logger.error(
        { runId: ctx.run.id, action: a.type, err },
        'action failed; the next reconcile retries it',
      );
      await ended(a, err);
      continue;
    }
    await ended(a);
    if (replanAfter.has(a.type)) return true;
  }
  return moved;
};

/** The loop over a planner: `runPasses` is it over `nextActions` (a unit test gives it its own). */
export const passLoop =
  (decide: (state: RunState, snap: RunSnapshot) => Action[]) =>
  async <Ctx extends Pass>(deps: Log, kind: PassKind<Ctx>): Promise<void> => {
    for (let pass = 0; pass < maxPasses; pass++) {
      const ctx = await kind.load(pass);
      if (!ctx) return;
      const actions = decide(ctx.run.state, ctx.snap);
      kind.planned?.(ctx, actions);
      const moved = await performAll(deps, kind, ctx, actions);
      await kind.publish(ctx, actions);
      // A stop ends the call once its pass is shown (the notices planned after it were performed).
      if (!moved || actions.some((a) => a.type === 'stop') || isTerminalRunState(ctx.run.state)) return;
    }
    deps.logger.info({ maxPasses }, 'pass limit reached; the next reconcile goes on');
  };

export const runPasses = passLoop(nextActions);
