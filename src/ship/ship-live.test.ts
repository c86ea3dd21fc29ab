import { describe, expect, it } from 'vitest';
import type { DeployOptions, DeployResult } from './deploy.ts';
import type { PollOptions, PollResult } from './health.ts';
import { deployLive, previewLive } from './ship-live.ts';

const deploy: DeployOptions = { argv: ['./deploy.sh'], workspaceRoot: '/w', cwd: '/w/x', timeoutMs: 1000 };
const deployed =
  (r: Partial<DeployResult> = {}) =>
  async () =>
    ({ ok: true, exitCode: 0, timedOut: false, tail: '', ...r }) satisfies DeployResult;

describe('deployLive', () => {
  it('polls the health URL after a green deploy and links the deploy URL once it answers', async () => {
    const polled: PollOptions[] = [];
    const r = await deployLive({
      deploy,
      healthUrl: 'https://app.example/healthz',
      deployUrl: 'https://app.example/',
      timeoutMs: 5000,
      runDeploy: deployed(),
      pollHealth: async (o): Promise<PollResult> => {
        polled.push(o);
        return { ok: true, url: o.url, status: 200, checks: 2 };
      },
    });
    expect(r).toEqual({ ok: true, url: 'https://app.example/' });
    expect(polled.map((p) => [p.url, p.timeoutMs])).toEqual([['https://app.example/healthz', 5000]]);
  });

  it('is a failure, naming why, when the health URL never answers 2xx', async () => {
    const r = await deployLive({
      deploy,
      healthUrl: 'https://app.example/healthz',
      timeoutMs: 1000,
      runDeploy: deployed(),
      pollHealth: async (o) => ({
        ok: false,
        url: o.url,
        error: 'https://app.example was unreachable',
        checks: 3,
      }),
    });
    expect(r).toEqual({
      ok: false,
      error: 'the deploy finished but is not healthy: https://app.example was unreachable',
    });
  });

  it('never polls after a failed deploy, and keeps its tail', async () => {
    let polls = 0;
    const r = await deployLive({
      deploy,
      healthUrl: 'https://app.example/healthz',
      timeoutMs: 1000,
      runDeploy: deployed({ ok: false, exitCode: 2, tail: 'boom', error: 'deploy exited with code 2' }),
      pollHealth: async (o) => {
        polls++;
        return { ok: true, url: o.url, status: 200, checks: 1 };
      },
    });
    expect(r).toEqual({ ok: false, error: 'deploy exited with code 2', tail: 'boom' });
    expect(polls).toBe(0);
  });

  it('without a health URL names the deploy URL as unchecked, never as live', async () => {
    expect(
      await deployLive({ deploy, deployUrl: 'https://a.example', timeoutMs: 1, runDeploy: deployed() }),
    ).toEqual({ ok: true, unchecked: 'https://a.example' });
    expect(await deployLive({ deploy, timeoutMs: 1, runDeploy: deployed() })).toEqual({ ok: true });
  });
});

describe('previewLive', () => {
  const preview = {
    argv: ['npm', 'run', 'dev'],
    port: 5173,
    workspaceRoot: '/w',
    worktree: '/w/x',
    logFile: '/w/p.log',
    env: {},
    readyTimeoutMs: 1000,
  };
  it('links the URL of a preview that answered', async () => {
    const r = await previewLive({
      preview,
      startPreviewWhenReady: async () => ({ ok: true, pid: 9, url: 'http://10.0.0.2:5173' }),
    });
    expect(r).toEqual({ ok: true, url: 'http://10.0.0.2:5173' });
  });

  it('a preview that never listens is a failure with its log tail, not ready', async () => {
    const r = await previewLive({
      preview,
      startPreviewWhenReady: async () => ({
        ok: false,
        error: 'not ready: did not answer',
        tail: 'listening?',
      }),
    });
    expect(r).toEqual({ ok: false, error: 'not ready: did not answer', tail: 'listening?' });
  });
});
