// slow: a whole milestone on the in-process bot with real git, its workspace on a small real tmpfs.
// A disk that fills up mid-attempt is the host's fault, never the issue's: the worker's failed write
// (ENOSPC in its log) ends the attempt as an environment failure naming the host and the path, the run
// parks with one notice saying so, a probe while the disk is still full (fs.statfs below
// runner.minFreeDiskMb) starts no worker and waits longer, and once space is back the same session
// goes on and the milestone finishes. The runner's own git on a full disk is read the same way.
import { existsSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { isDiskFull } from '../../src/runner/failure-class.ts';
import { plainJail } from '../../src/runner/jail.ts';
import { WorkerGit } from '../../src/runner/worker-git.ts';
import { survivedWork } from '../../src/runner/worktrees.ts';
import { gitIn, tempDir, testEnv } from '../support/git.ts';
import { mountTmpfs } from '../support/tmpfs.ts';
import {
  expectMilestoneFinished,
  startUnattendedWorld,
  type UnattendedWorld,
} from '../support/unattended-world.ts';

const disks: ReturnType<typeof mountTmpfs>[] = [];
let w: UnattendedWorld | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});
afterAll(() => {
  for (const d of disks.splice(0)) d.unmount();
});

const MiB = 1024 * 1024;

describe('a full disk on the runner’s workspace', () => {
  it('parks the run with one notice naming the host and path, probes with statfs, and resumes the same session once space is back', async () => {
    const disk = mountTmpfs(16 * MiB);
    disks.push(disk);
    const go = join(tempDir('disk-full-go-'), 'go');
    w = await startUnattendedWorld({
      forge: 'github',
      agentEnv: { FAKE_AGENT_GO_FILE: go, FAKE_AGENT_BIG_BYTES: String(2 * MiB) },
      runner: {
        workspace: join(disk.dir, 'workspace'),
        minFreeDiskMb: 4,
        environmentBackoff: { initialSeconds: 60, maxSeconds: 600 },
      },
    });
    const x = w;
    x.agent('disk-heavy');
    await x.start();
    // Mid-attempt: the worker is running when the disk fills, leaving less than its write needs.
    await x.drive(async () => {
      const run = await x.run();
      const attempts = run ? await x.h.bot.runs.ledger.listByRun(run.id) : [];
      return attempts.some((a) => a.pid !== undefined && a.outcome === undefined);
    });
    disk.fill(1 * MiB);
    writeFileSync(go, '');
    await x.drive(async () => (await x.run())?.progress.park !== undefined);

    const parked = (await x.run())!;
    const [attempt] = await x.h.bot.runs.ledger.listByRun(parked.id);
    expect(attempt!.outcome).toBe('environment_failure');
    expect(attempt!.failureSummary).toBe(
      `Environment failure: disk full on ${hostname()} at ${attempt!.worktree}.`,
    );
    expect(parked.state).toBe('paused');
    expect(parked.progress.park).toMatchObject({
      reason: `disk full on ${hostname()} at ${attempt!.worktree}`,
      failures: 1,
    });
    // A person is told once, with the host and the path; the issue is not charged.
    expect(x.noticesOf('parked')).toHaveLength(1);
    expect(JSON.stringify(x.noticesOf('parked')[0])).toContain(attempt!.worktree);
    expect(x.noticesOf('needs_person')).toHaveLength(0);

    // The wait passes with some room back, but less than runner.minFreeDiskMb: the probe (statfs)
    // starts no worker, and the wait doubles.
    disk.clear();
    disk.fill(1 * MiB);
    x.agent();
    x.clock.advance(61_000);
    await x.drive(async () => (await x.run())?.progress.park?.failures === 2, 20_000);
    expect((await x.run())!.state).toBe('paused');
    const probed = (await x.h.bot.runs.ledger.listByRun(parked.id)).find((a) => a.id === attempt!.id)!;
    expect(probed.launchedAt).toBe(attempt!.launchedAt);

    // Space is back: after the wait the same session goes on and the milestone finishes.
    disk.clear();
    x.clock.advance(121_000);
    await expectMilestoneFinished(x, [1, 2], [1, 2], { alerts: 1 });
    const attempts = await x.h.bot.runs.ledger.listByRun(parked.id);
    expect(attempts.filter((a) => a.issue.number === 1).map((a) => [a.id, a.outcome])).toEqual([
      [attempt!.id, 'solved'],
    ]);
  }, 120_000);

  it('the runner’s own git on a full disk says so in words the supervisor reads as a full disk', async () => {
    const disk = mountTmpfs(4 * MiB);
    disks.push(disk);
    const repo = join(disk.dir, 'repo');
    await gitIn(disk.dir, 'init', '--quiet', '-b', 'main', repo);
    writeFileSync(join(repo, 'a.txt'), 'a\n');
    await gitIn(repo, 'add', 'a.txt');
    await gitIn(repo, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '--quiet', '-m', 'a');
    await gitIn(repo, 'update-ref', 'refs/remotes/origin/main', 'HEAD');
    // The same content with a later mtime: git status must hash it and write the refreshed index.
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(repo, 'a.txt'), later, later);
    disk.fill(0);
    expect(existsSync(join(repo, '.git', 'index.lock'))).toBe(false);
    const wg = new WorkerGit(plainJail(undefined), testEnv());
    const err = await survivedWork(wg, wg.repoAt(repo), repo, 'main', 'main', { env: testEnv() }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect(isDiskFull((err as Error).message)).toBe(true);
  });
});
