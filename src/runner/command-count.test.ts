// The commands the bot started, counted by kind for the scale bench (command-count.ts).
import { describe, expect, it } from 'vitest';
import { commandKind } from './command-count.ts';

describe('commandKind', () => {
  it('names git by its subcommand, past command-scope settings and -C', () => {
    expect(commandKind(['git', 'fetch', '--quiet', 'origin'])).toBe('git fetch');
    expect(commandKind(['git', '-c', 'transfer.fsckObjects=true', 'fetch', 'x.bundle'])).toBe('git fetch');
    expect(commandKind(['/usr/bin/git', '-C', '/w/r', 'rev-parse', 'HEAD'])).toBe('git rev-parse');
  });

  it('names any other program by its file name alone, never its arguments or directory', () => {
    expect(commandKind(['/opt/tools/claude', '-p', '--token', 'secret'])).toBe('claude');
    expect(commandKind(['bwrap', '--ro-bind', '/', '/', 'git', 'status'])).toBe('bwrap');
  });
});
