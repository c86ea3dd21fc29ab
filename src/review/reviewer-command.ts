// How each agent CLI is run as a reviewer: headless, answer on stdout, and read-only where the tool
// has a switch for it, because the prompt carries a diff anyone could have written. Flags checked
// against the docs (search, docs corpus): claude `-p --output-format text --disallowedTools …`
// (docs.anthropic.com CLI reference); `codex exec --sandbox read-only --skip-git-repo-check -`
// (read-only is exec's default, prints only the final message on stdout, `-` reads stdin);
// `opencode run <message>`; gemini and qwen `--approval-mode plan` (read-only: no edits, no commands;
// checked against their --help), prompt on stdin; aider `--message-file --dry-run --no-git --no-auto-commits`.
// A `custom` entry's own argv template is used, with the prompt on stdin as well as in the file.
import { AppError } from '../errors.ts';
import { type PlaceholderValues, substitute } from '../runner/tools/placeholders.ts';
import type { ReviewRosterEntry } from './types.ts';

export interface ReviewCommand {
  argv: string[];
  /** The prompt, given on stdin. */
  input: string;
}

/** What a claude reviewer may not do: it only reads the prompt and answers. */
export const claudeReviewDeniedTools = ['Bash', 'Edit', 'Write', 'NotebookEdit', 'WebFetch', 'WebSearch'];

const modelArgs = (flag: string, model?: string): string[] => (model ? [flag, model] : []);

const opencodeModel = (e: ReviewRosterEntry): string | undefined =>
  e.model && e.provider && !e.model.includes('/') ? `${e.provider}/${e.model}` : e.model;

const aiderModel = (e: ReviewRosterEntry): string | undefined =>
  e.provider === 'ollama' && e.model && !e.model.includes('/') ? `ollama_chat/${e.model}` : e.model;

const builtIn = (e: ReviewRosterEntry, v: PlaceholderValues): string[] => {
  const extra = e.args ?? [];
  switch (e.tool) {
    case 'claude':
      return [
        'claude',
        '-p',
        '--output-format',
        'text',
        '--disallowedTools',
        claudeReviewDeniedTools.join(','),
        ...modelArgs('--model', e.model),
        ...extra,
      ];
    case 'codex':
      return [
        'codex',
        'exec',
        '--sandbox',
        'read-only',
        '--skip-git-repo-check',
        ...(e.effort ? ['-c', `model_reasoning_effort=${e.effort}`] : []),
        ...modelArgs('--model', e.model),
        ...extra,
        '-',
      ];
    case 'opencode':
      return [
        'opencode',
        'run',
        ...modelArgs('--model', opencodeModel(e)),
        ...extra,
        `Read the file ${v.promptFile} and answer exactly as it asks. Do not change any file.`,
      ];
    case 'gemini':
      return [
        'gemini',
        '--output-format',
        'text',
        '--skip-trust',
        '--approval-mode',
        'plan',
        ...modelArgs('--model', e.model),
        ...extra,
        '--prompt',
        '',
      ];
    case 'qwen':
      return [
        'qwen',
        '--output-format',
        'text',
        '--approval-mode',
        'plan',
        ...modelArgs('--model', e.model),
        ...extra,
      ];
    case 'aider':
      return [
        'aider',
        '--message-file',
        v.promptFile,
        '--yes-always',
        '--no-git',
        '--no-auto-commits',
        '--dry-run',
        ...modelArgs('--model', aiderModel(e)),
        ...extra,
      ];
    case 'custom':
      return e.command ?? [];
    case 'ollama':
      throw new AppError('bad_request', `Roster entry ${e.name} (ollama) is reached over HTTP, not run.`);
  }
};

/** The reviewer's argv, placeholders substituted element by element (never a shell string). */
export const reviewCommand = (e: ReviewRosterEntry, v: PlaceholderValues, prompt: string): ReviewCommand => {
  const argv = substitute(builtIn(e, v), v);
  if (argv.length === 0)
    throw new AppError('config_invalid', `Roster entry ${e.name} has no command to run.`);
  return { argv, input: prompt };
};
