// Agent tool adapters: how each CLI is started headless on a prompt and how the same session is
// resumed (nudges, interrupted workers). The argv of claude, codex and opencode are run against the
// real CLIs (pinned in src/runner/tools/tested-versions.ts) by the compatibility tier, `npm run test:agents`:
// claude — `-p`, `--permission-mode acceptEdits`, `--allowedTools`, `--output-format stream-json
// --verbose`, `--session-id <uuid>` chosen by the runner, `--resume <id>`; codex — `exec --json
// --sandbox danger-full-access` (workspace-write makes `.git` read-only, so a worker could not
// commit; the runner's host is the isolation), `-` reads stdin, `exec [flags] resume <thread id> -`;
// opencode — `run --format json --print-logs --log-level WARN --file <prompt> -- <message>` (the
// prompt is attached, so the agent never reads outside its worktree, which opencode refuses),
// `--session <id>`; gemini — `--output-format stream-json --skip-trust` (an untrusted folder gets no
// tools headless) `--approval-mode yolo` (headless, the default mode refuses the shell tool), the prompt
// on stdin with an empty `--prompt`, `--session-id <uuid>` chosen by the runner, `--resume <uuid>`;
// qwen — `--output-format stream-json --approval-mode yolo`, prompt on stdin, `--session-id <uuid>`,
// `--resume <uuid>` (its stream-json is claude's shape). aider cannot be
// installed here; its flags follow aider.chat (--message-file, --yes-always, --model,
// ollama_chat/<model> for a local Ollama model, --restore-chat-history, which reads the worktree's
// own history file).
import type { RosterEntry } from '../../config/blitz-config.ts';
import { AppError } from '../../errors.ts';
import { type PlaceholderValues, substitute } from './placeholders.ts';

export interface ToolCommand {
  argv: string[];
  /** File given to the process as stdin (the prompt, for tools that read it there). */
  stdinFile?: string;
}

/** How a tool's output is read for tokens, the session id and the final report (agent-output.ts). */
export type ToolOutput =
  | 'claude-stream-json'
  | 'codex-json'
  | 'opencode-json'
  | 'gemini-stream-json'
  | 'text';

export interface ToolAdapter {
  /** `session`: the id the runner chose for this attempt, for tools that take one (`sessions: 'chosen'`). */
  start(entry: RosterEntry, v: PlaceholderValues, session?: string): ToolCommand;
  /**
   * Resumes session `session` with `v.promptFile` holding the nudge; undefined when the tool cannot
   * resume at all. A session tool without a known session starts afresh on `v.promptFile`, which the
   * supervisor then fills with the whole prompt and the nudge.
   */
  resume(entry: RosterEntry, v: PlaceholderValues, session?: string): ToolCommand | undefined;
  output: ToolOutput;
  /**
   * `chosen`: the runner picks the session id and passes it at start (claude --session-id);
   * `printed`: the tool prints the id it made (codex thread id, opencode sessionID);
   * `none`: no session ids (aider resumes from its history file in the worktree; custom templates).
   */
  sessions: 'chosen' | 'printed' | 'none';
}

/** Seed 004 posture: accept edits, and a scoped Bash allowlist instead of skipping permissions. */
export const claudeAllowedTools = [
  'Read',
  'Edit',
  'Write',
  'Glob',
  'Grep',
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

/** The built-in allowlist and the entry's own `allowedTools` (with a job's repository commands, jobEntry). */
export const claudeAllowlist = (e: RosterEntry): string[] => [
  ...new Set([...claudeAllowedTools, ...(e.allowedTools ?? [])]),
];

const claudeFlags = (e: RosterEntry): string[] => [
  '-p',
  '--permission-mode',
  'acceptEdits',
  '--allowedTools',
  claudeAllowlist(e).join(','),
  '--output-format',
  'stream-json',
  '--verbose',
  ...modelArgs('--model', e.model),
];

const claude: ToolAdapter = {
  start: (e, v, session) => ({
    argv: ['claude', ...claudeFlags(e), ...(session ? ['--session-id', session] : []), ...(e.args ?? [])],
    stdinFile: v.promptFile,
  }),
  resume: (e, v, session) =>
    session
      ? {
          argv: ['claude', ...claudeFlags(e), '--resume', session, ...(e.args ?? [])],
          stdinFile: v.promptFile,
        }
      : claude.start(e, v),
  output: 'claude-stream-json',
  sessions: 'chosen',
};

// Workers may need the network (package installs, docs), and `workspace-write` makes .git read-only in
// worktrees, so the worker could not commit: full access, inside the runner's own isolation. Pushing is
// not theirs to do: the runner pushes their branch.
const codexFlags = (e: RosterEntry): string[] => [
  '--json',
  '--sandbox',
  'danger-full-access',
  ...(e.effort ? ['-c', `model_reasoning_effort=${e.effort}`] : []),
  ...modelArgs('--model', e.model),
];

const codex: ToolAdapter = {
  start: (e, v) => ({
    argv: ['codex', 'exec', ...codexFlags(e), ...(e.args ?? []), '-'],
    stdinFile: v.promptFile,
  }),
  resume: (e, v, session) =>
    session
      ? {
          argv: ['codex', 'exec', ...codexFlags(e), ...(e.args ?? []), 'resume', session, '-'],
          stdinFile: v.promptFile,
        }
      : codex.start(e, v),
  output: 'codex-json',
  sessions: 'printed',
};

const opencodeModel = (e: RosterEntry): string | undefined =>
  e.model && e.provider && !e.model.includes('/') ? `${e.provider}/${e.model}` : e.model;
/** The prompt is attached with --file; the message only points at it (it names no path). */
const opencodeMessage = 'Carry out the task in the attached file exactly as it says.';

const opencodeArgv = (e: RosterEntry, v: PlaceholderValues, session?: string): string[] => [
  'opencode',
  'run',
  '--format',
  'json',
  // Its retries of an unreachable endpoint show only in its own log: these lines let the
  // supervisor see them while it runs (liveEnvironmentCause) instead of a minute later.
  '--print-logs',
  '--log-level',
  'WARN',
  ...(session ? ['--session', session] : []),
  ...modelArgs('--model', opencodeModel(e)),
  ...(e.args ?? []),
  '--file',
  v.promptFile,
  '--',
  opencodeMessage,
];

const opencode: ToolAdapter = {
  start: (e, v) => ({ argv: opencodeArgv(e, v) }),
  resume: (e, v, session) => ({ argv: opencodeArgv(e, v, session) }),
  output: 'opencode-json',
  sessions: 'printed',
};

/**
 * gemini and qwen: headless with every tool approved (`--approval-mode yolo`; the runner's host is the
 * isolation, as for codex), stream-json out, the prompt on stdin, the session named by the runner.
 */
const sessionTool = (
  bin: 'gemini' | 'qwen',
  output: ToolOutput,
  headless: readonly string[],
): ToolAdapter => {
  const flags = (e: RosterEntry): string[] => [
    '--output-format',
    'stream-json',
    ...headless,
    '--approval-mode',
    'yolo',
    ...modelArgs('--model', e.model),
  ];
  const adapter: ToolAdapter = {
    start: (e, v, session) => ({
      argv: [bin, ...flags(e), ...(session ? ['--session-id', session] : []), ...(e.args ?? [])],
      stdinFile: v.promptFile,
    }),
    resume: (e, v, session) =>
      session
        ? { argv: [bin, ...flags(e), '--resume', session, ...(e.args ?? [])], stdinFile: v.promptFile }
        : adapter.start(e, v),
    output,
    sessions: 'chosen',
  };
  return adapter;
};

// gemini's `--prompt ''` makes it headless on stdin alone; without --skip-trust a folder it has not
// been told to trust gets its tools refused.
const gemini = sessionTool('gemini', 'gemini-stream-json', ['--skip-trust', '--prompt', '']);
const qwen = sessionTool('qwen', 'claude-stream-json', []);

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
  sessions: 'none',
};

/** The operator's own argv templates, substituted once by commandFor (`{session}` included). */
const custom: ToolAdapter = {
  start: (e) => ({ argv: [...(e.command ?? [])] }),
  resume: (e) => (e.resume ? { argv: [...e.resume] } : undefined),
  output: 'claude-stream-json',
  sessions: 'none',
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
  sessions: 'none',
};

export const toolAdapters: Record<RosterEntry['tool'], ToolAdapter> = {
  claude,
  codex,
  opencode,
  gemini,
  qwen,
  aider,
  ollama: reviewOnly,
  custom,
};

/** The rule that lets the agent run one of the repository's own commands: `Bash(pytest:*)`. */
const repoCommandRule = (argv: readonly string[]): string | undefined => {
  const program = argv[0] ?? '';
  return /^[A-Za-z0-9._/+-]{1,200}$/.test(program) ? `Bash(${program}:*)` : undefined;
};

/**
 * The roster entry a job's worker starts with: the repository's own build and smoke commands (its
 * blitz.yml) join the entry's `allowedTools`, so the agent may run the checks the bot will run.
 */
export const jobEntry = (job: { entry: RosterEntry; repoCommands?: string[][] | undefined }): RosterEntry => {
  const rules = (job.repoCommands ?? []).flatMap((c) => {
    const rule = repoCommandRule(c);
    return rule ? [rule] : [];
  });
  if (rules.length === 0) return job.entry;
  return { ...job.entry, allowedTools: [...(job.entry.allowedTools ?? []), ...rules] };
};

/**
 * How an entry's sessions are known: its tool's way, except a `custom` entry whose argv names
 * `{session}`: the runner chooses its session id at start, and its resume gets that same id.
 */
export const sessionsOf = (
  entry: Pick<RosterEntry, 'tool' | 'command' | 'resume'>,
): ToolAdapter['sessions'] =>
  entry.tool === 'custom' &&
  [...(entry.command ?? []), ...(entry.resume ?? [])].some((a) => a.includes('{session}'))
    ? 'chosen'
    : toolAdapters[entry.tool].sessions;

/** Built-in argv get placeholders too (an operator's `args` may use `{worktree}`). */
export const commandFor = (
  entry: RosterEntry,
  v: PlaceholderValues,
  mode: 'start' | 'resume',
  session?: string,
): ToolCommand | undefined => {
  const adapter = toolAdapters[entry.tool];
  const cmd = mode === 'start' ? adapter.start(entry, v, session) : adapter.resume(entry, v, session);
  const values = session ? { ...v, session } : v;
  return cmd && { ...cmd, argv: substitute(cmd.argv, values) };
};
