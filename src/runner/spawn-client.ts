// The bot's side of the spawn host (spawn-host.ts): `run` hands each short command to that small
// process instead of starting it from the bot's own, much larger one. One host per bot process, started
// on the first command and again after it died; the commands in flight when it dies fail, as a command
// the bot had started itself would when killed. `BLITZ_SPAWN_HOST=off` starts them in the bot instead.
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { currentEnv, spawnHostWanted } from '../config/process-env.ts';
import { AppError, type AppErrorCode } from '../errors.ts';
import type { RunOptions, RunResult } from './command-types.ts';

/** What the bot sends: a command to run, or the cancel of one in flight. */
export type HostRequest =
  | { t: 'run'; id: number; argv: readonly string[]; opts: Omit<RunOptions, 'signal'> }
  | { t: 'cancel'; id: number };

/** The error `run` would have thrown, as it crosses the channel. */
export interface HostFailure {
  app: boolean;
  code: string;
  message: string;
  details: Record<string, unknown>;
}

/** What comes back: the command's result, or its error. */
export type HostReply =
  | { t: 'done'; id: number; result: RunResult }
  | { t: 'fail'; id: number; error: HostFailure };

export const spawnHostEnabled = spawnHostWanted;

const errorOf = (e: HostFailure): Error =>
  e.app ? new AppError(e.code as AppErrorCode, e.message, e.details) : new Error(e.message);

interface Pending {
  resolve(r: RunResult): void;
  reject(e: Error): void;
}

let host: ChildProcess | undefined;
const pending = new Map<number, Pending>();
let nextId = 1;

/**
 * The host's heap: it keeps nothing but the commands in flight, yet node's defaults (a young generation
 * of up to 3 × 16 MB, an old one let grow to 4× what survives) let its resident memory double under a
 * burst of git output, in a process that lives as long as the bot. A 1 MB semi-space and a 1 GB old
 * space (under 2 GB, V8 lets the old space grow less past what survives) keep it near its idle size;
 * 1 GB still holds many commands' 64 MB of output at once.
 */
const spawnHostHeapFlags = ['--max-semi-space-size=1', '--max-old-space-size=1024'];

/** The host's module beside this one: TypeScript under tsx (with its loader), JavaScript from dist. */
const hostModule = (): { path: string; execArgv: string[] } => {
  const ts = import.meta.url.endsWith('.ts');
  const path = fileURLToPath(new URL(ts ? './spawn-host.ts' : './spawn-host.js', import.meta.url));
  return {
    path,
    execArgv: [...spawnHostHeapFlags, ...(ts ? ['--import', import.meta.resolve('tsx')] : [])],
  };
};

/** While a command is in flight the channel keeps the bot's event loop alive; idle, it does not. */
const holdLoop = (child: ChildProcess): void => {
  const channel = child.channel as { ref(): void; unref(): void } | undefined;
  if (pending.size > 0) channel?.ref();
  else channel?.unref();
};

const startHost = (): ChildProcess => {
  const { path, execArgv } = hostModule();
  const child = fork(path, [], {
    execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: 'advanced',
  });
  child.on('message', (m: HostReply) => {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (m.t === 'done') p.resolve(m.result);
    else p.reject(errorOf(m.error));
    holdLoop(child);
  });
  child.on('exit', (code, signal) => {
    if (host === child) host = undefined;
    const why = `the spawn host exited (${signal ?? code}) with the command still running`;
    for (const [id, p] of pending) {
      pending.delete(id);
      p.reject(new AppError('internal', why));
    }
  });
  child.on('error', () => undefined);
  child.unref();
  return child;
};

/** The live spawn host's pid (the bench adds its CPU and memory to the bot's), if one runs. */
export const spawnHostPid = (): number | undefined => (host?.connected ? host.pid : undefined);

/** Runs argv in the spawn host: the same contract as exec.ts `runHere`. */
export const runInHost = (argv: readonly string[], opts: RunOptions): Promise<RunResult> => {
  const { signal, ...rest } = opts;
  if (!host?.connected) host = startHost();
  const child = host;
  const id = nextId++;
  return new Promise<RunResult>((resolve, reject) => {
    const onAbort = () => child.send({ t: 'cancel', id } satisfies HostRequest, () => undefined);
    const done = () => signal?.removeEventListener('abort', onAbort);
    pending.set(id, {
      resolve: (r) => {
        done();
        resolve(r);
      },
      reject: (e) => {
        done();
        reject(e);
      },
    });
    signal?.addEventListener('abort', onAbort, { once: true });
    // Without an environment of its own the command gets the bot's, as of now.
    const request: HostRequest = {
      t: 'run',
      id,
      argv,
      opts: { ...rest, env: rest.env ?? currentEnv() },
    };
    holdLoop(child);
    child.send(request, (err) => {
      if (!err) return;
      const p = pending.get(id);
      pending.delete(id);
      p?.reject(new AppError('internal', `the spawn host could not be reached: ${err.message}`));
      holdLoop(child);
    });
  });
};
