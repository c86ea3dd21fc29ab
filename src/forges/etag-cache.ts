// A bounded cache of GET answers by URL with their validators (ETag, Last-Modified), for conditional
// requests: the client sends `If-None-Match` / `If-Modified-Since`, and on 304 serves the kept answer.
// GitHub does not count a 304 against the rate limit. Least recently used entries go first.

export interface CachedAnswer<T> {
  etag?: string;
  lastModified?: string;
  value: T;
}

export interface EtagCache<T> {
  get(key: string): CachedAnswer<T> | undefined;
  set(key: string, answer: CachedAnswer<T>): void;
  delete(key: string): void;
  /** Request headers that make a GET conditional on the kept answer (empty when none). */
  conditionalHeaders(key: string): Record<string, string>;
  readonly size: number;
}

export const createEtagCache = <T>(max = 1000): EtagCache<T> => {
  const entries = new Map<string, CachedAnswer<T>>();
  const get = (key: string) => {
    const hit = entries.get(key);
    if (hit) {
      // Re-insert: a Map iterates in insertion order, so the first key is the least recently used.
      entries.delete(key);
      entries.set(key, hit);
    }
    return hit;
  };
  return {
    get,
    set(key, answer) {
      if (!answer.etag && !answer.lastModified) return;
      entries.delete(key);
      entries.set(key, answer);
      while (entries.size > max) entries.delete(entries.keys().next().value as string);
    },
    delete: (key) => void entries.delete(key),
    conditionalHeaders(key) {
      const hit = get(key);
      if (!hit) return {};
      return {
        ...(hit.etag ? { 'if-none-match': hit.etag } : {}),
        ...(hit.lastModified ? { 'if-modified-since': hit.lastModified } : {}),
      };
    },
    get size() {
      return entries.size;
    },
  };
};

/** Kept for a while, then asked again; a failure is not kept. Concurrent callers share one load. */
export const createTtlMemo = <T>(ttlMs: number, now: () => number = Date.now) => {
  const entries = new Map<string, { at: number; value: Promise<T> }>();
  return {
    get(key: string, load: () => Promise<T>): Promise<T> {
      const hit = entries.get(key);
      if (hit && now() - hit.at < ttlMs) return hit.value;
      const value = load();
      entries.set(key, { at: now(), value });
      value.catch(() => {
        if (entries.get(key)?.value === value) entries.delete(key);
      });
      return value;
    },
    forget(key: string) {
      entries.delete(key);
    },
  };
};
