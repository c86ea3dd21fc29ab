// What both forge clients tell about each API request they make, for the forge metrics: the outcome
// class and, when the forge says it, the rate-limit requests left (`X-RateLimit-Remaining`).
export type ForgeRequestOutcome = 'ok' | '4xx' | '5xx' | 'network';

export type ForgeRequestHook = (r: { outcome: ForgeRequestOutcome; remaining?: number | undefined }) => void;

export const outcomeOfStatus = (status: number | undefined): ForgeRequestOutcome =>
  status === undefined || status === 0 ? 'network' : status >= 500 ? '5xx' : status >= 400 ? '4xx' : 'ok';

/** The header's number, or undefined when absent or not a number. */
export const remainingOf = (value: string | number | null | undefined): number | undefined => {
  if (value === null || value === undefined || value === '') return undefined;
  const n = Number(value);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
};

/** A hook that never throws into the request it observes. */
export const safeHook =
  (hook: ForgeRequestHook | undefined): ForgeRequestHook =>
  (r) => {
    try {
      hook?.(r);
    } catch {
      // Metrics must never fail a forge call.
    }
  };
