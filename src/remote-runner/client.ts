// The runner agent's HTTP client for /api/runner/*: bearer token, JSON in and out, a timeout on
// every request. It tells three answers apart: delivered, refused by the bot (a 4xx that will not
// change on retry), and unreachable (network error, 5xx, 429) — only the last is worth buffering.
import { AppError } from '../errors.ts';
import { runnerClockHeader } from './clock-skew.ts';

export type Delivery =
  | { kind: 'delivered'; status: number; body: unknown }
  | { kind: 'refused'; status: number; body: unknown }
  | { kind: 'unreachable'; reason: string };

export interface RunnerClient {
  post(path: string, body: unknown): Promise<Delivery>;
}

export const createRunnerClient = (opts: {
  server: string;
  token: string;
  timeoutMs?: number;
  /** This host's clock, sent with every request so the bot can tell how far off it is. */
  now?: () => Date;
}): RunnerClient => {
  let base: URL;
  try {
    base = new URL('/api/runner/', opts.server);
  } catch {
    throw new AppError('config_invalid', `--server ${opts.server}: not a URL (e.g. http://bot.example:3000)`);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') {
    throw new AppError('config_invalid', `--server ${opts.server}: use http:// or https://`);
  }
  return {
    async post(path, body) {
      let res: Response;
      try {
        res = await fetch(new URL(path, base), {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            authorization: `Bearer ${opts.token}`,
            [runnerClockHeader]: (opts.now?.() ?? new Date()).toISOString(),
          },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(opts.timeoutMs ?? 10_000),
        });
      } catch (err) {
        return { kind: 'unreachable', reason: err instanceof Error ? err.message : String(err) };
      }
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // Not JSON (a proxy's error page): keep the text for the log.
      }
      if (res.ok) return { kind: 'delivered', status: res.status, body: parsed };
      if (res.status >= 500 || res.status === 429 || res.status === 408) {
        return { kind: 'unreachable', reason: `HTTP ${res.status}` };
      }
      return { kind: 'refused', status: res.status, body: parsed };
    },
  };
};
