// One reviewer asked once: an Ollama entry over its HTTP API, any other entry as a read-only CLI in a
// temp dir. PR reviews, plan reviews and integration reviews all ask through here.
import { tmpdir } from 'node:os';
import type { run as execRun } from '../runner/exec.ts';
import { askOllama } from './ollama.ts';
import { type CliReviewerOptions, runCliReviewer } from './run-cli.ts';
import type { ReviewerAttempt, ReviewRosterEntry } from './types.ts';

export interface AskReviewerOptions {
  timeoutMs: number;
  signal: AbortSignal;
  ollamaHost: string | undefined;
  /** Placeholder values for a CLI reviewer (the entry's model is added here). */
  placeholders: Omit<CliReviewerOptions['placeholders'], 'model'>;
  baseEnv: Record<string, string>;
  /** Injected for tests; default the runner's `run` and global fetch. */
  run: typeof execRun;
  fetch?: typeof fetch;
  /** Parent of the reviewer's temp dir (default the OS temp dir). */
  workRoot?: string;
}

export const askReviewer = (
  entry: ReviewRosterEntry,
  prompt: string,
  o: AskReviewerOptions,
): Promise<ReviewerAttempt> => {
  if (entry.tool === 'ollama')
    return askOllama({
      host: o.ollamaHost,
      model: entry.model,
      prompt,
      timeoutMs: o.timeoutMs,
      signal: o.signal,
      ...(o.fetch ? { fetch: o.fetch } : {}),
    });
  return runCliReviewer({
    run: o.run,
    entry,
    prompt,
    placeholders: { ...o.placeholders, ...(entry.model ? { model: entry.model } : {}) },
    baseEnv: o.baseEnv,
    timeoutMs: o.timeoutMs,
    signal: o.signal,
    workRoot: o.workRoot ?? tmpdir(),
  });
};
