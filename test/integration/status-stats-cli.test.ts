// `blitz-bot stats` through the real CLI entry (dist/main.js, as the bin runs it) over a real SQLite file seeded with
// the finished run, and STATUS_TOKEN's rules in the environment schema.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadEnv } from '../../src/config/env.ts';
import { run } from '../../src/runner/exec.ts';
import { runStatsCli } from '../../src/status/stats-command.ts';
import { openSqliteRunStore } from '../../src/store/sqlite-run-store.ts';
import { finishedRunId, liveRunId, seedFinishedRun } from '../fixtures/runs/finished-run.ts';
import { blitzBotArgv } from '../support/cli.ts';
import { removeDir, tempDir } from '../support/git.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) removeDir(d);
});

const seeded = async (): Promise<string> => {
  const dir = tempDir('blitz-stats-');
  dirs.push(dir);
  const file = join(dir, 'blitz.db');
  const runs = openSqliteRunStore(file);
  await seedFinishedRun(runs);
  await runs.close();
  return file;
};

const capture = () => {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t) } };
};

describe('blitz-bot stats', () => {
  it('prints pass rates with the band marked and the waiting issues, from the real CLI entry', async () => {
    const file = await seeded();
    const res = await run(blitzBotArgv('stats', '--run', finishedRunId), {
      cwd: process.cwd(),
      env: { PATH: process.env.PATH, DATABASE_URL: `sqlite:${file}`, LOG_LEVEL: 'silent' },
      timeoutMs: 60_000,
    });
    expect(res.stderr).toBe('');
    expect(res.exitCode).toBe(0);
    expect(res.stdout).toContain(
      'attempts: 9 (solved 2, unsolved 5, stalled 1, environment 1, cancelled 0, running 0)',
    );
    expect(res.stdout).toMatch(/local-qwen\s+aider\s+execution\s+4\s+1\/4\s+25 % \*/);
    expect(res.stdout).toContain('unsolved, waiting: 2');
  });

  it('answers JSON for one run, and an empty run has no attempts', async () => {
    const file = await seeded();
    const c = capture();
    expect(
      await runStatsCli(['--run', liveRunId, '--json'], { ...c.io, env: { DATABASE_URL: `sqlite:${file}` } }),
    ).toBe(0);
    expect(JSON.parse(c.out.join(''))).toMatchObject({ attempts: 0, rows: [], waiting: [] });
  });

  it('refuses unknown flags and unknown runs with a clear message and no output', async () => {
    const file = await seeded();
    const bad = capture();
    expect(await runStatsCli(['--bogus'], { ...bad.io, env: { DATABASE_URL: `sqlite:${file}` } })).toBe(2);
    expect(bad.err.join('')).toContain('usage: blitz-bot stats');
    expect(bad.out).toEqual([]);
    const missing = capture();
    expect(
      await runStatsCli(['--run', 'nope'], { ...missing.io, env: { DATABASE_URL: `sqlite:${file}` } }),
    ).toBe(1);
    expect(missing.err).toEqual(['no run "nope" in the database']);
    const badUrl = capture();
    expect(await runStatsCli([], { ...badUrl.io, env: { DATABASE_URL: 'mysql://x' } })).toBe(1);
    expect(badUrl.err.join('')).toContain('DATABASE_URL');
  });
});

describe('STATUS_TOKEN', () => {
  it('is off when unset or blank, kept when long enough, refused when short', () => {
    expect(loadEnv({}).STATUS_TOKEN).toBeUndefined();
    expect(loadEnv({ STATUS_TOKEN: '  ' }).STATUS_TOKEN).toBeUndefined();
    expect(loadEnv({ STATUS_TOKEN: 'a-long-enough-token' }).STATUS_TOKEN).toBe('a-long-enough-token');
    expect(() => loadEnv({ STATUS_TOKEN: 'short' })).toThrow(/STATUS_TOKEN: must be at least 16 characters/);
  });
});
