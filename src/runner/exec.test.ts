import { describe, expect, it } from 'vitest';
import { tempDir, testEnv } from '../../test/support/git.ts';
import { redactArgv, redactText, run } from './exec.ts';

describe('run', () => {
  it('passes argv elements as they are, never through a shell', async () => {
    const res = await run(
      ['node', '-e', 'console.log(JSON.stringify(process.argv.slice(1)))', '; rm -rf /', '$(id)'],
      {
        cwd: tempDir(),
        env: testEnv(),
        timeoutMs: 10_000,
      },
    );
    expect(JSON.parse(res.stdout)).toEqual(['; rm -rf /', '$(id)']);
  });

  it('returns a non-zero exit as a result and a missing binary as tool_missing', async () => {
    const opts = { cwd: tempDir(), env: testEnv(), timeoutMs: 10_000 };
    expect((await run(['node', '-e', 'process.exit(5)'], opts)).exitCode).toBe(5);
    await expect(run(['definitely-not-a-binary-xyz'], opts)).rejects.toMatchObject({ code: 'tool_missing' });
  });

  it('stops on the cancel signal', async () => {
    const ac = new AbortController();
    const p = run(['node', '-e', 'setTimeout(()=>{},30000)'], {
      cwd: tempDir(),
      env: testEnv(),
      timeoutMs: 30_000,
      signal: ac.signal,
    });
    setTimeout(() => ac.abort(), 100);
    await expect(p).rejects.toMatchObject({ code: 'cancelled' });
  });
});

describe('redaction', () => {
  it('masks tokens in URLs, headers, key=value, known token shapes and after secret flags', () => {
    expect(redactText('https://user:pa55@github.com/o/r.git')).toBe('https://[redacted]@github.com/o/r.git');
    expect(redactText('Authorization: Bearer abc.def')).toBe('Authorization: Bearer [redacted]');
    expect(redactText('x?token=abc123&y=1')).toBe('x?token=[redacted]&y=1');
    expect(redactText('use ghp_abcdefghijklmnopqrstuvwxyz0123 now')).toBe('use [redacted] now');
    expect(redactArgv(['tool', '--api-key', 'sk-live-1', '--model', 'm'])).toEqual([
      'tool',
      '--api-key',
      '[redacted]',
      '--model',
      'm',
    ]);
    expect(redactArgv(['tool', 'pre-s3cr3t-value-post'], ['s3cr3t-value'])).toEqual([
      'tool',
      'pre-[redacted]-post',
    ]);
  });
});
