// The host-wide build gate: build and smoke commands (argv from repo config) run through a
// semaphore of `buildConcurrency` slots, with a timeout, and keep the last lines of their output
// for the report. One runner process per host owns the gate.
import { AppError } from '../errors.ts';
import { run } from './exec.ts';

export class Semaphore {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly slots: number) {
    if (slots < 1) throw new AppError('bad_request', 'A semaphore needs at least one slot.');
  }

  async use<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.slots) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }

  get inUse(): number {
    return this.active;
  }
}

export interface GateResult {
  exitCode: number;
  timedOut: boolean;
  /** The last `tailLines` lines of stdout and stderr, interleaved by stream. */
  tail: string;
}

export interface GateRunOptions {
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  signal?: AbortSignal;
  /** The worker's uid and gid (`runner.user`): a gate runs the repository's code as its worker. */
  uid?: number;
  gid?: number;
}

export const TAIL_LINES = 200;

export class BuildGate {
  private readonly semaphore: Semaphore;
  constructor(concurrency: number) {
    this.semaphore = new Semaphore(concurrency);
  }

  run(argv: string[], opts: GateRunOptions): Promise<GateResult> {
    return this.semaphore.use(async () => {
      try {
        const res = await run(argv, opts);
        const out = [res.stdout, res.stderr].filter((s) => s.trim()).join('\n');
        return {
          exitCode: res.exitCode,
          timedOut: res.timedOut,
          tail: out.trimEnd().split('\n').slice(-TAIL_LINES).join('\n'),
        };
      } catch (err) {
        if (err instanceof AppError && err.code === 'tool_missing') {
          return { exitCode: 127, timedOut: false, tail: err.message };
        }
        throw err;
      }
    });
  }
}
