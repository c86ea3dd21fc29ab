// The workers' sandbox with the real bubblewrap: what a worker (and a gate, the repository's own code,
// and the runner's git in a worker's repository) can reach of the bot that started it. Each test runs a
// real Runner attempt, gate or worker-side git whose program prints what it could read, signal or
// connect to; the bot's files sit in a directory the sandbox would show (it is on PATH), so only their
// hiding keeps them out. Each is run once more with `runner.sandbox: none`, where the same program
// reaches all of it: what the sandbox takes away, and proof the test can fail.
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { rosterEntrySchema } from '../../src/config/blitz-config.ts';
import { isAlive } from '../../src/runner/exec.ts';
import { probeBubblewrap } from '../../src/runner/jail.ts';
import { dirtyFileCount } from '../../src/runner/worker-git.ts';
import { createOrigin, gitIn, originSha, tempDir } from '../support/git.ts';
import { noSecondUser, testWorker } from '../support/os-user.ts';
import { attemptJob, fakeEntry, type Harness, makeHarness, settle } from '../support/runner-harness.ts';

const probe = resolve('test/support/fake-agents/sandbox-probe.mjs');
const bwrap = probeBubblewrap(undefined, process.env.PATH);
const skipReason = bwrap.ok ? '' : ` (skipped: ${bwrap.reason})`;

const SECRET = {
  db: 'db-row-secret-0123456789',
  env: 'GITEA_TOKEN=dotenv-secret-0123456789',
  config: 'config-secret-0123456789',
  file: 'file-secret-0123456789',
  spool: 'spool-secret-0123456789',
  environ: 'environ-secret-0123456789',
};

/** The bot's own files, in a directory that is also on the workers' PATH. */
const botFiles = () => {
  const dir = tempDir('blitz-bot-');
  chmodSync(dir, 0o755);
  const data = join(dir, 'data');
  mkdirSync(data);
  const files = {
    db: join(dir, 'blitz.db'),
    env: join(dir, '.env'),
    config: join(dir, 'blitz.config.yml'),
    file: join(dir, 'gitea-token'),
    spool: join(data, 'spool.json'),
  };
  for (const [k, p] of Object.entries(files))
    writeFileSync(p, SECRET[k as keyof typeof files], { mode: 0o644 });
  return { dir, data, files, hidden: [data, files.db, files.env, files.config, files.file] };
};

const probeEntry = (env: Record<string, string>, endpoints?: string[]) =>
  rosterEntrySchema.parse({
    name: 'probe',
    tool: 'custom',
    command: ['node', probe, '{prompt_file}'],
    resume: ['node', probe, '{prompt_file}'],
    roles: ['blitz'],
    tiers: ['execution'],
    env,
    ...(endpoints ? { endpoints } : {}),
  });

const children: ChildProcess[] = [];
const servers: Server[] = [];
let harness: Harness | undefined;
afterEach(async () => {
  for (const c of children.splice(0)) if (c.pid && isAlive(c.pid)) c.kill('SIGKILL');
  for (const s of servers.splice(0)) s.close();
  await harness?.runner.jail.close?.();
  harness = undefined;
});

/** A process holding the bot's secrets in its environment, as the bot does. */
const botProcess = (): ChildProcess => {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
    env: { PATH: '/usr/bin:/bin', GITEA_TOKEN: SECRET.environ },
    stdio: 'ignore',
    detached: true,
  });
  children.push(child);
  return child;
};

const lines = (log: string, kind: string) => log.split('\n').filter((l) => l.startsWith(`${kind} `));

type Sandbox = 'bubblewrap' | 'none';

/** The probe as a worker of the default set-up (no runner.user) while another worker runs. */
const probeWorker = async (sandbox: Sandbox) => {
  const bot = botProcess();
  const files = botFiles();
  const h = makeHarness({
    runner: { sandbox, maxNudges: 0 },
    pathPrepend: [files.dir],
    hidden: files.hidden,
  });
  harness = h;
  expect(h.runner.jail.kind).toBe(sandbox);
  const origin = await createOrigin();
  // Another worker, alive while the probe runs.
  const other = await h.runner.execute(
    attemptJob(origin.url, fakeEntry({ FAKE_AGENT_MODE: 'stall' }), {
      issue: { repo: { owner: 'acme', name: 'app' }, number: 8 },
    }),
  );
  if (other.kind !== 'attempt' || other.attempt.pid === undefined) throw new Error('expected a worker');
  const pids = [process.pid, bot.pid!, other.attempt.pid];
  const r = await h.runner.execute(
    attemptJob(
      origin.url,
      probeEntry({
        PROBE_PATHS: JSON.stringify([...Object.values(files.files), files.data]),
        PROBE_PIDS: JSON.stringify(pids),
      }),
    ),
  );
  if (r.kind !== 'attempt') throw new Error('expected an attempt');
  const done = await settle(h, r.attempt.id);
  await h.runner.execute({ kind: 'cancel', attemptId: other.attempt.id });
  return { log: readFileSync(done.logPath, 'utf8'), pids, bot, files };
};

/** A build.sh that prints its uid, its /proc, the bot's files and environment, and kills the bot. */
const buildScript = (files: ReturnType<typeof botFiles>, botPid: number) =>
  [
    'id -u',
    "ls /proc | grep -c '^[0-9]'",
    `cat ${files.files.db} ${files.files.env} ${files.files.file} 2>/dev/null`,
    `tr '\\0' '\\n' < /proc/${botPid}/environ 2>/dev/null | grep GITEA_TOKEN`,
    `kill -0 ${botPid} 2>/dev/null && echo can-signal || echo cannot-signal`,
    'touch built',
  ].join('\n');

const gate = async (h: Harness, wt: string) => {
  const r = await h.runner.execute({
    kind: 'gate',
    name: 'build',
    argv: ['sh', 'build.sh'],
    cwd: wt,
    timeoutSeconds: 60,
  });
  if (r.kind !== 'gate') throw new Error('expected a gate');
  return r.result;
};

describe.skipIf(!bwrap.ok)(`the workers' bubblewrap sandbox${skipReason}`, () => {
  it('a worker in the default set-up cannot read the bot’s environment, database, .env, config or secret files, signal the bot, or see another worker', async () => {
    const { log, pids, bot, files } = await probeWorker('bubblewrap');
    expect(lines(log, 'UID')).toHaveLength(1);
    for (const secret of Object.values(SECRET)) expect(log).not.toContain(secret);
    // Hidden where the sandbox shows their directory: empty in place of each file, nothing in the data dir.
    // (/dev/null in the file's place: empty, or refused to a root without capabilities.)
    for (const p of Object.values(files.files).filter((f) => !f.startsWith(files.data)))
      expect(lines(log, 'READ')).toContainEqual(expect.stringMatching(new RegExp(`^READ ${p} (""|EACCES)$`)));
    expect(log).toContain(`READ ${files.data} ""`);
    expect(log).toContain(`READ ${files.files.spool} ENOENT`);
    for (const pid of pids) {
      expect(log).toContain(`ENVIRON ${pid} ENOENT`);
      expect(log).toContain(`KILL ${pid} ESRCH`);
    }
    const seen = lines(log, 'PIDS')[0]!.slice(5).split(',');
    for (const pid of pids) expect(seen).not.toContain(String(pid));
    expect(isAlive(bot.pid!)).toBe(true);
  }, 60_000);

  it('without the sandbox (runner.sandbox: none) the same worker reads all of it and can signal the bot', async () => {
    const { log, pids } = await probeWorker('none');
    for (const secret of Object.values(SECRET)) expect(log).toContain(secret);
    for (const pid of pids) expect(log).toContain(`KILL ${pid} ok`);
  }, 60_000);

  it('a sandboxed worker’s commit reaches origin: the runner’s cache objects are readable inside, and its git reads the branch', async () => {
    const h = makeHarness({ runner: { sandbox: 'bubblewrap', maxNudges: 0 } });
    harness = h;
    const origin = await createOrigin();
    const r = await h.runner.execute(attemptJob(origin.url, fakeEntry()));
    if (r.kind !== 'attempt') throw new Error('expected an attempt');
    const done = await settle(h, r.attempt.id);
    expect(done.outcome).toBe('solved');
    expect(await originSha(origin.url, done.branch)).not.toBeNull();
  }, 60_000);

  it.each(['bubblewrap', 'none'] as const)(
    'the runner’s git in a default-set-up worker’s repository runs what the worker configured inside the sandbox (sandbox: %s)',
    async (sandbox) => {
      const bot = botProcess();
      const files = botFiles();
      const h = makeHarness({
        runner: { sandbox, maxNudges: 0 },
        pathPrepend: [files.dir],
        hidden: files.hidden,
      });
      harness = h;
      const origin = await createOrigin();
      const r = await h.runner.execute(attemptJob(origin.url, fakeEntry()));
      if (r.kind !== 'attempt') throw new Error('expected an attempt');
      const done = await settle(h, r.attempt.id);
      // The worker leaves a program in its repository's config, which the runner's next `git status`
      // there (a nudge's survivedWork) starts.
      const prog = join(done.worktree, '.git', 'fsmon.sh');
      writeFileSync(
        prog,
        `#!/bin/sh\n{ ${buildScript(files, bot.pid!).split('\n').slice(0, 5).join('; ')}; } >> .git/fsmon.log\n`,
        {
          mode: 0o755,
        },
      );
      await gitIn(done.worktree, 'config', 'core.fsmonitor', prog);
      await dirtyFileCount(h.runner.workerGit, h.runner.supervisor.repoOf(done));
      const out = readFileSync(join(done.worktree, '.git', 'fsmon.log'), 'utf8');
      if (sandbox === 'bubblewrap') {
        for (const secret of Object.values(SECRET)) expect(out).not.toContain(secret);
        expect(out).toContain('cannot-signal');
        expect(Number(out.split('\n')[1])).toBeLessThan(10);
      } else {
        expect(out).toContain(SECRET.db);
        expect(out).toContain(SECRET.environ);
        expect(out).toContain('can-signal');
      }
    },
    60_000,
  );

  it.each(['bubblewrap', 'none'] as const)(
    'a build.sh of the default set-up runs in the sandbox: none of the bot’s files, environment or processes (sandbox: %s)',
    async (sandbox) => {
      const bot = botProcess();
      const files = botFiles();
      const h = makeHarness({ runner: { sandbox }, pathPrepend: [files.dir], hidden: files.hidden });
      harness = h;
      const wt = join(h.workspace, 'integration-wt');
      mkdirSync(wt);
      writeFileSync(join(wt, 'build.sh'), buildScript(files, bot.pid!));
      const result = await gate(h, wt);
      expect(result.exitCode).toBe(0);
      expect(readFileSync(join(wt, 'built'), 'utf8')).toBe('');
      if (sandbox === 'bubblewrap') {
        for (const secret of Object.values(SECRET)) expect(result.tail).not.toContain(secret);
        expect(result.tail).toContain('cannot-signal');
        expect(Number(result.tail.split('\n')[1])).toBeLessThan(10);
      } else {
        expect(result.tail).toContain(SECRET.db);
        expect(result.tail).toContain(SECRET.environ);
        expect(result.tail).toContain('can-signal');
      }
    },
    60_000,
  );

  it.skipIf(noSecondUser !== undefined)(
    `a repository's build.sh runs as the worker user, inside the sandbox, with none of the bot's files${noSecondUser ? ` (${noSecondUser})` : ''}`,
    async () => {
      const bot = botProcess();
      const files = botFiles();
      const worker = testWorker();
      const h = makeHarness({
        runner: { sandbox: 'bubblewrap', user: worker.name },
        chmodWorkspace: 0o755,
        pathPrepend: [files.dir],
        hidden: files.hidden,
      });
      harness = h;
      const wt = join(h.workspace, 'integration-wt');
      mkdirSync(wt);
      writeFileSync(join(wt, 'build.sh'), buildScript(files, bot.pid!));
      const result = await gate(h, wt);
      const [uid, procs] = result.tail.split('\n');
      expect(uid).toBe(String(worker.uid));
      expect(Number(procs)).toBeLessThan(10);
      expect(result.tail).toContain('cannot-signal');
      for (const secret of Object.values(SECRET)) expect(result.tail).not.toContain(secret);
      expect(readFileSync(join(wt, 'built'), 'utf8')).toBe('');
    },
    60_000,
  );

  it.each(['model-only', 'full'] as const)(
    'network %s: a worker reaches its entry’s model endpoint (through the runner’s proxy when model-only), and no other address',
    async (network) => {
      const listen = async (body: string) => {
        const s = createServer((_req, res) => res.end(body));
        servers.push(s);
        await new Promise<void>((done) => s.listen(0, '127.0.0.1', done));
        return `127.0.0.1:${(s.address() as AddressInfo).port}`;
      };
      const model = await listen('model');
      const elsewhere = await listen('elsewhere');
      const h = makeHarness({ runner: { sandbox: 'bubblewrap', network, maxNudges: 0 } });
      harness = h;
      const origin = await createOrigin();
      // Model-only, the npm registry too (an agent CLI's run-time install): no route, and the proxy
      // refuses it before any lookup, so this holds on a host with no network as on one with it.
      const registry = 'registry.npmjs.org:443';
      const targets = network === 'model-only' ? [model, elsewhere, registry] : [model, elsewhere];
      const r = await h.runner.execute(
        attemptJob(origin.url, probeEntry({ PROBE_CONNECT: JSON.stringify(targets) }, [model])),
      );
      if (r.kind !== 'attempt') throw new Error('expected an attempt');
      const log = readFileSync((await settle(h, r.attempt.id)).logPath, 'utf8');
      if (network === 'model-only') {
        expect(log).toContain(`DIRECT ${model} ECONNREFUSED`);
        expect(log).toContain(`PROXIED ${model} 200 HTTP/1.1 200 OK`);
        expect(log).toContain(`DIRECT ${elsewhere} ECONNREFUSED`);
        expect(log).toContain(`PROXIED ${elsewhere} 403 -`);
        // No route out (ENETUNREACH), or no name server to ask (EAI_AGAIN): an error code, never `ok`.
        expect(lines(log, 'DIRECT').find((l) => l.includes(registry))).toMatch(/^DIRECT \S+ E[A-Z_]+$/);
        expect(log).toContain(`PROXIED ${registry} 403 -`);
      } else {
        // The host's network: every address, the one it should not need too.
        expect(log).toContain(`DIRECT ${model} ok`);
        expect(log).toContain(`DIRECT ${elsewhere} ok`);
      }
    },
    60_000,
  );
});
