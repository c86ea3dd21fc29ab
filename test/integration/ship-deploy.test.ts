// The deploy path with real processes: scripts in a temp workspace that print, fail, hang and leak a
// secret, run through the exec choke point.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDeploy } from '../../src/ship/deploy.ts';

let workspace: string;
let worktree: string;
const node = process.execPath;
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };

const script = (name: string, code: string): string => {
  const file = join(worktree, name);
  writeFileSync(file, code);
  return file;
};

beforeAll(() => {
  workspace = mkdtempSync(join(tmpdir(), 'blitz-deploy-'));
  worktree = join(workspace, 'acme', 'shop-blitz-m1');
  mkdirSync(worktree, { recursive: true });
});
afterAll(() => rmSync(workspace, { recursive: true, force: true }));

describe('runDeploy', () => {
  it('reports success with only the last lines of output', async () => {
    const file = script('ok.mjs', 'for (let i = 1; i <= 50; i++) console.log("step " + i);');
    const res = await runDeploy({
      argv: [node, file],
      workspaceRoot: workspace,
      cwd: worktree,
      env,
      timeoutMs: 10_000,
    });
    expect(res.ok).toBe(true);
    expect(res.exitCode).toBe(0);
    const lines = res.tail.split('\n');
    expect(lines).toHaveLength(20);
    expect(lines[0]).toBe('step 31');
    expect(lines.at(-1)).toBe('step 50');
  });

  it('reports a non-zero exit with its code and the stderr tail', async () => {
    const file = script(
      'fail.mjs',
      'console.log("building"); console.error("registry refused the image"); process.exit(3);',
    );
    const res = await runDeploy({
      argv: [node, file],
      workspaceRoot: workspace,
      cwd: worktree,
      env,
      timeoutMs: 10_000,
    });
    expect(res).toMatchObject({
      ok: false,
      exitCode: 3,
      timedOut: false,
      error: 'deploy exited with code 3',
    });
    expect(res.tail).toBe('building\n--- stderr ---\nregistry refused the image');
  });

  it('stops a deploy that outlives its timeout', async () => {
    const file = script('hang.mjs', 'console.log("waiting for health"); setTimeout(() => {}, 60_000);');
    const res = await runDeploy({
      argv: [node, file],
      workspaceRoot: workspace,
      cwd: worktree,
      env,
      timeoutMs: 500,
    });
    expect(res).toMatchObject({ ok: false, timedOut: true });
    expect(res.error).toContain('did not finish');
  });

  it('masks a secret the deploy prints', async () => {
    const secret = 'dpl_9f8e7d6c5b4a39281706';
    const file = script('leak.mjs', 'console.log("using token " + process.env.DEPLOY_TOKEN);');
    const res = await runDeploy({
      argv: [node, file],
      workspaceRoot: workspace,
      cwd: worktree,
      env: { ...env, DEPLOY_TOKEN: secret },
      secrets: [secret],
      timeoutMs: 10_000,
    });
    expect(res.ok).toBe(true);
    expect(res.tail).toBe('using token [redacted]');
  });

  it('refuses a working directory outside the workspace and runs nothing', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'blitz-outside-'));
    const marker = join(outside, 'ran');
    const file = script('touch.mjs', `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'x');`);
    try {
      const res = await runDeploy({
        argv: [node, file],
        workspaceRoot: workspace,
        cwd: outside,
        env,
        timeoutMs: 10_000,
      });
      expect(res.ok).toBe(false);
      expect(res.error).toMatch(/outside the workspace/);
      expect(existsSync(marker)).toBe(false);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('reports a missing deploy tool and an empty command as values', async () => {
    const missing = await runDeploy({
      argv: ['./no-such-deploy-script.sh'],
      workspaceRoot: workspace,
      cwd: worktree,
      env,
      timeoutMs: 10_000,
    });
    expect(missing).toMatchObject({ ok: false, exitCode: null });
    expect(missing.error).toMatch(/not found/i);
    const empty = await runDeploy({
      argv: [],
      workspaceRoot: workspace,
      cwd: worktree,
      env,
      timeoutMs: 10_000,
    });
    expect(empty).toMatchObject({ ok: false, error: 'No ship.deploy command is configured.' });
  });

  it('stops when the run is cancelled', async () => {
    const file = script('slow.mjs', 'setTimeout(() => {}, 60_000);');
    const ac = new AbortController();
    const pending = runDeploy({
      argv: [node, file],
      workspaceRoot: workspace,
      cwd: worktree,
      env,
      timeoutMs: 30_000,
      signal: ac.signal,
    });
    // Kept: the cancel lands while the deploy hangs its 60 s (a later one too); nothing is waited on.
    setTimeout(() => ac.abort(), 200);
    const res = await pending;
    expect(res.ok).toBe(false);
    expect(res.error).toMatch(/cancelled/i);
  });
});
