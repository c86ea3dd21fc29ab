// One request (a JSON POST, Matrix's PUT, ntfy's text POST) with a per-attempt timeout and a bounded
// retry, shared by the notifiers. Failures come back as values; the error text names the target by
// origin only, so neither a bearer token nor a secret webhook path can reach a log, a comment or the
// dashboard. Redirects are refused: a notify target that moves is an error, not a new destination.

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface PostOptions {
  fetch?: FetchLike;
  /** Per attempt; default 10 s. */
  timeoutMs?: number;
  /** Total attempts, at least 1; default 3. */
  attempts?: number;
  /** Wait before attempt k (1-based retry index) is `backoffMs * 2^(k-1)`; default 1 s. */
  backoffMs?: number;
  /** Injected so that tests do not sleep. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** The per-attempt timeout's signal (default `AbortSignal.timeout`); injected so tests control time. */
  timeout?: (ms: number) => AbortSignal;
  /** Cancels the whole post, retries included. */
  signal?: AbortSignal;
}

export type PostResult =
  | { ok: true; attempts: number; status: number }
  | { ok: false; attempts: number; error: string };

/** Waits `ms`, or less when the signal aborts; never rejects. */
export const abortableSleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

/** `https://host:port` of a URL, or a fixed word when it does not parse: never its path or query. */
export const originOf = (url: string): string => {
  try {
    return new URL(url).origin;
  } catch {
    return '(invalid url)';
  }
};

// Only the errno code (ECONNREFUSED…) is kept: a message could quote the URL.
const errnoSuffix = (err: unknown): string => {
  const cause = err instanceof Error ? (err.cause as { code?: unknown } | undefined) : undefined;
  return typeof cause?.code === 'string' && /^[A-Z_]+$/.test(cause.code) ? ` (${cause.code})` : '';
};

// 408 and 429 are the only 4xx worth a second try; any other 4xx will answer the same way again.
const retryable = (status: number): boolean => status >= 500 || status === 408 || status === 429;

/** Seconds a 429 or 503 asks to wait (`Retry-After: 5`), within reason; else undefined. */
const retryAfterMs = (res: Response): number | undefined => {
  const value = res.headers.get('retry-after');
  if (value === null || !/^\d{1,3}$/.test(value.trim())) return undefined;
  const seconds = Number(value.trim());
  return seconds <= 60 ? seconds * 1000 : undefined;
};

export interface OutgoingRequest {
  method: 'POST' | 'PUT';
  headers: Record<string, string>;
  body: string;
}

export const postJson = (
  url: string,
  body: unknown,
  headers: Record<string, string>,
  opts: PostOptions = {},
): Promise<PostResult> =>
  sendRequest(
    url,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    },
    opts,
  );

export const sendRequest = async (
  url: string,
  request: OutgoingRequest,
  opts: PostOptions = {},
): Promise<PostResult> => {
  const doFetch = opts.fetch ?? fetch;
  const attempts = Math.max(1, Math.floor(opts.attempts ?? 3));
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const backoffMs = opts.backoffMs ?? 1_000;
  const sleep = opts.sleep ?? abortableSleep;
  const timeout = opts.timeout ?? AbortSignal.timeout;
  const target = originOf(url);
  let lastError = 'not attempted';
  for (let i = 1; i <= attempts; i++) {
    let waitMs: number | undefined;
    if (opts.signal?.aborted)
      return { ok: false, attempts: i - 1, error: `cancelled before reaching ${target}` };
    const perAttempt = timeout(timeoutMs);
    const signal = opts.signal ? AbortSignal.any([opts.signal, perAttempt]) : perAttempt;
    try {
      const res = await doFetch(url, {
        method: request.method,
        headers: request.headers,
        body: request.body,
        signal,
        redirect: 'error',
      });
      // Drain the body so the connection is released; its text is not trusted into messages.
      await res.arrayBuffer().catch(() => undefined);
      if (res.ok) return { ok: true, attempts: i, status: res.status };
      lastError = `${target} answered HTTP ${res.status}`;
      if (!retryable(res.status)) return { ok: false, attempts: i, error: lastError };
      waitMs = retryAfterMs(res);
    } catch (err) {
      if (opts.signal?.aborted)
        return { ok: false, attempts: i, error: `cancelled while posting to ${target}` };
      lastError = perAttempt.aborted
        ? `${target} did not answer within ${timeoutMs} ms`
        : `could not reach ${target}${errnoSuffix(err)}`;
    }
    if (i < attempts) await sleep(waitMs ?? backoffMs * 2 ** (i - 1), opts.signal);
  }
  return { ok: false, attempts, error: `${lastError} (after ${attempts} attempts)` };
};
