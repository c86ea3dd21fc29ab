// The bot restarts mid-attempt: the supervising process is killed, the detached worker keeps going,
// and a new supervisor re-attaches it by pid (checking it is really ours) and records its result.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isAlive, spawnDetached } from '../../src/runner/exec.ts';
import { JsonFileAttemptLedger } from '../../src/runner/ledger.ts';
import { isOurWorker } from '../../src/runner/supervisor.ts';
import { createOrigin, originFile, tempDir, testEnv } from '../support/git.ts';
import { attemptJob, fakeEntry, makeHarness, settle } from '../support/runner-harness.ts';
import { until } from '../support/until.ts';

const waitForLine = async (
  file: string,
  key: string,
  timeoutMs = 20_000,
): Promise<Record<string, unknown>> => {
  // The line is written by the host process, whose log is all the test sees of it.
  const line = await until(
    `a ${key} line in ${file}`,
    () =>
      existsSync(file)
        ? readFileSync(file, 'utf8')
            .split('\n')
            .find((l) => l.includes(`"${key}"`))
        : undefined,
    { timeoutMs, everyMs: 100, detail: () => (existsSync(file) ? readFileSync(file, 'utf8') : '') },
  );
  return JSON.parse(line);
};

describe('supervisor restart', () => {
  it('re-attaches a live worker after the supervising process is killed, and records its exit', async () => {
    const origin = await createOrigin();
    const dir = tempDir('blitz-restart-');
    const workspace = join(dir, 'ws');
    const ledgerFile = join(dir, 'ledger.json');
    const hostLog = join(dir, 'host.log');
    const spec = {
      workspace,
      ledgerFile,
      job: attemptJob(origin.url, fakeEntry({ FAKE_AGENT_MODE: 'slow-push', FAKE_AGENT_DELAY_MS: '4000' })),
      baseEnv: testEnv(),
    };
    // Compiled JavaScript (dist/), as the bot runs: no tsx start-up in the way of the worker's 4 s.
    let hostExited: () => void = () => {};
    const hostGone = new Promise<void>((r) => {
      hostExited = r;
    });
    const host = spawnDetached(
      [process.execPath, resolve('test/integration/runner-host.mjs'), JSON.stringify(spec)],
      {
        cwd: resolve('.'),
        env: testEnv(),
        logFile: hostLog,
        onExit: () => hostExited(),
      },
    );
    const started = await waitForLine(hostLog, 'attemptId');
    const attemptId = String(started.attemptId);
    const workerPid = Number(started.pid);

    process.kill(host.pid, 'SIGKILL');
    await hostGone;
    expect(isAlive(host.pid)).toBe(false);
    expect(isAlive(workerPid)).toBe(true);

    const ledger = new JsonFileAttemptLedger(ledgerFile);
    const open = await ledger.get(attemptId);
    expect(open?.outcome).toBeUndefined();
    expect(open?.pidStartTime).toMatch(/^\d+$/);
    expect(isOurWorker(open!)).toBe(true);
    expect(isOurWorker({ ...open!, exitPath: join(dir, 'someone-else', 'exit.json') })).toBe(false);
    // The same pid with another start time is a reused pid: not ours.
    expect(isOurWorker({ ...open!, pidStartTime: '1' })).toBe(false);
    expect(isOurWorker({ ...open!, exitPath: '' })).toBe(false);

    // The re-attached worker's exit is told at once (its exit file is watched), with no tick between.
    let told: (id: string) => void = () => {};
    const exitTold = new Promise<string>((r) => {
      told = r;
    });
    const h = makeHarness({ workspace, ledger, onWorkerExit: (id) => told(id) });
    await h.runner.reattach();
    expect(h.events.some((e) => e.type === 'attempt.started' || e.type === 'attempt.resumed')).toBe(false);
    expect(await exitTold).toBe(attemptId);
    expect(existsSync(open!.exitPath)).toBe(true);
    const done = await settle(h, attemptId, 30_000);
    expect(done).toMatchObject({ outcome: 'solved', exitCode: 0, pid: workerPid, nudges: 0 });
    expect(await originFile(origin.url, done.branch, 'fake-7.txt')).toContain('done by fake agent');
    expect((await new JsonFileAttemptLedger(ledgerFile).get(attemptId))?.outcome).toBe('solved');
  });
});
