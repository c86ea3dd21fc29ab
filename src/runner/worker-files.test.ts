import { execFileSync } from 'node:child_process';
import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readExitFile, readTail } from './supervisor.ts';
import { readWorkerFile, workerFileStat } from './worker-files.ts';

const dir = () => mkdtempSync(join(tmpdir(), 'worker-files-'));

describe('reading what a worker wrote', () => {
  it('reads a regular file whole, or its tail', () => {
    const d = dir();
    writeFileSync(join(d, 'worker.log'), 'one\ntwo\nthree\n');
    expect(readWorkerFile(join(d, 'worker.log'))).toBe('one\ntwo\nthree\n');
    expect(readTail(join(d, 'worker.log'), 6)).toBe('three\n');
    expect(workerFileStat(join(d, 'worker.log'))?.size).toBe(14);
  });

  it('never follows a link the worker put in place of its log or exit record', () => {
    const d = dir();
    // What the bot must never read for a worker: here a file of the bot's, beside the attempt.
    const secret = join(d, 'bot-secret');
    writeFileSync(secret, 'GITEA_TOKEN=do-not-leak\n');
    writeFileSync(join(d, 'real-exit.json'), '{"exitCode":0}');
    symlinkSync(secret, join(d, 'worker.log'));
    symlinkSync(join(d, 'real-exit.json'), join(d, 'exit.json'));
    expect(readWorkerFile(join(d, 'worker.log'))).toBe('');
    expect(readTail(join(d, 'worker.log'), 100)).toBe('');
    expect(workerFileStat(join(d, 'worker.log'))).toBeUndefined();
    expect(readExitFile(join(d, 'exit.json'))).toBeUndefined();
  });

  it('reads a fifo in place of the log as nothing, without waiting for a writer', () => {
    const d = dir();
    const fifo = join(d, 'worker.log');
    execFileSync('mkfifo', [fifo]);
    // A blocking open would hang this test (and the bot's supervision tick) until the timeout.
    expect(readWorkerFile(fifo)).toBe('');
    expect(workerFileStat(fifo)).toBeUndefined();
  });

  it('reads a missing file as nothing', () => {
    expect(readWorkerFile(join(dir(), 'absent.log'))).toBe('');
  });
});
