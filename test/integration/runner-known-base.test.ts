// A job that carries the base commit the bot expects starts without a fetch when the runner's clone
// already tracks origin's base branch at that commit and knows nothing of the attempt's branch; every
// other job fetches as before. The git the runner starts is a logging wrapper in front of the real
// one (the runner's PATH), so each fetch it runs is counted, and origin is a real bare repository.
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunnerJob } from '../../src/runner/types.ts';
import { commitAndPush, createOrigin, gitIn, type Origin, removeDir, tempDir } from '../support/git.ts';
import { attemptJob, fakeEntry, type Harness, makeHarness } from '../support/runner-harness.ts';

let origin: Origin;
let h: Harness;
let log: string;
let credentialsAsked: number;
const started: string[] = [];

/** A directory holding `git`, which appends its argv to `log` and runs the real git. */
const loggingGit = (logFile: string): string => {
  const dir = tempDir('blitz-gitlog-');
  const realGit = ['/usr/bin/git', '/bin/git', '/usr/local/bin/git'].find((p) => existsSync(p));
  if (!realGit) throw new Error('no git binary found');
  writeFileSync(join(dir, 'git'), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${logFile}'\nexec '${realGit}' "$@"\n`);
  chmodSync(join(dir, 'git'), 0o755);
  return dir;
};

const fetches = (): number =>
  readFileSync(log, 'utf8')
    .split('\n')
    .filter((l) => /(^| )fetch /.test(l)).length;

const start = async (over: Partial<Extract<RunnerJob, { kind: 'attempt' }>>) => {
  const res = await h.runner.execute(
    attemptJob(origin.url, fakeEntry({ FAKE_AGENT_MODE: 'stall', FAKE_AGENT_DELAY_MS: '600000' }), over),
  );
  if (res.kind !== 'attempt') throw new Error('expected an attempt');
  started.push(res.attempt.id);
  return res.attempt;
};

const issue = (number: number) => ({ repo: { owner: 'acme', name: 'app' }, number });

beforeEach(async () => {
  origin = await createOrigin();
  log = join(tempDir('blitz-gitlog-'), 'git.log');
  writeFileSync(log, '');
  credentialsAsked = 0;
  h = makeHarness({ pathPrepend: [loggingGit(log)], onCredentials: () => void credentialsAsked++ });
  // The first job of the repo clones it (and no sha spares that).
  const first = await start({ issue: issue(1) });
  expect(first.pid).toBeGreaterThan(0);
});

afterEach(async () => {
  for (const id of started.splice(0)) await h.runner.execute({ kind: 'cancel', attemptId: id });
  removeDir(origin.root);
  removeDir(h.workspace);
});

describe('a job that carries the base sha the bot expects', () => {
  it('spawns without a fetch, and without credentials, when the clone tracks the base at that sha', async () => {
    const base = await gitIn(origin.url, 'rev-parse', 'refs/heads/main');
    const fetchesBefore = fetches();
    const asked = credentialsAsked;
    const a = await start({ issue: issue(2), title: 'Second issue', baseSha: base });
    expect(a.outcome).toBeUndefined();
    expect(a.pid).toBeGreaterThan(0);
    expect(fetches()).toBe(fetchesBefore);
    expect(credentialsAsked).toBe(asked);
    expect(await gitIn(a.worktree, 'rev-parse', 'HEAD')).toBe(base);
    expect(a.originShaAtStart).toBeNull();
  });

  it('fetches when origin moved to a commit the clone lacks, and starts from it', async () => {
    const moved = await commitAndPush(origin.work, { 'b.txt': 'b\n' }, 'b');
    const fetchesBefore = fetches();
    const a = await start({ issue: issue(3), title: 'Third issue', baseSha: moved });
    expect(a.pid).toBeGreaterThan(0);
    expect(fetches()).toBe(fetchesBefore + 1);
    expect(await gitIn(a.worktree, 'rev-parse', 'HEAD')).toBe(moved);
  });

  it("fetches when the attempt's branch may be on origin: a retry, or a branch the clone knows", async () => {
    const base = await gitIn(origin.url, 'rev-parse', 'refs/heads/main');
    // An earlier attempt's work on origin, pushed from elsewhere: a retry must find it.
    const title = 'Earlier work';
    const branch = 'm1/4-earlier-work';
    const pushed = await commitAndPush(origin.work, { 'c.txt': 'c\n' }, 'c', branch);
    let before = fetches();
    const retried = await start({ issue: issue(4), title, baseSha: base, retry: 1 });
    expect(fetches()).toBe(before + 1);
    expect(retried.originShaAtStart).toBe(pushed);
    expect(await gitIn(retried.worktree, 'rev-parse', 'HEAD')).toBe(pushed);

    // The clone now tracks another issue's branch (fetched above): the first try of that issue fetches.
    await commitAndPush(origin.work, { 'd.txt': 'd\n' }, 'd', 'm1/5-known-branch');
    await gitIn(join(h.workspace, 'acme', 'app'), 'fetch', '--quiet', 'origin');
    before = fetches();
    await start({ issue: issue(5), title: 'Known branch', baseSha: base });
    expect(fetches()).toBe(before + 1);
  });

  it('ignores a base sha that is not a full lowercase commit sha, and fetches as without one', async () => {
    const base = await gitIn(origin.url, 'rev-parse', 'refs/heads/main');
    const marker = join(tempDir('blitz-hostile-'), 'ran');
    const hostile = [
      `--upload-pack=touch ${marker}`,
      base.slice(0, 12),
      base.toUpperCase(),
      `${base} `,
      'HEAD',
      'refs/remotes/origin/main',
    ];
    for (const [i, baseSha] of hostile.entries()) {
      const before = fetches();
      const a = await start({ issue: issue(10 + i), title: `Hostile ${i}`, baseSha });
      expect(a.pid, baseSha).toBeGreaterThan(0);
      expect(fetches(), baseSha).toBe(before + 1);
    }
    expect(existsSync(marker)).toBe(false);
    // The value never reached a git command line.
    expect(readFileSync(log, 'utf8')).not.toContain('--upload-pack');
  });
});
