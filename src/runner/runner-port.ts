// The part of the Runner the orchestrator calls (the Runner class satisfies it). A file of its own so
// the dispatch path can name it without importing the orchestrator's context.
import type { RepoRef } from '../forges/types.ts';
import type { GitContext } from './git.ts';
import type { JailedCommand, RunnerJobResult } from './runner.ts';
import type { RunnerJob } from './types.ts';

export interface RunnerPort {
  execute(job: RunnerJob): Promise<RunnerJobResult>;
  limit(): { limit: number; contended: boolean };
  gitContext(repo: RepoRef): Promise<GitContext>;
  /** Of `files`, those still holding a conflict marker in an attempt's repository (read as its worker). */
  markedFiles(attemptId: string, files: readonly string[]): Promise<string[]>;
  /** What workers run in; `none` is said on the dashboard. Absent: not known (a test's runner). */
  readonly jail?: { readonly kind: 'bubblewrap' | 'none' };
  /** A command made ready to run as the worker in a worktree (a preview; runner.ts's asWorker). */
  asWorker?(
    argv: readonly string[],
    cwd: string,
    opts?: { hostNetwork?: boolean; outlivesParent?: boolean },
  ): Promise<JailedCommand>;
}
