import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir, testEnv } from '../../test/support/git.ts';
import { BuildGate, Semaphore } from './build-gate.ts';

describe('build gate', () => {
  it('runs commands one at a time with concurrency 1', async () => {
    const dir = tempDir('blitz-gate-');
    const trace = join(dir, 'trace');
    const step = (name: string) => [
      'node',
      '-e',
      `const fs=require('fs');fs.appendFileSync(${JSON.stringify(trace)},'start ${name}\\n');setTimeout(()=>fs.appendFileSync(${JSON.stringify(trace)},'end ${name}\\n'),150)`,
    ];
    const gate = new BuildGate(1);
    const opts = { cwd: dir, env: testEnv(), timeoutMs: 10_000 };
    await Promise.all([gate.run(step('a'), opts), gate.run(step('b'), opts)]);
    expect(readFileSync(trace, 'utf8').trim().split('\n')).toEqual(['start a', 'end a', 'start b', 'end b']);
  });

  it('keeps the exit code and only the last 200 lines of output', async () => {
    const gate = new BuildGate(1);
    const res = await gate.run(
      ['node', '-e', 'for(let i=1;i<=500;i++)console.log("line "+i);process.exitCode=3'],
      {
        cwd: tempDir(),
        env: testEnv(),
        timeoutMs: 10_000,
      },
    );
    expect(res.exitCode).toBe(3);
    const lines = res.tail.split('\n');
    expect(lines).toHaveLength(200);
    expect(lines[0]).toBe('line 301');
    expect(lines.at(-1)).toBe('line 500');
  });

  it('stops a command that runs past its timeout', async () => {
    const res = await new BuildGate(1).run(['node', '-e', 'setTimeout(()=>{},60000)'], {
      cwd: tempDir(),
      env: testEnv(),
      timeoutMs: 300,
    });
    expect(res.timedOut).toBe(true);
    expect(res.exitCode).not.toBe(0);
  });

  it('reports a missing build binary as exit 127 with its name', async () => {
    const res = await new BuildGate(1).run(['no-such-build-tool-xyz'], {
      cwd: tempDir(),
      env: testEnv(),
      timeoutMs: 5000,
    });
    expect(res).toMatchObject({ exitCode: 127, tail: 'Command not found: no-such-build-tool-xyz' });
  });

  it('semaphore never runs more than its slots at once', async () => {
    const s = new Semaphore(2);
    let peak = 0;
    const release: (() => void)[] = [];
    const jobs = [1, 2, 3, 4].map(() =>
      s.use(async () => {
        peak = Math.max(peak, s.inUse);
        await new Promise<void>((r) => release.push(r));
      }),
    );
    while (release.length < 2) await new Promise((r) => setImmediate(r));
    expect(release).toHaveLength(2);
    while (release.length) {
      release.shift()!();
      await new Promise((r) => setImmediate(r));
    }
    await Promise.all(jobs);
    expect(peak).toBe(2);
  });
});
