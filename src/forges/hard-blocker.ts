// Which forge errors are hard blockers (seed 000 §6, issue 18): the forge refused the bot's
// credentials (401) or its access (403 that is not a rate limit, which both adapters map to
// `rate_limited`). Retrying every tick changes nothing until a person fixes the app, the token or the
// permission; the run stops BLOCKED instead, says why once, and resumes when a pass gets through.
import { isAppError } from '../errors.ts';

/** A forge's refusal of the bot: which one (typed, what decides) and the forge's own words. */
export interface ForgeRefusal {
  refusal: 'credentials' | 'access';
  detail: string;
}

/** The hard blocker an error is; undefined for any error a retry may cure. */
export const forgeRefusalOf = (err: unknown): ForgeRefusal | undefined => {
  if (isAppError(err, 'unauthorized')) return { refusal: 'credentials', detail: err.message };
  if (isAppError(err, 'forbidden')) return { refusal: 'access', detail: err.message };
  return undefined;
};
