// The bot restarts mid-attempt: the supervising process is killed, the detached worker keeps going,
// and a new supervisor re-attaches it by pid (checking it is really ours) and records its result.
// Killed before the worker started (the attempt recorded, its setup under way), the attempt has no
// worker to re-attach: the new supervisor ends it at once, named, instead of leaving its issue hanging.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isAlive, killGroup, processStartTime, spawnDetached } from '../../src/runner/exec.ts';
import { JsonFileAttemptLedger } from '../../src/runner/ledger.ts';
import { isOurWorker, setterGone, thisProcess } from '../../src/runner/supervisor.ts';
import type { AttemptLedger } from '../../src/runner/types.ts';
import { openRunStore } from '../../src/store/open-store.ts';
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

/** A real process killed with SIGKILL: its pid and start time, as a dead setter's record names it. */
const killedProcess = async (dir: string): Promise<{ pid: number; startTime: string }> => {
  let exited: () => void = () => {};
  const gone = new Promise<void>((r) => {
    exited = r;
  });
  const { pid } = spawnDetached([process.execPath, '-e', 'setInterval(() => {}, 1000)'], {
    cwd: dir,
    env: testEnv(),
    logFile: join(dir, 'setter.log'),
    onExit: () => exited(),
  });
  const startTime = await until('the setter process started', () => processStartTime(pid));
  process.kill(pid, 'SIGKILL');
  await gone;
  return { pid, startTime };
};

describe('bot killed after recording an attempt, before its worker started', () => {
  it('ends the pid-less attempt at once on restart as lost before start, not after the timeout', async () => {
    const origin = await createOrigin();
    const dir = tempDir('blitz-orphan-');
    const workspace = join(dir, 'ws');
    const store = await openRunStore(`sqlite:${join(dir, 'blitz.db')}`);
    let stray: { pid: number } | undefined;
    try {
      // The first bot: its setup stops for good where the worktree is recorded (as a kill -9 there
      // would), so the real start path leaves the attempt open with no repoDir, worktree or pid.
      const stuck: AttemptLedger = {
        ...store.ledger,
        update: (id, patch) =>
          'repoDir' in patch ? new Promise<never>(() => {}) : store.ledger.update(id, patch),
      };
      const first = makeHarness({ workspace, ledger: stuck });
      void first.runner.execute(attemptJob(origin.url, fakeEntry()));
      const [open] = await until('the attempt recorded', async () => {
        const rows = await store.ledger.listOpen();
        return rows.length > 0 ? rows : undefined;
      });
      expect(open).toMatchObject({ repoDir: '', worktree: '', setupBy: thisProcess() });
      expect(open!.pid).toBeUndefined();

      // While its setter lives (here: this very process), a restarted supervisor leaves it alone.
      const second = makeHarness({ workspace, ledger: store.ledger });
      await second.runner.reattach();
      expect((await store.ledger.get(open!.id))?.outcome).toBeUndefined();

      // The setter had spawned the worker wrapper (argv naming the exit file) but not recorded its pid.
      const worker = spawnDetached([process.execPath, '-e', 'setInterval(() => {}, 1000)', open!.exitPath], {
        cwd: dir,
        env: testEnv(),
        logFile: join(dir, 'stray.log'),
      });
      stray = worker;
      await until('the stray worker started', () => processStartTime(worker.pid));

      // The setter killed with SIGKILL: the next supervisor ends it at once, its clock not moved on.
      const dead = await killedProcess(dir);
      expect(setterGone(dead)).toBe(true);
      await store.ledger.update(open!.id, { setupBy: dead });
      const third = makeHarness({ workspace, ledger: store.ledger });
      await third.runner.reattach();
      const ended = await store.ledger.get(open!.id);
      expect(ended).toMatchObject({
        outcome: 'environment_failure',
        failureCause: { kind: 'lost_before_start' },
        endedAt: third.clock.now().toISOString(),
      });
      expect(ended?.failureSummary).toContain(`pid ${dead.pid}`);
      expect(third.events).toContainEqual(
        expect.objectContaining({
          type: 'attempt.finished',
          attemptId: open!.id,
          outcome: 'environment_failure',
        }),
      );
      expect(await store.ledger.listOpen()).toEqual([]);
      // No worker of it runs on unsupervised.
      await until('the stray worker stopped', () => !isAlive(worker.pid));
    } finally {
      if (stray && isAlive(stray.pid)) killGroup(stray.pid, 'SIGKILL');
      await store.close();
    }
  });

  it('takes a live pid with another start time for a dead setter, and an unknown setter for alive', () => {
    const me = thisProcess();
    expect(setterGone(me)).toBe(false);
    expect(setterGone({ pid: me.pid, startTime: '1' })).toBe(true);
    expect(setterGone(undefined)).toBe(false);
  });
});
