// Agent tool adapters: how each CLI is started headless on a prompt and how the same session is
// resumed (nudges, interrupted workers). Flags were checked against each CLI's documentation
// (search, docs corpus): claude — docs.anthropic.com/en/docs/claude-code/cli-reference (-p,
// --permission-mode, --allowedTools, --output-format stream-json, --verbose, --model, -c/--continue);
// codex — the `codex exec` reference (exec, --json, --full-auto, -m/--model, `-` reads stdin,
// `exec [flags] resume --last`, reasoning effort as `-c model_reasoning_effort=…`); opencode —
// `opencode run [message..]`, -m/--model provider/model, --continue; aider — aider.chat
// (--message-file, --yes-always, --model, ollama_chat/<model> for a local Ollama model,
// --restore-chat-history).
import type { RosterEntry } from '../../config/blitz-config.ts';
import { AppError } from '../../errors.ts';
import { type PlaceholderValues, substitute } from './placeholders.ts';

export interface ToolCommand {
  argv: string[];
  /** File given to the process as stdin (the prompt, for tools that read it there). */
  stdinFile?: string;
}

export interface ToolAdapter {
  start(entry: RosterEntry, v: PlaceholderValues): ToolCommand;
  /** Resumes the same session with `v.promptFile` holding the nudge; undefined when the tool cannot. */
  resume(entry: RosterEntry, v: PlaceholderValues): ToolCommand | undefined;
  /** How the tool's output is read for tokens and the final report. */
  output: 'claude-stream-json' | 'codex-json' | 'text';
}

/** Seed 004 posture: accept edits, and a scoped Bash allowlist instead of skipping permissions. */
export const claudeAllowedTools = [
  'Read',
  'Edit',
  'MultiEdit',
  'Write',
  'Glob',
  'Grep',
  'LS',
  'TodoWrite',
  'Bash(git:*)',
  'Bash(gh:*)',
  'Bash(npm:*)',
  'Bash(npx:*)',
  'Bash(node:*)',
  'Bash(python3:*)',
  'Bash(make:*)',
  'Bash(shellcheck:*)',
  // Without bash/sh sessions detour through python3 subprocess to run test scripts (seed 004).
  'Bash(bash:*)',
  'Bash(sh:*)',
  'Bash(ls:*)',
  'Bash(cat:*)',
  'Bash(head:*)',
  'Bash(tail:*)',
  'Bash(grep:*)',
  'Bash(rg:*)',
  'Bash(find:*)',
  'Bash(wc:*)',
  'Bash(diff:*)',
];

const modelArgs = (flag: string, model?: string): string[] => (model ? [flag, model] : []);

const claudeFlags = (e: RosterEntry): string[] => [
  '-p',
  '--permission-mode',
  'acceptEdits',
  '--allowedTools',
  claudeAllowedTools.join(','),
  '--output-format',
  'stream-json',
  '--verbose',
  ...modelArgs('--model', e.model),
];

const claude: ToolAdapter = {
  start: (e, v) => ({ argv: ['claude', ...claudeFlags(e), ...(e.args ?? [])], stdinFile: v.promptFile }),
  resume: (e, v) => ({
    argv: ['claude', '--continue', ...claudeFlags(e), ...(e.args ?? [])],
    stdinFile: v.promptFile,
  }),
  output: 'claude-stream-json',
};

// Workers may need the network (package installs, docs): the workspace-write sandbox blocks it unless told
// otherwise. Pushing is not theirs to do: the runner pushes their branch.
const codexFlags = (e: RosterEntry): string[] => [
  '--json',
  '--full-auto',
  '-c',
  'sandbox_workspace_write.network_access=true',
  ...(e.effort ? ['-c', `model_reasoning_effort=${e.effort}`] : []),
  ...modelArgs('--model', e.model),
];

const codex: ToolAdapter = {
  start: (e, v) => ({
    argv: ['codex', 'exec', ...codexFlags(e), ...(e.args ?? []), '-'],
    stdinFile: v.promptFile,
  }),
  resume: (e, v) => ({
    argv: ['codex', 'exec', ...codexFlags(e), ...(e.args ?? []), 'resume', '--last', '-'],
    stdinFile: v.promptFile,
  }),
  output: 'codex-json',
};

const opencodeModel = (e: RosterEntry): string | undefined =>
  e.model && e.provider && !e.model.includes('/') ? `${e.provider}/${e.model}` : e.model;
const opencodeMessage = (v: PlaceholderValues): string =>
  `Read the file ${v.promptFile} and carry out the task it describes, exactly as it says.`;

const opencode: ToolAdapter = {
  start: (e, v) => ({
    argv: [
      'opencode',
      'run',
      ...modelArgs('--model', opencodeModel(e)),
      ...(e.args ?? []),
      opencodeMessage(v),
    ],
  }),
  resume: (e, v) => ({
    argv: [
      'opencode',
      'run',
      '--continue',
      ...modelArgs('--model', opencodeModel(e)),
      ...(e.args ?? []),
      opencodeMessage(v),
    ],
  }),
  output: 'text',
};

const aiderModel = (e: RosterEntry): string | undefined =>
  e.provider === 'ollama' && e.model && !e.model.includes('/') ? `ollama_chat/${e.model}` : e.model;

const aider: ToolAdapter = {
  start: (e, v) => ({
    argv: [
      'aider',
      '--message-file',
      v.promptFile,
      '--yes-always',
      ...modelArgs('--model', aiderModel(e)),
      ...(e.args ?? []),
    ],
  }),
  resume: (e, v) => ({
    argv: [
      'aider',
      '--restore-chat-history',
      '--message-file',
      v.promptFile,
      '--yes-always',
      ...modelArgs('--model', aiderModel(e)),
      ...(e.args ?? []),
    ],
  }),
  output: 'text',
};

const custom: ToolAdapter = {
  start: (e, v) => ({ argv: substitute(e.command ?? [], v) }),
  resume: (e, v) => (e.resume ? { argv: substitute(e.resume, v) } : undefined),
  output: 'claude-stream-json',
};

const reviewOnly: ToolAdapter = {
  start: (e) => {
    throw new AppError(
      'bad_request',
      `Roster entry ${e.name} (ollama) is review-only and cannot author code.`,
    );
  },
  resume: () => undefined,
  output: 'text',
};

export const toolAdapters: Record<RosterEntry['tool'], ToolAdapter> = {
  claude,
  codex,
  opencode,
  aider,
  ollama: reviewOnly,
  custom,
};

/** Built-in argv get placeholders too (an operator's `args` may use `{worktree}`). */
export const commandFor = (
  entry: RosterEntry,
  v: PlaceholderValues,
  mode: 'start' | 'resume',
): ToolCommand | undefined => {
  const adapter = toolAdapters[entry.tool];
  const cmd = mode === 'start' ? adapter.start(entry, v) : adapter.resume(entry, v);
  return cmd && { ...cmd, argv: substitute(cmd.argv, v) };
};
