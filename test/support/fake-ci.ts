// A fake CI attached to a fake forge: a post-receive hook in the real bare origin tells it of every
// push; for a pushed branch that is the head of an open PR it checks the commit out in a temp folder
// and runs the repository's test script (an argv, through execa, no shell string), then reports the
// result the way the forge's own CI would: a GitHub Actions check run (summary, annotations from
// `file:line: message` output lines, the job log) or a Gitea commit status. Tests await a result by
// event (`whenDone(sha)`), never by sleeping.
import { EventEmitter } from 'node:events';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { execa } from 'execa';
import { run as runCommand } from '../../src/runner/exec.ts';
import { removeDir, tempDir, testEnv } from './git.ts';
import type { World, WorldRepo } from './world.ts';
import { checksOf } from './world-checks.ts';

/** Where the push hook's curl is looked for. */
const curl = '/usr/bin/curl';

export interface FakeCiOptions {
  world: World;
  repo: WorldRepo;
  /** The bare origin workers push to (the repo's RealGit). */
  bareDir: string;
  /** Report as a GitHub Actions check run or as a Gitea commit status. */
  forge: 'github' | 'gitea';
  /** The test script, run in the checkout; default `sh test.sh`. */
  command?: string[];
  /** The check name (GitHub) or status context (Gitea). */
  name?: string;
  timeoutMs?: number;
  /** Run on every pushed branch, not only PR heads. */
  allBranches?: boolean;
  /** Awaited before a run reports its result: a test holds one head's CI until it has acted. */
  gate?: (branch: string, sha: string) => Promise<void>;
}

export interface CiResult {
  sha: string;
  branch: string;
  passed: boolean;
  output: string;
}

export interface FakeCi {
  /** Every finished run, in order. */
  results: CiResult[];
  events: EventEmitter<{ done: [CiResult] }>;
  /** The result for `sha`, now or when its run finishes. */
  whenDone(sha: string): Promise<CiResult>;
  /** Run CI for a branch's current head by hand (a re-run). */
  runBranch(branch: string): Promise<CiResult>;
  close(): Promise<void>;
}

const zeroSha = /^0+$/;
const annotationLine = /^([\w./-]+):(\d+):\s*(.+)$/;

export const startFakeCi = async (opts: FakeCiOptions): Promise<FakeCi> => {
  const name = opts.name ?? (opts.forge === 'github' ? 'test' : 'ci/test');
  const command = opts.command ?? ['sh', 'test.sh'];
  const events = new EventEmitter<{ done: [CiResult] }>();
  const results: CiResult[] = [];
  const running = new Set<Promise<unknown>>();
  const store = checksOf(opts.world);

  const isPrHead = (branch: string) =>
    [...opts.repo.issues.values()].some((i) => i.pull && i.state === 'open' && i.pull.head === branch);

  const runFor = async (branch: string, sha: string): Promise<CiResult> => {
    const run =
      opts.forge === 'github'
        ? store.addRun(opts.repo, { name, headSha: sha, appSlug: 'github-actions', status: 'in_progress' })
        : undefined;
    if (opts.forge === 'gitea')
      store.addStatus(opts.repo, {
        sha,
        context: name,
        state: 'pending',
        description: 'running',
        targetUrl: null,
        creator: 'fake-ci',
      });
    const dir = tempDir('blitz-fake-ci-');
    let output = '';
    let passed = false;
    try {
      // The commit's files, read straight from the bare origin into a fresh folder with an index of
      // their own: one git command, no clone to copy and delete (a clone's objects grow with the run).
      const checkout = join(dir, 'checkout');
      mkdirSync(checkout);
      const read = await runCommand(
        [
          'git',
          '--git-dir',
          opts.bareDir,
          '--work-tree',
          checkout,
          '-c',
          'core.bare=false',
          'read-tree',
          '--reset',
          '-u',
          sha,
        ],
        { cwd: dir, env: { ...testEnv(), GIT_INDEX_FILE: join(dir, 'index') }, timeoutMs: 60_000 },
      );
      if (read.exitCode !== 0) throw new Error(`git read-tree ${sha} failed: ${read.stderr}`);
      const res = await execa(command[0]!, command.slice(1), {
        cwd: checkout,
        env: testEnv(),
        extendEnv: false,
        reject: false,
        all: true,
        timeout: opts.timeoutMs ?? 60_000,
        stdin: 'ignore',
      });
      output = res.all ?? '';
      passed = res.exitCode === 0 && !res.timedOut;
    } catch (err) {
      output = `fake CI could not run: ${(err as Error).message}`;
    } finally {
      removeDir(dir);
    }
    await opts.gate?.(branch, sha);
    const lines = output.trimEnd().split('\n');
    const summary = lines.slice(-20).join('\n');
    if (run) {
      store.updateRun(run, {
        status: 'completed',
        conclusion: passed ? 'success' : 'failure',
        title: passed ? 'tests passed' : 'tests failed',
        summary,
        annotations: passed
          ? []
          : lines.flatMap((l) => {
              const m = annotationLine.exec(l);
              return m
                ? [
                    {
                      path: m[1]!,
                      startLine: Number(m[2]),
                      endLine: Number(m[2]),
                      level: 'failure' as const,
                      message: m[3]!,
                      title: null,
                    },
                  ]
                : [];
            }),
        log: output,
      });
    } else {
      store.addStatus(opts.repo, {
        sha,
        context: name,
        state: passed ? 'success' : 'failure',
        description: (passed ? 'tests passed' : `tests failed: ${lines.at(-1) ?? ''}`).slice(0, 255),
        targetUrl: null,
        creator: 'fake-ci',
      });
    }
    const result = { sha, branch, passed, output };
    results.push(result);
    events.emit('done', result);
    return result;
  };

  const track = <T>(p: Promise<T>): Promise<T> => {
    running.add(p);
    void p.finally(() => running.delete(p)).catch(() => {});
    return p;
  };

  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString('utf8');
    });
    req.on('end', () => {
      res.writeHead(202).end();
      for (const line of body.split('\n')) {
        const [, sha, ref] = line.trim().split(' ');
        if (!sha || !ref?.startsWith('refs/heads/') || zeroSha.test(sha)) continue;
        const branch = ref.slice('refs/heads/'.length);
        if (opts.allBranches || isPrHead(branch)) track(runFor(branch, sha));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/push`;
  // The hook hands git's `<old> <new> <ref>` lines to the CI, which answers at once. curl does it
  // for a few ms of CPU where a node process costs ~180 ms, paid on every push of every test and of
  // the scale bench; node is the fallback on a host without curl. The URL is the CI's own loopback one.
  const hook = join(opts.bareDir, 'hooks', 'post-receive');
  writeFileSync(
    hook,
    existsSync(curl)
      ? `#!/bin/sh\n${curl} -s -o /dev/null -m 10 --data-binary @- '${url}' || true\n`
      : `#!${process.execPath}\nlet d = '';\nprocess.stdin.on('data', (c) => { d += c; }).on('end', () => {\n  fetch(${JSON.stringify(url)}, { method: 'POST', body: d }).catch(() => {});\n});\n`,
  );
  chmodSync(hook, 0o755);

  return {
    results,
    events,
    whenDone: (sha) => {
      const done = results.find((r) => r.sha === sha);
      if (done) return Promise.resolve(done);
      return new Promise((resolve) => {
        const listener = (r: CiResult) => {
          if (r.sha !== sha) return;
          events.off('done', listener);
          resolve(r);
        };
        events.on('done', listener);
      });
    },
    runBranch: async (branch) => {
      const sha = await opts.repo.git.resolve(branch);
      if (!sha) throw new Error(`fake CI: no branch ${branch}`);
      return track(runFor(branch, sha));
    },
    close: async () => {
      await Promise.allSettled([...running]);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};

/**
 * A repository test script that fails on any `fake-*.txt` holding the word `broken` (`file:1: …`, the
 * first such file). One grep over them all: a run's cost does not grow with the files merged so far.
 */
export const brokenFileTestScript = [
  'set -- $(grep -l broken fake-*.txt 2>/dev/null)',
  'if [ -n "$1" ]; then echo "$1:1: still broken"; exit 1; fi',
  'echo all tests passed',
  '',
].join('\n');

/** Closes a test's fake CI, then its harness and the harness world's checks server. */
export const closeCiWorld = async (
  ci: FakeCi | undefined,
  h: { close(): Promise<void>; world: World } | undefined,
): Promise<void> => {
  await ci?.close();
  if (h) {
    await h.close();
    await checksOf(h.world).close();
  }
};
