// Which forge errors are hard blockers (seed 000 §6, issue 18): the forge refused the bot's
// credentials (401) or its access (403 that is not a rate limit, which both adapters map to
// `rate_limited`). Retrying every tick changes nothing until a person fixes the app, the token or the
// permission; the run stops BLOCKED instead, says why once, and resumes when a pass gets through.
import { isAppError } from '../errors.ts';

/** The hard blocker an error names, in one sentence; undefined for any error a retry may cure. */
export const hardBlockerOf = (err: unknown): string | undefined => {
  if (isAppError(err, 'unauthorized')) return `the forge refused the bot's credentials: ${err.message}`;
  if (isAppError(err, 'forbidden')) return `the forge refused the bot access: ${err.message}`;
  return undefined;
};
