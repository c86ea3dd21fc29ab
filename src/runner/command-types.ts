// A short command's options and result: what exec.ts `run` takes and gives, on either side of the
// spawn host's channel (spawn-client.ts).
export interface RunOptions {
  cwd: string;
  env?: Record<string, string | undefined>;
  timeoutMs: number;
  signal?: AbortSignal;
  input?: string;
  /** Start the command as this user and group (the bot must be root or hold CAP_SETUID/SETGID). */
  uid?: number;
  gid?: number;
  /** stdout goes to this file (created or truncated) instead of into the result: bytes, not text. */
  stdoutFile?: string;
}

export interface RunResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}
