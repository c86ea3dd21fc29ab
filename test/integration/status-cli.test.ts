// `blitz-bot status` through the real CLI entry over a real SQLite file seeded with a finished and a
// live run: the live runs only, as text or as the JSON /api/v1/runs?live=true answers.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { run } from '../../src/runner/exec.ts';
import { buildStats } from '../../src/status/api-data.ts';
import { runListSchema, statsSchema } from '../../src/status/api-schemas.ts';
import { runStatsCli } from '../../src/status/stats-command.ts';
import { runStatusCli } from '../../src/status/status-command.ts';
import { openSqliteRunStore } from '../../src/store/sqlite-run-store.ts';
import { finishedRunId, liveRunId, seedFinishedRun } from '../fixtures/runs/finished-run.ts';
import { blitzBotArgv } from '../support/cli.ts';
import { removeDir, tempDir } from '../support/git.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) removeDir(d);
});

const seeded = async (seed = true): Promise<string> => {
  const dir = tempDir('blitz-status-cli-');
  dirs.push(dir);
  const file = join(dir, 'blitz.db');
  const runs = openSqliteRunStore(file);
  if (seed) await seedFinishedRun(runs);
  await runs.close();
  return file;
};

const capture = () => {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t) } };
};

describe('blitz-bot status', () => {
  it('prints the live runs, not the finished ones, from the real CLI entry', async () => {
    const file = await seeded();
    // The compiled entry, as the `blitz-bot` bin runs it (dist/main.js).
    const res = await run(blitzBotArgv('status'), {
      cwd: process.cwd(),
      env: { PATH: process.env.PATH, DATABASE_URL: `sqlite:${file}`, LOG_LEVEL: 'silent' },
      timeoutMs: 60_000,
    });
    expect(res.stderr).toBe('');
    expect(res.exitCode).toBe(0);
    expect(res.stdout).toContain('live runs: 1');
    expect(res.stdout).toMatch(
      new RegExp(`${liveRunId}\\s+blitz\\s+gitea:acme/api\\s+M2\\s+running\\s+1/2 done`),
    );
    expect(res.stdout).not.toContain(finishedRunId);
  });

  it('prints with --json what /api/v1/runs?live=true answers', async () => {
    const file = await seeded();
    const c = capture();
    expect(await runStatusCli(['--json'], { ...c.io, env: { DATABASE_URL: `sqlite:${file}` } })).toBe(0);
    const body = runListSchema.parse(JSON.parse(c.out.join('')));
    expect(body.runs.map((r) => [r.id, r.live, r.issues])).toEqual([
      [liveRunId, true, { done: 1, total: 2 }],
    ]);
  });

  it('stats --json prints what /api/v1/stats answers', async () => {
    const file = await seeded();
    const c = capture();
    expect(await runStatsCli(['--json'], { ...c.io, env: { DATABASE_URL: `sqlite:${file}` } })).toBe(0);
    const printed = statsSchema.parse(JSON.parse(c.out.join('')));
    const runs = openSqliteRunStore(file);
    try {
      expect(printed).toEqual(await buildStats({ runs, ledger: runs.ledger }));
      expect(printed.attempts).toBe(9);
    } finally {
      await runs.close();
    }
  });

  it('says so when nothing is live, and refuses an unknown flag with the usage', async () => {
    const file = await seeded(false);
    const c = capture();
    expect(await runStatusCli([], { ...c.io, env: { DATABASE_URL: `sqlite:${file}` } })).toBe(0);
    expect(c.out).toEqual(['no live runs']);
    const bad = capture();
    expect(await runStatusCli(['--all'], { ...bad.io, env: { DATABASE_URL: `sqlite:${file}` } })).toBe(2);
    expect(bad.out).toEqual([]);
    expect(bad.err.join('\n')).toContain('usage: blitz-bot status [--json]');
  });
});
