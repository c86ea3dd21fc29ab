// The part of the Runner the orchestrator calls (the Runner class satisfies it). A file of its own so
// the dispatch path can name it without importing the orchestrator's context.
import type { RepoRef } from '../forges/types.ts';
import type { GitContext } from './git.ts';
import type { RunnerJobResult } from './runner.ts';
import type { RunnerJob } from './types.ts';

export interface RunnerPort {
  execute(job: RunnerJob): Promise<RunnerJobResult>;
  limit(): { limit: number; contended: boolean };
  gitContext(repo: RepoRef): Promise<GitContext>;
  /** Of `files`, those still holding a conflict marker in an attempt's repository (read as its worker). */
  markedFiles(attemptId: string, files: readonly string[]): Promise<string[]>;
}
