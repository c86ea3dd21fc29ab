import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir, testEnv } from '../../test/support/git.ts';
import { until } from '../../test/support/until.ts';
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

  it('gives the input on stdin, and stdout and stderr back whole, multi-byte text across chunks', async () => {
    const res = await run(
      [
        'node',
        '-e',
        "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{process.stdout.write(s.toUpperCase()+'é'.repeat(70000));process.stderr.write('warn\\n')})",
      ],
      { cwd: tempDir(), env: testEnv(), timeoutMs: 10_000, input: 'ref a\nref b\n' },
    );
    expect(res).toMatchObject({ exitCode: 0, stderr: 'warn\n', timedOut: false });
    expect(res.stdout).toBe(`REF A\nREF B\n${'é'.repeat(70000)}`);
  });

  it('writes stdout to stdoutFile (created or truncated), not into the result', async () => {
    const dir = tempDir();
    const file = join(dir, 'out.bin');
    writeFileSync(file, 'an older, longer content');
    const res = await run(['node', '-e', "process.stdout.write('new')"], {
      cwd: dir,
      env: testEnv(),
      timeoutMs: 10_000,
      stdoutFile: file,
    });
    expect(res).toMatchObject({ exitCode: 0, stdout: '' });
    expect(readFileSync(file, 'utf8')).toBe('new');
  });

  it('a file that cannot be started (not executable) is a failed result, not tool_missing', async () => {
    const dir = tempDir();
    const script = join(dir, 'not-executable');
    writeFileSync(script, '#!/bin/sh\nexit 0\n', { mode: 0o644 });
    const res = await run([script], { cwd: dir, env: testEnv(), timeoutMs: 10_000 });
    expect(res.exitCode).not.toBe(0);
    expect(res.stderr).toMatch(/EACCES/);
  });

  it('with the host off, the same: a missing binary is tool_missing and a command runs here', async () => {
    process.env.BLITZ_SPAWN_HOST = 'off';
    try {
      const opts = { cwd: tempDir(), env: testEnv(), timeoutMs: 10_000 };
      await expect(run(['definitely-not-a-binary-xyz'], opts)).rejects.toMatchObject({
        code: 'tool_missing',
      });
      expect((await run(['node', '-e', 'process.stdout.write(String(process.ppid))'], opts)).stdout).toBe(
        String(process.pid),
      );
    } finally {
      delete process.env.BLITZ_SPAWN_HOST;
    }
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

/** Running, not a zombie waiting to be reaped (a container's init may reap late). */
const running = (pid: number): boolean => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

// A command that starts a sleeping grandchild (sharing its stdout) and writes the grandchild's pid.
const withGrandchild = (pidFile: string): string[] => [
  'node',
  '-e',
  `const { spawn } = require('node:child_process');
   const g = spawn('node', ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'inherit' });
   require('node:fs').writeFileSync(${JSON.stringify(pidFile)}, String(g.pid));
   setTimeout(() => {}, 60000);`,
];

describe('run stops the whole process group', () => {
  it('on timeout, the grandchild a command started is gone too', async () => {
    const dir = tempDir();
    const pidFile = join(dir, 'grandchild.pid');
    const res = await run(withGrandchild(pidFile), { cwd: dir, env: testEnv(), timeoutMs: 1500 });
    expect(res.timedOut).toBe(true);
    expect(res.exitCode).toBe(124);
    const grandchild = Number(readFileSync(pidFile, 'utf8'));
    expect(grandchild).toBeGreaterThan(0);
    await until('the grandchild gone', () => !running(grandchild), { timeoutMs: 5_000 });
  });

  it('on cancel, the grandchild is gone too and the call says cancelled', async () => {
    const dir = tempDir();
    const pidFile = join(dir, 'grandchild.pid');
    const ac = new AbortController();
    const p = run(withGrandchild(pidFile), {
      cwd: dir,
      env: testEnv(),
      timeoutMs: 60_000,
      signal: ac.signal,
    });
    await until('the grandchild started', () => existsSync(pidFile) && readFileSync(pidFile, 'utf8') !== '', {
      timeoutMs: 5_000,
    });
    ac.abort();
    await expect(p).rejects.toMatchObject({ code: 'cancelled' });
    const grandchild = Number(readFileSync(pidFile, 'utf8'));
    await until('the grandchild gone', () => !running(grandchild), { timeoutMs: 5_000 });
  });
});

describe('redaction', () => {
  it('masks tokens in URLs, headers, key=value, known token shapes and after secret flags', () => {
    expect(redactText('https://user:pa55@github.com/o/r.git')).toBe('https://[redacted]@github.com/o/r.git');
    expect(redactText('Authorization: Bearer abc.def')).toBe('Authorization: Bearer [redacted]');
    expect(redactText('x?token=abc123&y=1')).toBe('x?token=[redacted]&y=1');
    expect(redactText('postgres://blitz:pw@db:5432/blitz?schema=b')).toBe(
      'postgres://[redacted]@db:5432/blitz?schema=b',
    );
    expect(redactText('redis://:pw@cache:6379')).toBe('redis://[redacted]@cache:6379');
    expect(redactText('https://h/x?access_token=abc&sig=s1#f')).toBe(
      'https://h/x?access_token=[redacted]&sig=[redacted]#f',
    );
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
