// Where a worker-side process runs: under the worker's uid (when the runner switches users) and inside
// its sandbox (when one is configured). Everything that runs or reads a worker's repository (the agent
// CLI, the build/smoke/preview gates, the runner's own reads of the worker's commits) is started through
// a jail, so nothing a worker controls ever runs as the runner or sees the runner's files.
import type { WorkerUser } from './worker-user.ts';

export interface JailPlace {
  /** The directory the process starts in. */
  cwd: string;
  /** The only paths the process may write (its repository, its HOME, its scratch space). */
  writable: readonly string[];
  /** The worker's private HOME. */
  home: string;
}

export interface WorkerJail {
  /** What the dashboard, the log and `doctor` say about the workers' containment. */
  readonly kind: 'bubblewrap' | 'none';
  /** The worker's OS user, when the runner starts workers as another uid (`runner.user`). */
  readonly user?: WorkerUser;
  /** argv rewritten to run inside the sandbox at `place` (unchanged where there is no sandbox). */
  wrap(argv: readonly string[], place: JailPlace): string[];
}

/**
 * No sandbox: a worker-side process runs unchanged, as the worker user when there is one (the caller
 * starts it with that uid), else as the bot's own user.
 */
export const plainJail = (user: WorkerUser | undefined): WorkerJail => ({
  kind: 'none',
  ...(user ? { user } : {}),
  wrap: (argv) => [...argv],
});
