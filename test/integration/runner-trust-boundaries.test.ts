// Attacks on the runner's trust boundaries, one test each, against the real runner API, real git and
// real worker processes: a runner token must not reach the bot host's commands, processes or
// credentials, and a worker must find no secret and need none to deliver its work.
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { blitzConfigSchema, runnerBaseEnv } from '../../src/config/blitz-config.ts';
import { createApp } from '../../src/http/app.ts';
import { createLogger, silentLogger } from '../../src/observability/logger.ts';
import { createMetrics } from '../../src/observability/metrics.ts';
import { InProcessQueue } from '../../src/queue/in-process-queue.ts';
import { localOnlyLedger } from '../../src/queue/local-consumer.ts';
import { attemptQueue } from '../../src/queue/runner-queues.ts';
import { createRunnerHub } from '../../src/remote-runner/hub.ts';
import { isAlive, processStartTime } from '../../src/runner/exec.ts';
import { InMemoryAttemptLedger } from '../../src/runner/ledger.ts';
import { Runner } from '../../src/runner/runner.ts';
import { attemptJobSchema } from '../../src/runner/types.ts';
import { openSqliteRunnerRegistry } from '../../src/store/runner-tokens-sqlite.ts';
import { openSqliteRunStore } from '../../src/store/sqlite-run-store.ts';
import { openSqliteStore } from '../../src/store/sqlite-store.ts';
import { createOrigin, originFile, originSha, tempDir, testEnv } from '../support/git.ts';
import { attemptJob, fakeAgent, fakeEntry, makeHarness, settle } from '../support/runner-harness.ts';

const repo = { owner: 'acme', name: 'app' };
const advert = { tools: ['custom'], roles: ['blitz'], repos: ['acme/app'], maxSessions: 2 };
const TOKEN = 'tok-forge-0123456789abcdef';
const SECRETS = {
  GITEA_TOKEN: TOKEN,
  GITEA_WEBHOOK_SECRET: 'webhook-secret-0123456789',
  WEBHOOK_SECRET: 'gh-webhook-secret-0123456789',
  STATUS_TOKEN: 'status-token-0123456789abcdef',
};
const basic = Buffer.from(`blitz-bot:${TOKEN}`).toString('base64');

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.pid && isAlive(c.pid)) c.kill('SIGKILL');
});

/** A live process that is not the runner's: what an attacker names as its "worker". */
const foreignProcess = (env: Record<string, string> = {}): ChildProcess => {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
    stdio: 'ignore',
    detached: true,
  });
  children.push(child);
  return child;
};

const apiSetup = async (cloneUrl: string, entry = fakeEntry()) => {
  const registry = openSqliteRunnerRegistry(':memory:');
  const runs = openSqliteRunStore(':memory:');
  const queue = new InProcessQueue();
  const hub = createRunnerHub({ queue, registry, ledger: runs.ledger, logger: silentLogger() });
  const app = createApp({
    store: openSqliteStore(':memory:'),
    metrics: createMetrics(),
    logger: silentLogger(),
    version: 't',
    receive: async () => {
      throw new Error('no webhook expected');
    },
    runnerHub: hub,
  });
  const token = (await registry.createToken('evil')).token;
  const call = async (path: string, body: unknown) =>
    app.request(`/api/runner/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });
  const job = attemptJob(cloneUrl, entry);
  const jobRef = {
    queue: attemptQueue('blitz', repo),
    id: (await queue.enqueue(attemptQueue('blitz', repo), job))!,
  };
  expect((await call('register', advert)).status).toBe(200);
  expect((await call('claim', {})).status).toBe(200);
  return { runs, queue, call, jobRef };
};

describe('runner trust boundaries', () => {
  it('a runner reporting an empty exit path, a foreign live pid, an old start and a job of its own making gets nothing executed, signalled or cloned on the bot host', async () => {
    const origin = await createOrigin();
    const attacker = await createOrigin({ 'README.md': '# the attacker\n' });
    const s = await apiSetup(origin.url);
    const victim = foreignProcess();
    const marker = join(tempDir('blitz-marker-'), 'pwned');
    const evilJob = attemptJobSchema.parse(
      attemptJob(attacker.url, {
        ...fakeEntry(),
        command: ['touch', marker],
        resume: ['touch', marker],
      }),
    );
    const forged = {
      id: 'att-evil',
      runId: 'run-1',
      issue: { repo, number: 7 },
      retry: 0,
      launchedAt: '2020-01-01T00:00:00.000Z',
      startedAt: '2020-01-01T00:00:00.000Z',
      originShaAtStart: null,
      nudges: 0,
      tokens: { input: 0, output: 0 },
    };
    // The whole attack in one report: refused, nothing recorded.
    const whole = await s.call('reports', {
      kind: 'started',
      job: s.jobRef,
      seq: 1,
      attempt: { ...forged, exitPath: '', pid: victim.pid, job: evilJob, rosterEntry: 'evil' },
    });
    expect(whole.status).toBe(400);
    expect(await s.runs.ledger.get('att-evil')).toBeUndefined();

    // What a report may say (results, an old start) is taken; the attempt is the bot's job's, and the runner's.
    expect(
      (await s.call('reports', { kind: 'started', job: s.jobRef, seq: 2, attempt: forged })).status,
    ).toBe(200);
    const stored = (await s.runs.ledger.get('att-evil'))!;
    const own = attemptJobSchema.parse((await s.queue.get(s.jobRef))!.payload);
    expect(stored).toMatchObject({ runner: 'evil', job: own, exitPath: '' });
    expect(stored.job.cloneUrl).toBe(origin.url);
    expect(stored.pid).toBeUndefined();

    // The bot's own runner over the shared ledger, long past the attempt timeout: the remote attempt is
    // not its to supervise, so it signals, retries and clones nothing. Its credentials are never asked for.
    let credentialCalls = 0;
    const bot = makeHarness({
      ledger: localOnlyLedger(s.runs.ledger, 'bot-host'),
      credentials: { username: 'blitz-bot', token: TOKEN },
      onCredentials: () => {
        credentialCalls++;
      },
    });
    bot.clock.advance(365 * 24 * 3600_000);
    await bot.runner.tick();
    await bot.runner.tick({ stalls: true });

    // Even a record that claims the foreign pid outright (as a pre-fix report could) is never ours.
    await s.runs.ledger.update('att-evil', { pid: victim.pid!, pidStartTime: processStartTime(victim.pid!) });
    const unlisted = localOnlyLedger(s.runs.ledger, 'bot-host');
    expect(await unlisted.listOpen()).toEqual([]);
    await bot.runner.tick();

    expect(isAlive(victim.pid!)).toBe(true);
    expect(existsSync(marker)).toBe(false);
    expect(credentialCalls).toBe(0);
    expect(readdirSync(bot.workspace).filter((d) => d !== '.runner-gitconfig')).toEqual([]);
    expect(await originSha(attacker.url, stored.branch)).toBeNull();
    expect((await s.runs.ledger.get('att-evil'))?.outcome).toBeUndefined();
  }, 60_000);

  it('keeps the model a runner says its tool ran only for an entry that names none, and only a model name', async () => {
    const origin = await createOrigin();
    const attempt = {
      id: 'att-model',
      runId: 'run-1',
      issue: { repo, number: 7 },
      retry: 0,
      launchedAt: '2026-12-07T00:00:00.000Z',
      startedAt: '2026-12-07T00:00:00.000Z',
      originShaAtStart: null,
      nudges: 0,
      tokens: { input: 10, output: 1 },
    };
    const s = await apiSetup(origin.url);
    const report = (seq: number, model: string) =>
      s.call('reports', { kind: 'started', job: s.jobRef, seq, attempt: { ...attempt, model } });
    expect((await report(1, '$(touch /tmp/x)')).status).toBe(400);
    expect(await s.runs.ledger.get('att-model')).toBeUndefined();
    expect((await report(2, 'claude-opus-5-5')).status).toBe(200);
    expect((await s.runs.ledger.get('att-model'))?.model).toBe('claude-opus-5-5');
    const later = {
      kind: 'progress',
      job: s.jobRef,
      seq: 3,
      attempt: { ...attempt, model: 'claude-sonnet-5-5' },
    };
    expect((await s.call('reports', later)).status).toBe(200);
    expect((await s.runs.ledger.get('att-model'))?.model).toBe('claude-sonnet-5-5');

    // The roster's own model is the bot's word: a runner cannot price its attempt as another.
    const named = await apiSetup(origin.url, { ...fakeEntry(), model: 'opus' });
    const cheap = { ...attempt, model: 'gpt-5' };
    expect(
      (await named.call('reports', { kind: 'started', job: named.jobRef, seq: 1, attempt: cheap })).status,
    ).toBe(200);
    expect((await named.runs.ledger.get('att-model'))?.model).toBe('opus');
  });

  it('refuses a runner report, request or advert with a key it does not know (400), and records nothing', async () => {
    const origin = await createOrigin();
    const s = await apiSetup(origin.url);
    const result = {
      id: 'att-1',
      runId: 'run-1',
      issue: { repo, number: 7 },
      retry: 0,
      launchedAt: '2026-01-01T00:00:00.000Z',
      startedAt: '2026-01-01T00:00:00.000Z',
      originShaAtStart: null,
      nudges: 0,
      tokens: { input: 0, output: 0 },
    };
    const report = (attempt: unknown, extra: Record<string, unknown> = {}) => ({
      kind: 'started',
      job: s.jobRef,
      seq: 1,
      attempt,
      ...extra,
    });
    for (const [name, body] of [
      ['a path', report({ ...result, worktree: '/etc' })],
      ['a pid', report({ ...result, pid: 1 })],
      ['a command', report({ ...result, argvRedacted: ['rm', '-rf', '/'] })],
      ['a clone URL', report({ ...result, cloneUrl: 'https://evil.example/x.git' })],
      ['a roster entry', report({ ...result, rosterEntry: 'evil' })],
      ['a nested key', report({ ...result, tokens: { input: 0, output: 0, cost: 1 } })],
      ['a top-level key', report(result, { runner: 'someone-else' })],
      ['a job ref key', report(result, { job: { ...s.jobRef, holder: 'x' } })],
    ] as const) {
      const res = await s.call('reports', body);
      expect(res.status, name).toBe(400);
    }
    expect((await s.call('heartbeat', { job: s.jobRef, lease: 9999 })).status).toBe(400);
    expect((await s.call('register', { ...advert, admin: true })).status).toBe(400);
    expect(await s.runs.ledger.get('att-1')).toBeUndefined();
    // The same report without the extra key is taken.
    expect((await s.call('reports', report(result))).status).toBe(200);
  });

  it('a worker that dumps its environment, its git config and GIT_CONFIG_* finds no secret, and its work lands because the runner pushes', async () => {
    const origin = await createOrigin();
    // The bot's environment as main.ts hands it to the runner: its secrets filtered out.
    const baseEnv = runnerBaseEnv(undefined, {
      ...testEnv(),
      ...SECRETS,
      DATABASE_URL: 'postgres://u:pw@db/x',
    });
    const h = makeHarness({ credentials: { username: 'blitz-bot', token: TOKEN }, baseEnv });
    const r = await h.runner.execute(attemptJob(origin.url, fakeEntry({ FAKE_AGENT_MODE: 'dump-env' })));
    if (r.kind !== 'attempt') throw new Error('expected an attempt');
    const done = await settle(h, r.attempt.id);
    const log = readFileSync(done.logPath, 'utf8');
    expect(log).toContain('ENV {');
    expect(log).toContain('GIT-CONFIG');
    for (const secret of [...Object.values(SECRETS), basic, 'pw@db']) expect(log).not.toContain(secret);
    expect(log).not.toMatch(/GIT_CONFIG_(?:COUNT|KEY|VALUE)/);
    expect(log).not.toMatch(/extraheader/i);
    expect(done).toMatchObject({ outcome: 'solved', exitCode: 0 });
    expect(await originFile(origin.url, done.branch, 'fake-7.txt')).toContain('done by fake agent for #7');
  }, 60_000);

  it('a worker gets the proxy and CA variables runner.passEnv lets through and its fromEnv values, never a bot secret', async () => {
    const origin = await createOrigin();
    const host = {
      ...testEnv(),
      ...SECRETS,
      HTTPS_PROXY: 'http://proxy.internal:3128',
      NODE_EXTRA_CA_CERTS: '/etc/ssl/corp-ca.pem',
      CORP_MIRROR: 'https://mirror.internal',
      WORKER_KEY_SOURCE: 'key-for-the-worker-only',
    };
    const { runner } = blitzConfigSchema.parse({
      runner: { passEnv: ['HTTPS_PROXY', 'NODE_EXTRA_CA_CERTS'] },
    });
    const h = makeHarness({ baseEnv: runnerBaseEnv(runner.passEnv, host), hostEnv: host });
    const entry = fakeEntry({
      FAKE_AGENT_MODE: 'dump-env',
      MY_PROVIDER_KEY: { fromEnv: 'WORKER_KEY_SOURCE' },
    });
    const r = await h.runner.execute(attemptJob(origin.url, entry));
    if (r.kind !== 'attempt') throw new Error('expected an attempt');
    const done = await settle(h, r.attempt.id);
    const line = readFileSync(done.logPath, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('ENV '));
    const env = JSON.parse(line!.slice(4)) as Record<string, string>;
    expect(env).toMatchObject({
      HTTPS_PROXY: 'http://proxy.internal:3128',
      NODE_EXTRA_CA_CERTS: '/etc/ssl/corp-ca.pem',
      MY_PROVIDER_KEY: 'key-for-the-worker-only',
    });
    // Not listed, so not passed; and the bot's own secrets never.
    expect(env.CORP_MIRROR).toBeUndefined();
    expect(env.WORKER_KEY_SOURCE).toBeUndefined();
    for (const secret of Object.values(SECRETS)) expect(JSON.stringify(env)).not.toContain(secret);
    expect(done.outcome).toBe('solved');
  }, 60_000);

  it('a worker rewriting its repository git config to catch the runner credentials changes nothing: the runner pushes from its own repository', async () => {
    const origin = await createOrigin();
    const trap = await createOrigin({ 'README.md': '# trap\n' });
    const h = makeHarness({ credentials: { username: 'blitz-bot', token: TOKEN } });
    const entry = fakeEntry({ FAKE_AGENT_GIT_CONFIG: `url.${trap.url}.insteadOf=${origin.url}` });
    const r = await h.runner.execute(attemptJob(origin.url, entry));
    if (r.kind !== 'attempt') throw new Error('expected an attempt');
    const done = await settle(h, r.attempt.id);
    expect(done).toMatchObject({ outcome: 'solved', exitCode: 0 });
    expect(await originSha(trap.url, done.branch)).toBeNull();
    expect(await originFile(origin.url, done.branch, 'fake-7.txt')).toContain('done by fake agent for #7');
  }, 60_000);

  // Starting a process as another user takes root: elsewhere this test is skipped, and says why.
  const root = process.getuid?.() === 0;
  it.skipIf(!root)(
    `runner.user starts the worker as that user, which cannot read the bot process environment, and its work still lands${root ? '' : ' (skipped: not root, so no process can be started as another user)'}`,
    async () => {
      const origin = await createOrigin();
      const bot = foreignProcess(SECRETS);
      const h = makeHarness({
        credentials: { username: 'blitz-bot', token: TOKEN },
        runner: { user: 'nobody' },
        chmodWorkspace: 0o755,
      });
      // The checkout may sit in a folder only root can enter (a mktemp -d clone): the worker user runs
      // the fake agent from a folder it can reach, as an operator's would be installed.
      const bin = tempDir('blitz-agent-');
      chmodSync(bin, 0o755);
      const agent = join(bin, 'fake-agent.mjs');
      copyFileSync(fakeAgent, agent);
      const entry = {
        ...fakeEntry({ FAKE_AGENT_MODE: 'dump-env', FAKE_AGENT_PEEK_PIDS: String(bot.pid) }),
        command: ['node', agent, '{prompt_file}'],
        resume: ['node', agent, '--resume', '{prompt_file}'],
      };
      const r = await h.runner.execute(attemptJob(origin.url, entry));
      if (r.kind !== 'attempt') throw new Error('expected an attempt');
      const done = await settle(h, r.attempt.id);
      const log = readFileSync(done.logPath, 'utf8');
      expect(log).toContain('uid=65534');
      expect(log).toContain(`PROC ${bot.pid} unreadable: EACCES`);
      for (const secret of [...Object.values(SECRETS), basic]) expect(log).not.toContain(secret);
      expect(done).toMatchObject({ outcome: 'solved', exitCode: 0 });
      expect(await originFile(origin.url, done.branch, 'fake-7.txt')).toContain('done by fake agent for #7');
    },
    60_000,
  );
  /** A Runner as a bot of uid 1000 would start it, and the warnings it logged at start. */
  const startAsUid1000 = (over: { user?: string; startsWorkers?: boolean } = {}) => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'warn', destination: { write: (l: string) => lines.push(l) } });
    const { user, ...rest } = over;
    const runner = new Runner({
      config: {
        ...blitzConfigSchema.parse({}).runner,
        workspace: tempDir('blitz-ws-'),
        ...(user ? { user } : {}),
      },
      ledger: new InMemoryAttemptLedger(),
      clock: { now: () => new Date() },
      events: () => undefined,
      logger,
      credentials: async () => undefined,
      baseEnv: testEnv(),
      botUid: 1000,
      ...rest,
    });
    return { runner, warnings: lines.map((l) => JSON.parse(l) as { msg: string; level: number }) };
  };

  it('says once at start, with the risk and the fix, when workers run as the bot’s own user', () => {
    const { warnings } = startAsUid1000();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.msg).toContain("Workers run as the bot's own user (uid 1000)");
    expect(warnings[0]!.msg).toContain('Set runner.user');
  });

  it('a bot that starts no workers (BLITZ_LOCAL_RUNNER=false) needs no worker user, warns nothing, and refuses an attempt job', async () => {
    // The compose layout mounts one blitz.config.yml, with runner.user, into the replicas too.
    const { runner, warnings } = startAsUid1000({ user: 'nobody', startsWorkers: false });
    expect(warnings).toEqual([]);
    const origin = await createOrigin();
    await expect(runner.execute(attemptJob(origin.url, fakeEntry()))).rejects.toThrow(/starts no workers/);
  });

  it('refuses runner.user at start when the bot is neither root nor holding the switch capabilities, and names the fix', () => {
    // Tried: uid 1000 with an empty effective capability set, and with setuid+setgid but no chown/kill.
    for (const capEff of ['0000000000000000', '00000000000000c0']) {
      expect(() =>
        makeHarness({
          runner: { user: 'nobody' },
          botUid: 1000,
          procStatus: `Name:\tnode\nCapEff:\t${capEff}\n`,
        }),
      ).toThrow(/runner.user is nobody, but the bot runs as uid 1000 without CAP_SETUID.*setcap cap_setuid/);
    }
  });

  it('accepts runner.user from a non-root bot that holds CAP_SETUID, CAP_SETGID, CAP_CHOWN and CAP_KILL', () => {
    // chown (0), kill (5), setgid (6), setuid (7): 0xe1.
    const h = makeHarness({
      runner: { user: 'nobody' },
      botUid: 1000,
      procStatus: 'CapEff:\t00000000000000e1\n',
    });
    expect(h.runner).toBeInstanceOf(Runner);
  });
});
