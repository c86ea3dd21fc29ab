// Where the bot starts processes: short commands with a timeout and a cancel signal, and detached
// workers that outlive the bot. Short commands run in the forked spawn host (spawn-client.ts) unless
// it is off; the host runs them with this module's `runHere`.
// Argv arrays only, never a shell.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { AppError } from '../errors.ts';
import { countCommand } from './command-count.ts';
import type { RunOptions, RunResult } from './command-types.ts';
import { runInHost, spawnHostEnabled } from './spawn-client.ts';

export type { RunOptions, RunResult } from './command-types.ts';

/** How long a stopped command's group gets between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 2000;

/**
 * Runs argv to completion; a non-zero exit is a result, a missing binary is a `tool_missing` error.
 * The command runs in its own process group, and a timeout or cancel signals the whole group: a
 * reviewer CLI's children (a model server client, a test runner) must not outlive it. It is started by
 * the spawn host (spawn-client.ts), a small process whose starts cost far less than the bot's own.
 */
export const run = async (argv: readonly string[], opts: RunOptions): Promise<RunResult> => {
  // What fails before anything starts fails here, at once.
  const here = !spawnHostEnabled() || !argv[0] || opts.signal?.aborted;
  countCommand(argv);
  return here ? runHere(argv, opts) : runInHost(argv, opts);
};

/** What a command may write to stdout or stderr before it is stopped (a result, not an error). */
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

/**
 * `run`, started from this process (the spawn host's own way, and the bot's with the host off). Node's
 * own `spawn`, not execa: the same contract at under half the parent's CPU per command, which the host
 * pays for every git command of every issue.
 */
export const runHere = async (argv: readonly string[], opts: RunOptions): Promise<RunResult> => {
  const [file, ...args] = argv;
  if (!file) throw new AppError('bad_request', 'Cannot run an empty command.');
  if (opts.signal?.aborted) throw new AppError('cancelled', `Command was cancelled: ${file}`);
  // stdout to a file: its descriptor is handed to the child (created or truncated), never read here.
  const outFd = opts.stdoutFile !== undefined ? openSync(opts.stdoutFile, 'w') : undefined;
  let child: ChildProcess;
  try {
    child = spawn(file, args, {
      cwd: opts.cwd,
      env: opts.env ?? process.env,
      detached: true,
      shell: false,
      stdio: [opts.input === undefined ? 'ignore' : 'pipe', outFd ?? 'pipe', 'pipe'],
      ...(opts.uid !== undefined ? { uid: opts.uid } : {}),
      ...(opts.gid !== undefined ? { gid: opts.gid } : {}),
    });
  } finally {
    if (outFd !== undefined) closeSync(outFd);
  }
  let stopped: 'timeout' | 'cancel' | 'overflow' | undefined;
  let forceTimer: NodeJS.Timeout | undefined;
  const stop = (why: 'timeout' | 'cancel' | 'overflow') => {
    if (stopped || child.pid === undefined) return;
    stopped = why;
    killGroup(child.pid, 'SIGTERM');
    const pid = child.pid;
    forceTimer = setTimeout(() => killGroup(pid, 'SIGKILL'), KILL_GRACE_MS);
  };
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  let bytes = 0;
  const keep = (into: Buffer[]) => (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > MAX_OUTPUT_BYTES) return stop('overflow');
    into.push(chunk);
  };
  child.stdout?.on('data', keep(out));
  child.stderr?.on('data', keep(err));
  if (child.stdin) {
    // A command that exits without reading its input closes the pipe: that is its answer, not ours.
    child.stdin.on('error', () => undefined);
    child.stdin.end(opts.input);
  }
  const timer = setTimeout(() => stop('timeout'), opts.timeoutMs);
  const onAbort = () => stop('cancel');
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  let ended: { code: number | null; error?: NodeJS.ErrnoException };
  try {
    ended = await new Promise((resolve) => {
      let error: NodeJS.ErrnoException | undefined;
      child.once('error', (e: NodeJS.ErrnoException) => {
        error = e;
        // Not started at all: no exit and maybe no close follows.
        if (child.pid === undefined) resolve({ code: null, error: e });
      });
      child.once('close', (code: number | null) => resolve({ code, ...(error ? { error } : {}) }));
    });
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onAbort);
    // Members that ignored SIGTERM are still in the group after the leader exited: they go now.
    if (stopped && child.pid !== undefined) killGroup(child.pid, 'SIGKILL');
    clearTimeout(forceTimer);
  }
  if (ended.error?.code === 'ENOENT') {
    throw new AppError('tool_missing', `Command not found: ${file}`, { argv: redactArgv(argv) });
  }
  if (stopped === 'cancel') throw new AppError('cancelled', `Command was cancelled: ${file}`);
  const timedOut = stopped === 'timeout';
  const stderr = Buffer.concat(err).toString('utf8');
  return {
    exitCode: timedOut ? 124 : (ended.code ?? 1),
    stdout: Buffer.concat(out).toString('utf8'),
    stderr:
      stopped === 'overflow'
        ? `${stderr}\n[stopped: more than ${MAX_OUTPUT_BYTES} bytes of output]`
        : ended.error && child.pid === undefined
          ? `${stderr}${ended.error.message}`
          : stderr,
    timedOut,
  };
};

export interface DetachedOptions {
  cwd: string;
  env: Record<string, string>;
  /** stdout and stderr are appended here. */
  logFile: string;
  /** Given to the process as stdin (claude -p and codex exec read the prompt from stdin); else /dev/null. */
  stdinFile?: string;
  /** Start the process as this user and group (the bot must be root): `runner.user`. */
  uid?: number;
  gid?: number;
  /** Told when the process exits, if this process still lives then (after a restart nobody is told). */
  onExit?: () => void;
}

/**
 * Starts argv in its own process group with output appended to logFile, and lets it outlive this
 * process: the supervisor re-attaches by pid after a restart.
 */
export const spawnDetached = (argv: readonly string[], opts: DetachedOptions): { pid: number } => {
  const [file, ...args] = argv;
  if (!file) throw new AppError('bad_request', 'Cannot start an empty command.');
  // node's spawn, not execa: execa would copy the output through this process, and the worker must
  // keep logging after the bot exits. The log file's descriptor is handed to the child directly.
  const logFd = openSync(opts.logFile, 'a');
  const inFd = opts.stdinFile ? openSync(opts.stdinFile, 'r') : 'ignore';
  try {
    const child = spawn(file, args, {
      cwd: opts.cwd,
      env: opts.env,
      detached: true,
      shell: false,
      stdio: [inFd, logFd, logFd],
      ...(opts.uid !== undefined ? { uid: opts.uid } : {}),
      ...(opts.gid !== undefined ? { gid: opts.gid } : {}),
    });
    child.on('error', () => undefined);
    if (child.pid === undefined) throw new AppError('tool_missing', `Command not found: ${file}`);
    const onExit = opts.onExit;
    if (onExit) child.once('exit', () => onExit());
    child.unref();
    return { pid: child.pid };
  } finally {
    closeSync(logFd);
    if (typeof inFd === 'number') closeSync(inFd);
  }
};

/**
 * Runs a short command to completion synchronously (a start-up probe, before anything else runs): its
 * exit code (null when it could not start or was killed) and stderr. Never for anything a worker wrote.
 */
export const probeSync = (
  argv: readonly string[],
  opts: { env: Record<string, string>; timeoutMs: number; uid?: number; gid?: number },
): { exitCode: number | null; stderr: string } => {
  const [file, ...args] = argv;
  if (!file) throw new AppError('bad_request', 'Cannot run an empty command.');
  const res = spawnSync(file, args, {
    cwd: '/',
    env: opts.env,
    shell: false,
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: opts.timeoutMs,
    ...(opts.uid !== undefined ? { uid: opts.uid } : {}),
    ...(opts.gid !== undefined ? { gid: opts.gid } : {}),
  });
  return {
    exitCode: res.error ? null : res.status,
    stderr: res.error ? res.error.message : String(res.stderr ?? ''),
  };
};

/** Signals a whole process group (a detached worker and everything it started). */
export const killGroup = (pid: number, signal: NodeJS.Signals = 'SIGTERM'): boolean => {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
};

/**
 * When a process started (field 22 of `/proc/<pid>/stat`, clock ticks since boot), or undefined when
 * it is gone. With the pid it names one process: a pid reused later has another start time.
 */
export const processStartTime = (pid: number): string | undefined => {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces or ')': count after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19];
  } catch {
    return undefined;
  }
};

export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

const secretFlag = /^(?:--?)(?:token|api[-_]?key|password|secret|auth(?:orization)?)$/i;
const secretPatterns: RegExp[] = [
  /(authorization:\s*(?:basic|bearer|token)\s+)\S+/gi,
  // Any scheme: postgres://user:pw@, redis://:pw@, https://user:token@.
  /([a-z][a-z0-9+.-]*:\/\/)[^/\s:@]*(?::[^/\s@]*)?@/gi,
  /((?:token|api[-_]?key|password|passwd|secret|sig|signature)=)[^\s&#]+/gi,
  /\b(gh[pousr]_[A-Za-z0-9]{20,}|sk-[A-Za-z0-9_-]{20,}|glpat-[A-Za-z0-9_-]{20,})\b/g,
];

/** Removes credentials from one string: auth headers, user:pass@ in URLs, key=value, known token shapes. */
export const redactText = (text: string, extraSecrets: readonly string[] = []): string => {
  let out = text;
  for (const s of extraSecrets) if (s.length >= 4) out = out.split(s).join('[redacted]');
  out = out.replace(secretPatterns[0]!, '$1[redacted]');
  out = out.replace(secretPatterns[1]!, '$1[redacted]@');
  out = out.replace(secretPatterns[2]!, '$1[redacted]');
  out = out.replace(secretPatterns[3]!, '[redacted]');
  return out;
};

/** An argv safe to log or store: secrets in values and the value after a secret-named flag are masked. */
export const redactArgv = (argv: readonly string[], extraSecrets: readonly string[] = []): string[] =>
  argv.map((a, i) =>
    i > 0 && secretFlag.test(argv[i - 1] ?? '') ? '[redacted]' : redactText(a, extraSecrets),
  );
