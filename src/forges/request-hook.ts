// What both forge clients tell about each API request they make, for the forge metrics: the outcome
// class and, when the forge says it, the rate-limit requests left (`X-RateLimit-Remaining`).
export type ForgeRequestOutcome = 'ok' | '4xx' | '5xx' | 'network';

export interface ForgeRequestReport {
  outcome: ForgeRequestOutcome;
  remaining?: number | undefined;
  method?: string;
  status?: number | undefined;
  /** The answer's `x-ratelimit-*` headers (limit, remaining, reset, used, resource), when it sent them. */
  rateHeaders?: Record<string, string>;
  /** A 304 served from the conditional-request cache (GitHub does not count it against the rate limit). */
  notModified?: boolean;
  /** A GraphQL mutation (a write, though every GraphQL request is a POST). */
  mutation?: boolean;
  /** A rate-limit refusal: how long the forge asked to wait (seconds), and which limit when known. */
  retryAfter?: number;
  limit?: 'primary' | 'secondary';
}

export type ForgeRequestHook = (r: ForgeRequestReport) => void;

/** The `x-ratelimit-*` headers of an answer, lower-cased, as strings. */
export const rateHeadersOf = (
  headers: Record<string, string | number | undefined> | Headers | undefined,
): Record<string, string> => {
  const out: Record<string, string> = {};
  if (!headers) return out;
  const entries: [string, unknown][] =
    headers instanceof Headers ? [...headers.entries()] : Object.entries(headers);
  for (const [k, v] of entries)
    if (k.toLowerCase().startsWith('x-ratelimit-') && v !== undefined) out[k.toLowerCase()] = String(v);
  return out;
};

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
