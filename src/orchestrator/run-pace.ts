// How a run of any kind (blitz, fleet, plan) obeys the forge's pace (forges/rate-budget.ts): the session
// limit it plans with, whether it may start a worker at all this pass, and the reason its dashboard shows.
// One place, so the three run kinds slow down the same way and say so in the same words. Pure.
import { type Pace, pacedSessions } from '../forges/rate-budget.ts';

/**
 * The session limit under a pace: the same at full speed, fewer near a limit. A spent budget keeps the
 * limit and holds dispatches instead (`dispatchHeld`), so a planner does not read a limit of 0 as a
 * park that waits for a person.
 */
export const pacedLimit = (limit: number, pace: Pace | undefined): number =>
  pace && pace.sessionFactor > 0 ? Math.min(limit, pacedSessions(limit, pace)) : limit;

/** True when the pace allows no new worker this pass (the budget is nearly spent until its reset). */
export const dispatchHeld = (pace: Pace | undefined): boolean => pace?.sessionFactor === 0;

/** The reason a run goes slower than it could, for its dashboard; undefined at full speed. */
export const paceReason = (pace: Pace | undefined): string | undefined => pace?.reason || undefined;
