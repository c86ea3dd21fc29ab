// The deploy ship path: run the repo's `ship.deploy` argv in the integration worktree through the exec
// choke point, with a timeout and a cancel signal, and keep the tail of its output (redacted) for the
// dashboard. Failures are values: a failed deploy blocks the run, it does not crash it.
import { isAppError } from '../errors.ts';
import { redactText, run } from '../runner/exec.ts';
import { insideWorkspace } from '../runner/workspace.ts';

export interface DeployOptions {
  /** Repo config `ship.deploy`. */
  argv: readonly string[];
  workspaceRoot: string;
  /** The worktree to run in (the default branch after the merge, or `blitz/<slug>`). */
  cwd: string;
  /** Environment of the command; when absent it inherits the bot's. */
  env?: Record<string, string>;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Values to mask in the tail besides the usual token shapes (e.g. a deploy token given in env). */
  secrets?: readonly string[];
  /** Lines of stdout and of stderr kept; default 20. */
  tailLines?: number;
  run?: typeof run;
}

export interface DeployResult {
  ok: boolean;
  exitCode: number | null;
  timedOut: boolean;
  /** Last lines of output, redacted, for the dashboard. */
  tail: string;
  /** Why it failed, in words; absent when ok. */
  error?: string;
}

const maxTailChars = 4_000;

export const tailOf = (text: string, lines: number): string => {
  const all = text.replace(/\s+$/, '').split(/\r?\n/);
  const kept = all.slice(-lines).join('\n');
  return kept.length > maxTailChars ? `…${kept.slice(-maxTailChars)}` : kept;
};

export const runDeploy = async (opts: DeployOptions): Promise<DeployResult> => {
  if (opts.argv.length === 0) {
    return {
      ok: false,
      exitCode: null,
      timedOut: false,
      tail: '',
      error: 'No ship.deploy command is configured.',
    };
  }
  const lines = opts.tailLines ?? 20;
  const secrets = [...(opts.secrets ?? [])];
  try {
    const cwd = insideWorkspace(opts.workspaceRoot, opts.cwd);
    const res = await (opts.run ?? run)(opts.argv, {
      cwd,
      timeoutMs: opts.timeoutMs,
      ...(opts.env ? { env: opts.env } : {}),
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    const parts = [tailOf(res.stdout, lines), tailOf(res.stderr, lines)].filter((p) => p.length > 0);
    const tail = redactText(parts.join('\n--- stderr ---\n'), secrets);
    if (res.timedOut) {
      return {
        ok: false,
        exitCode: res.exitCode,
        timedOut: true,
        tail,
        error: `deploy did not finish within ${Math.round(opts.timeoutMs / 1000)} s`,
      };
    }
    if (res.exitCode !== 0) {
      return {
        ok: false,
        exitCode: res.exitCode,
        timedOut: false,
        tail,
        error: `deploy exited with code ${res.exitCode}`,
      };
    }
    return { ok: true, exitCode: 0, timedOut: false, tail };
  } catch (err) {
    const error = isAppError(err)
      ? err.message
      : `deploy could not run: ${err instanceof Error ? err.message : String(err)}`;
    return { ok: false, exitCode: null, timedOut: false, tail: '', error: redactText(error, secrets) };
  }
};
