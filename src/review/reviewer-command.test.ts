import { describe, expect, it } from 'vitest';
import { parseBlitzConfig } from '../config/blitz-config.ts';
import { isAppError } from '../errors.ts';
import { reviewCommand } from './reviewer-command.ts';

const entry = (e: object) =>
  parseBlitzConfig(JSON.stringify({ roster: [{ roles: ['review'], tiers: ['execution'], ...e }] }))
    .roster[0]!;
const v = {
  promptFile: '/tmp/r/review-prompt.md',
  worktree: '/tmp/r',
  branch: 'ticket/1-headless',
  baseBranch: 'main',
  issue: 7,
  repo: 'acme/app',
};

describe('reviewCommand', () => {
  it('runs claude headless, text out, with editing and shell tools denied, prompt on stdin', () => {
    const c = reviewCommand(entry({ name: 'c', tool: 'claude', model: 'opus' }), v, 'PROMPT');
    expect(c.argv.slice(0, 4)).toEqual(['claude', '-p', '--output-format', 'text']);
    expect(c.argv[c.argv.indexOf('--disallowedTools') + 1]).toMatch(/^Bash,Edit,.*Write/);
    expect(c.argv).toContain('opus');
    expect(c.argv).not.toContain('acceptEdits');
    expect(c.input).toBe('PROMPT');
  });

  it('runs codex exec in the read-only sandbox outside a git repo, reading stdin', () => {
    const c = reviewCommand(entry({ name: 'x', tool: 'codex' }), v, 'P');
    expect(c.argv).toEqual(['codex', 'exec', '--sandbox', 'read-only', '--skip-git-repo-check', '-']);
  });

  it('substitutes a custom template element by element, so a value never splits into arguments', () => {
    const c = reviewCommand(
      entry({
        name: 'k',
        tool: 'custom',
        command: ['node', 'rev.mjs', '{prompt_file}', '--repo={repo}'],
        resume: ['node'],
      }),
      { ...v, promptFile: '/tmp/a b; rm -rf ~' },
      'P',
    );
    expect(c.argv).toEqual(['node', 'rev.mjs', '/tmp/a b; rm -rf ~', '--repo=acme/app']);
  });

  it('refuses to build a command for an ollama entry, which is reached over HTTP', () => {
    let err: unknown;
    try {
      reviewCommand(entry({ name: 'o', tool: 'ollama', model: 'qwen' }), v, 'P');
    } catch (e) {
      err = e;
    }
    expect(isAppError(err, 'bad_request')).toBe(true);
  });
});
