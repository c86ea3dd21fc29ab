import { describe, expect, it } from 'vitest';
import { type RosterEntry, rosterEntrySchema } from '../../config/blitz-config.ts';
import { commandFor, jobEntry, sessionsOf } from './index.ts';
import { type PlaceholderValues, placeholderEnv, substitute } from './placeholders.ts';

const v: PlaceholderValues = {
  promptFile: '/ws/.attempts/a1/prompt.md',
  worktree: '/ws/.worktrees/o/r/m1-7-x',
  branch: 'm1/7-x',
  baseBranch: 'blitz/m1',
  issue: 7,
  repo: 'o/r',
  model: 'sonnet',
};
const entry = (e: Partial<RosterEntry>): RosterEntry =>
  rosterEntrySchema.parse({ name: 'e', roles: ['blitz'], tiers: ['execution'], ...e });

describe('agent tool argv', () => {
  it('claude runs headless with acceptEdits, a scoped allowlist including bash and sh, and stream JSON', () => {
    const cmd = commandFor(entry({ tool: 'claude', model: 'sonnet' }), v, 'start')!;
    expect(cmd.argv.slice(0, 4)).toEqual(['claude', '-p', '--permission-mode', 'acceptEdits']);
    const allowed = cmd.argv[cmd.argv.indexOf('--allowedTools') + 1]!.split(',');
    expect(allowed).toEqual(
      expect.arrayContaining(['Bash(git:*)', 'Bash(npm:*)', 'Bash(node:*)', 'Bash(bash:*)', 'Bash(sh:*)']),
    );
    expect(cmd.argv).toEqual(
      expect.arrayContaining(['--output-format', 'stream-json', '--verbose', '--model', 'sonnet']),
    );
    expect(cmd.argv).not.toContain('--dangerously-skip-permissions');
    expect(cmd.stdinFile).toBe(v.promptFile);
  });

  it('claude starts the session the runner chose and resumes exactly that one, never --continue', () => {
    const e = entry({ tool: 'claude' });
    const start = commandFor(e, v, 'start', '0b5e1c52-4a4e-4f47-9a3e-2f7c1d9e8a10')!.argv;
    expect(start).toEqual(expect.arrayContaining(['--session-id', '0b5e1c52-4a4e-4f47-9a3e-2f7c1d9e8a10']));
    const resume = commandFor(e, v, 'resume', '0b5e1c52-4a4e-4f47-9a3e-2f7c1d9e8a10')!.argv;
    expect(resume).toEqual(expect.arrayContaining(['--resume', '0b5e1c52-4a4e-4f47-9a3e-2f7c1d9e8a10']));
    expect(resume).not.toContain('--continue');
  });

  it("claude adds the entry's allowedTools and the repository's own build and smoke commands to its allowlist", () => {
    const e = entry({ tool: 'claude', allowedTools: ['Bash(cargo:*)', 'WebFetch'] });
    const job = { entry: e, repoCommands: [['pytest', '-q'], ['./scripts/smoke.sh']] };
    for (const mode of ['start', 'resume'] as const) {
      const argv = commandFor(jobEntry(job), v, mode, 'a-session')!.argv;
      const allowed = argv[argv.indexOf('--allowedTools') + 1]!.split(',');
      expect(allowed).toEqual(
        expect.arrayContaining([
          'Bash(git:*)',
          'Bash(cargo:*)',
          'WebFetch',
          'Bash(pytest:*)',
          'Bash(./scripts/smoke.sh:*)',
        ]),
      );
    }
    // A command that is no plain program name offers no rule (it could not be one allowlist entry).
    expect(jobEntry({ entry: e, repoCommands: [['a,b']] }).allowedTools).toEqual([
      'Bash(cargo:*)',
      'WebFetch',
    ]);
    expect(jobEntry({ entry: e })).toBe(e);
  });

  it('allowedTools is refused for a tool other than claude, and a rule holding a comma is refused', () => {
    const bad = rosterEntrySchema.safeParse({
      name: 'c',
      tool: 'codex',
      roles: ['blitz'],
      tiers: ['execution'],
      allowedTools: ['X'],
    });
    expect(bad.success).toBe(false);
    const comma = rosterEntrySchema.safeParse({
      name: 'c',
      tool: 'claude',
      roles: ['blitz'],
      tiers: ['execution'],
      allowedTools: ['Bash(a:*),Write'],
    });
    expect(comma.success).toBe(false);
  });

  it('claude allows only tools that exist (no MultiEdit, LS or TodoWrite)', () => {
    const argv = commandFor(entry({ tool: 'claude' }), v, 'start')!.argv;
    const allowed = argv[argv.indexOf('--allowedTools') + 1]!.split(',');
    for (const gone of ['MultiEdit', 'LS', 'TodoWrite']) expect(allowed).not.toContain(gone);
  });

  it('codex runs exec --json in a sandbox mode that lets it commit, and resumes its own thread', () => {
    const start = commandFor(entry({ tool: 'codex', model: 'gpt-5', effort: 'medium' }), v, 'start')!.argv;
    expect(start.slice(0, 5)).toEqual(['codex', 'exec', '--json', '--sandbox', 'danger-full-access']);
    expect(start).not.toContain('--full-auto');
    expect(start).toEqual(expect.arrayContaining(['--model', 'gpt-5', 'model_reasoning_effort=medium']));
    const resume = commandFor(
      entry({ tool: 'codex' }),
      v,
      'resume',
      '01a2309a-3794-7950-b5e5-0f320f0bbe70',
    )!.argv;
    expect(resume.slice(-3)).toEqual(['resume', '01a2309a-3794-7950-b5e5-0f320f0bbe70', '-']);
    expect(resume).not.toContain('--last');
  });

  it('a session tool without a known session starts afresh on the given file', () => {
    for (const tool of ['claude', 'codex', 'opencode'] as const) {
      const e = entry({ tool });
      expect(commandFor(e, v, 'resume', undefined)!.argv).toEqual(commandFor(e, v, 'start')!.argv);
    }
  });

  it('opencode attaches the prompt file (never asks the agent to read outside the worktree) and prints JSON', () => {
    const argv = commandFor(
      entry({ tool: 'opencode', provider: 'anthropic', model: 'sonnet' }),
      v,
      'start',
    )!.argv;
    expect(argv.slice(0, 4)).toEqual(['opencode', 'run', '--format', 'json']);
    expect(argv).toEqual(expect.arrayContaining(['--model', 'anthropic/sonnet']));
    expect(argv.slice(-4, -1)).toEqual(['--file', v.promptFile, '--']);
    expect(argv.at(-1)).not.toContain(v.promptFile);
    const resume = commandFor(
      entry({ tool: 'opencode' }),
      v,
      'resume',
      'ses_dcf65567cffejexl09TOBhEdeN',
    )!.argv;
    expect(resume).toEqual(expect.arrayContaining(['--session', 'ses_dcf65567cffejexl09TOBhEdeN']));
    expect(resume).not.toContain('--continue');
  });

  it('gemini and qwen run headless on stdin with every tool approved, in the session the runner chose', () => {
    const id = '0b5e1c52-4a4e-4f47-9a3e-2f7c1d9e8a10';
    const g = commandFor(entry({ tool: 'gemini', model: 'gemini-2.5-pro' }), v, 'start', id)!;
    expect(g.argv).toEqual([
      'gemini',
      '--output-format',
      'stream-json',
      '--skip-trust',
      '--prompt',
      '',
      '--approval-mode',
      'yolo',
      '--model',
      'gemini-2.5-pro',
      '--session-id',
      id,
    ]);
    expect(g.stdinFile).toBe(v.promptFile);
    const q = commandFor(entry({ tool: 'qwen', model: 'qwen3-coder-plus' }), v, 'start', id)!;
    expect(q.argv).toEqual([
      'qwen',
      '--output-format',
      'stream-json',
      '--approval-mode',
      'yolo',
      '--model',
      'qwen3-coder-plus',
      '--session-id',
      id,
    ]);
    for (const tool of ['gemini', 'qwen'] as const) {
      const resume = commandFor(entry({ tool, args: ['--debug'] }), v, 'resume', id)!;
      expect(resume.argv.slice(-3)).toEqual(['--resume', id, '--debug']);
      expect(resume.argv).not.toContain('--session-id');
      expect(resume.stdinFile).toBe(v.promptFile);
      // No session known (it died before printing one): a new session on the same file.
      expect(commandFor(entry({ tool }), v, 'resume')!.argv).not.toContain('--resume');
    }
  });

  it('aider reads the prompt from --message-file and can drive a local Ollama model', () => {
    const argv = commandFor(
      entry({ tool: 'aider', provider: 'ollama', model: 'qwen2.5-coder' }),
      v,
      'start',
    )!.argv;
    expect(argv).toEqual([
      'aider',
      '--message-file',
      v.promptFile,
      '--yes-always',
      '--model',
      'ollama_chat/qwen2.5-coder',
    ]);
  });

  it('custom substitutes each placeholder inside its own argv element, never splitting it', () => {
    const e = entry({
      tool: 'custom',
      command: ['node', 'agent.js', '{prompt_file}', '--at={worktree}', '{branch}', '{unknown}'],
      resume: ['node', 'agent.js', '--resume'],
    });
    const hostile = { ...v, branch: 'x; rm -rf / $(id)' };
    expect(commandFor(e, hostile, 'start')!.argv).toEqual([
      'node',
      'agent.js',
      v.promptFile,
      `--at=${v.worktree}`,
      'x; rm -rf / $(id)',
      '{unknown}',
    ]);
  });

  it('custom names the session the runner chose with {session}, at start and on resume', () => {
    const id = '0b5e1c52-4a4e-4f47-9a3e-2f7c1d9e8a10';
    const e = entry({
      tool: 'custom',
      command: ['my-agent', '--session-id', '{session}', '{prompt_file}'],
      resume: ['my-agent', '--resume={session}', '{prompt_file}'],
    });
    expect(sessionsOf(e)).toBe('chosen');
    const plain = { tool: 'custom' as const, command: ['my-agent', '{prompt_file}'], resume: ['my-agent'] };
    expect(sessionsOf(entry(plain))).toBe('none');
    expect(commandFor(e, v, 'start', id)!.argv).toEqual(['my-agent', '--session-id', id, v.promptFile]);
    expect(commandFor(e, v, 'resume', id)!.argv).toEqual(['my-agent', `--resume=${id}`, v.promptFile]);
    // Substituted once: a value that itself reads like a placeholder stays as it is.
    const odd = { ...v, branch: '{prompt_file}' };
    const b = entry({ ...plain, command: ['my-agent', '{branch}'] });
    expect(commandFor(b, odd, 'start')!.argv).toEqual(['my-agent', '{prompt_file}']);
  });

  it('puts the same values in BLITZ_* env', () => {
    expect(placeholderEnv(v)).toMatchObject({
      BLITZ_ISSUE: '7',
      BLITZ_REPO: 'o/r',
      BLITZ_BASE_BRANCH: 'blitz/m1',
    });
    expect(substitute(['{issue}-{repo}-{model}'], v)).toEqual(['7-o/r-sonnet']);
  });

  it('refuses to author with a review-only ollama entry', () => {
    const e = { name: 'o', tool: 'ollama', roles: ['review'], tiers: ['execution'] } as const;
    expect(() => commandFor(rosterEntrySchema.parse(e), v, 'start')).toThrow(/review-only/);
  });
});
