import { describe, expect, it } from 'vitest';
import { type RosterEntry, rosterEntrySchema } from '../../config/blitz-config.ts';
import { commandFor } from './index.ts';
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

  it('claude resumes the same session with --continue', () => {
    expect(commandFor(entry({ tool: 'claude' }), v, 'resume')!.argv).toContain('--continue');
  });

  it('codex uses exec --json --full-auto and resumes with exec … resume --last', () => {
    const start = commandFor(entry({ tool: 'codex', model: 'gpt-5', effort: 'medium' }), v, 'start')!.argv;
    expect(start.slice(0, 4)).toEqual(['codex', 'exec', '--json', '--full-auto']);
    expect(start).toEqual(expect.arrayContaining(['--model', 'gpt-5', 'model_reasoning_effort=medium']));
    const resume = commandFor(entry({ tool: 'codex' }), v, 'resume')!.argv;
    expect(resume.slice(-3)).toEqual(['resume', '--last', '-']);
  });

  it('opencode runs `run --model provider/model`', () => {
    const argv = commandFor(
      entry({ tool: 'opencode', provider: 'anthropic', model: 'sonnet' }),
      v,
      'start',
    )!.argv;
    expect(argv.slice(0, 4)).toEqual(['opencode', 'run', '--model', 'anthropic/sonnet']);
    expect(argv.at(-1)).toContain(v.promptFile);
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
