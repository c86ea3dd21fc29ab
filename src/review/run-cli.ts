// Runs one CLI reviewer: the prompt in a private temp dir (file and stdin), the tool through the
// runner's `run` with a timeout and the cancel signal, its answer read from stdout. A failure is a
// fixed phrase for the comment; stderr is never shown, since it may echo the environment.

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { entryEnv } from '../config/worker-env.ts';
import { AppError, isAppError } from '../errors.ts';
import { agentText } from '../runner/agent-output.ts';
import type { run as execRun } from '../runner/exec.ts';
import { type PlaceholderValues, placeholderEnv } from '../runner/tools/placeholders.ts';
import { reviewCommand } from './reviewer-command.ts';
import type { ReviewerAttempt, ReviewRosterEntry } from './types.ts';

export interface CliReviewerOptions {
  run: typeof execRun;
  entry: ReviewRosterEntry;
  prompt: string;
  /** Placeholder values other than the prompt file and the working dir, which this module makes. */
  placeholders: Omit<PlaceholderValues, 'promptFile' | 'worktree'>;
  /** PATH, HOME and provider settings; the bot's own secrets are not in it. */
  baseEnv: Record<string, string>;
  timeoutMs: number;
  signal: AbortSignal;
  /** Parent of the reviewer's temp dir. */
  workRoot: string;
}

export const seconds = (ms: number): string => `${Math.round((ms / 1000) * 10) / 10} s`;

export const runCliReviewer = async (o: CliReviewerOptions): Promise<ReviewerAttempt> => {
  const dir = await mkdtemp(join(o.workRoot, 'blitz-review-'));
  try {
    const promptFile = join(dir, 'review-prompt.md');
    await writeFile(promptFile, o.prompt, { mode: 0o600 });
    const values: PlaceholderValues = { ...o.placeholders, promptFile, worktree: dir };
    const cmd = reviewCommand(o.entry, values, o.prompt);
    let result: Awaited<ReturnType<typeof execRun>>;
    try {
      result = await o.run(cmd.argv, {
        cwd: dir,
        env: { ...o.baseEnv, ...entryEnv(o.entry.env), ...placeholderEnv(values) },
        timeoutMs: o.timeoutMs,
        signal: o.signal,
        input: cmd.input,
      });
    } catch (err) {
      if (isAppError(err, 'cancelled') || o.signal.aborted)
        throw new AppError('cancelled', 'The review was cancelled.', {}, { cause: err });
      if (isAppError(err, 'tool_missing'))
        return {
          ok: false,
          reason: `could not start: ${cmd.argv[0]} is not installed on this host`,
          missing: true,
        };
      return { ok: false, reason: 'could not be started' };
    }
    if (result.timedOut) return { ok: false, reason: `timed out after ${seconds(o.timeoutMs)}` };
    if (result.exitCode !== 0) return { ok: false, reason: `exited with code ${result.exitCode}` };
    const text = agentText(result.stdout).trim();
    if (!text) return { ok: false, reason: 'printed no review' };
    return { ok: true, text };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};
