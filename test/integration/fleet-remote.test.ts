// Slow for a reason: a composed bot and a runner process resolve a conflict and build on real git.
// A ticket fleet whose only runner is a real `blitz-bot runner` process on another "host": the
// composed bot (compose/bot.ts, what `npm start` runs) is booted with BLITZ_LOCAL_RUNNER=false over
// SQLite and the contract-checked fake Gitea; a child process pulls the fleet's jobs over HTTP with a
// token from the bot's registry and runs the fake agent in its own workspace. `/ticket-fleet #1` opens
// a PR from the runner's worktree; the base then moves under it, and after `/merge` the bot sends the
// conflict resume to that runner's host queue: the runner merges the base into its worktree, resumes
// the worker there, and runs the repo's build there too (a gate job whose result the bot reads from
// the job's output). A passing build merges the PR and closes the ticket; a failing one merges nothing
// and says why on the ticket. Nothing of the ticket ever runs on the bot's own host.
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { composeBot } from '../../src/compose/bot.ts';
import type { CronStarter } from '../../src/compose/cron.ts';
import { loadBlitzConfig } from '../../src/config/blitz-config.ts';
import { loadEnv } from '../../src/config/env.ts';
import { silentLogger } from '../../src/observability/logger.ts';
import { reviewMarkerTag } from '../../src/review/index.ts';
import { isAlive, killGroup } from '../../src/runner/exec.ts';
import type { AttemptRecord } from '../../src/runner/types.ts';
import { openRunnerRegistry } from '../../src/store/open-store.ts';
import { openSqliteRunStore } from '../../src/store/sqlite-run-store.ts';
import { startFakeGitea } from '../support/fake-gitea/server.ts';
import { commitAndPush, gitIn, originFile, removeDir, tempDir, testEnv } from '../support/git.ts';
import { manualCron } from '../support/manual-cron.ts';
import { startRunnerProcess } from '../support/replicas-harness.ts';
import type { Cleanups } from '../support/serve-harness.ts';
import { fixture, signedGiteaRequest } from '../support/signing.ts';
import { until as untilReached } from '../support/until.ts';
import { World, type WorldRepo } from '../support/world.ts';
import { createRealGitRepo } from '../support/world-git.ts';

const fakeAgent = resolve('test/support/fake-agents/fake-agent.mjs');
const fakeReviewer = resolve('test/support/fake-agents/fake-reviewer.mjs');
const secret = 'fleet-remote-gitea-secret';
const botLogin = 'blitz-bot';
const runnerName = 'host-far';
const ticketKey = 'acme/app#1';

const cleanups: Cleanups = [];
const pids: number[] = [];
afterEach(async () => {
  for (const pid of pids.splice(0)) if (isAlive(pid)) killGroup(pid, 'SIGKILL');
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** The harness's `blitz-bot runner` process, serving fleet work: killed after the test. */
const startFleetRunner = (server: string, token: string) => {
  const runner = startRunnerProcess(server, token, ['fleet']);
  pids.push(runner.pid);
  return runner;
};

/**
 * acme/app on a real bare origin with ticket #1, the fake Gitea, the composed bot with no local
 * runner (roster: the fake agent for blitz and fleet, the fake reviewer), and one runner process.
 * The repo's `.gitea/blitz.yml` names `build`, which appends the directory it ran in to `buildLog`.
 */
const boot = async (opts: { buildFails: boolean; cron?: CronStarter }) => {
  const dir = tempDir('blitz-fleet-remote-');
  cleanups.push(() => removeDir(dir));
  const world = new World(botLogin);
  const origin = await createRealGitRepo({ files: { 'README.md': '# app\n' } });
  cleanups.push(() => origin.cleanup());
  const repo: WorldRepo = world.addRepo('acme/app', { git: origin.git });
  // Gitea lets only repo admins read others' permission: the bot account is an admin there.
  world.grant(repo, botLogin, 'admin');
  world.grant(repo, 'alice', 'write');
  world.addIssue(repo, {
    number: 1,
    title: 'README: say what the app does',
    body: 'Rewrite the README title.',
    author: 'alice',
  });
  const trigger = world.addIssue(repo, { title: 'Fleet control room', author: 'alice' }).number;

  const buildLog = join(dir, 'build-ran-in.txt');
  const script = `require('fs').appendFileSync(${JSON.stringify(buildLog)}, process.cwd() + '\\n');${
    opts.buildFails ? ' process.exit(1);' : ''
  }`;
  // No CI on this repository: merges need not wait a settle window for checks that never come.
  repo.files.set(
    '.gitea/blitz.yml',
    stringify({ build: [process.execPath, '-e', script], ci: { settleSeconds: 0 } }),
  );

  const fake = await startFakeGitea(world, { cloneUrl: () => origin.bareDir });
  cleanups.push(async () => {
    await fake.close();
    fake.assertNoViolations();
  });

  const trace = join(dir, 'agent-trace.jsonl');
  const botWorkspace = join(dir, 'workspace');
  const configPath = join(dir, 'blitz.config.yml');
  const reviewerArgv = [process.execPath, fakeReviewer, '--verdict', 'minor', '{prompt_file}'];
  writeFileSync(
    configPath,
    stringify({
      // The fake agent appends to a trace file outside its worktree, which a sandbox would hide.
      runner: {
        workspace: botWorkspace,
        maxSessions: 2,
        retries: 0,
        attemptTimeoutMinutes: 10,
        sandbox: 'none',
      },
      roster: [
        {
          name: 'fake',
          tool: 'custom',
          command: [process.execPath, fakeAgent, '{prompt_file}'],
          resume: [process.execPath, fakeAgent, '--resume', '{prompt_file}'],
          roles: ['blitz', 'fleet'],
          tiers: ['execution', 'design', 'subtle'],
          env: {
            FAKE_AGENT_MODES: JSON.stringify({ [ticketKey]: 'conflict' }),
            FAKE_AGENT_RESUME_MODES: JSON.stringify({ [ticketKey]: 'merge-base' }),
            FAKE_AGENT_TRACE: trace,
          },
        },
        {
          name: 'fake-reviewer',
          tool: 'custom',
          command: reviewerArgv,
          resume: reviewerArgv,
          roles: ['review'],
          tiers: ['execution'],
        },
      ],
      modelNotesPath: join(dir, 'models.md'),
      reviewTimeoutSeconds: 60,
    }),
  );
  const dbPath = join(dir, 'blitz.db');
  const env = loadEnv({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    DATABASE_URL: `sqlite:${dbPath}`,
    BLITZ_CONFIG: configPath,
    BLITZ_LOCAL_RUNNER: 'false',
    GITEA_URL: fake.url,
    GITEA_TOKEN: fake.token,
    GITEA_WEBHOOK_SECRET: secret,
    GITEA_BOT_LOGIN: botLogin,
  });
  const bot = await composeBot({
    env,
    config: loadBlitzConfig(env.BLITZ_CONFIG, {}),
    logger: silentLogger(),
    version: '0.0.0-fleet-remote',
    baseEnv: testEnv(),
    notifyTargets: {},
    tickSeconds: 1,
    supervisionSeconds: 1,
    defaultMetrics: false,
    ...(opts.cron ? { cron: opts.cron } : {}),
  });
  const { port } = await bot.start();
  cleanups.push(() => bot.stop());
  const url = `http://127.0.0.1:${port}`;

  const registry = await openRunnerRegistry(`sqlite:${dbPath}`);
  const runs = openSqliteRunStore(dbPath);
  cleanups.push(
    () => registry.close(),
    () => runs.close(),
  );
  const runner = startFleetRunner(url, (await registry.createToken(runnerName)).token);

  /** A signed Gitea `issue_comment` from alice on issue or PR `number`, over real HTTP to the bot. */
  const comment = async (body: string, number: number) => {
    const c = world.addComment(repo, number, body, 'alice');
    const p = fixture('gitea', 'issue_comment.created');
    const r = p.repository as Record<string, unknown>;
    Object.assign(r, { name: 'app', full_name: 'acme/app' });
    r.owner = { ...(r.owner as object), login: 'acme' };
    (p.issue as Record<string, unknown>).number = number;
    const pc = p.comment as Record<string, unknown>;
    Object.assign(pc, { id: c.id, body, user: { ...(pc.user as object), login: 'alice', type: 'User' } });
    p.sender = { ...(p.sender as object), login: 'alice', type: 'User' };
    const req = signedGiteaRequest({
      secret,
      eventType: 'issue_comment',
      payload: p,
      deliveryId: randomUUID(),
    });
    const res = await fetch(`${url}/api/gitea/webhooks`, {
      method: 'POST',
      body: req.body,
      headers: req.headers,
    });
    expect(res.status, await res.text()).toBeLessThan(300);
  };

  const fleetRun = async () => (await runs.listRuns()).find((r) => r.kind === 'fleet');
  const attempts = async (): Promise<AttemptRecord[]> => {
    const run = await fleetRun();
    return run ? runs.ledger.listByRun(run.id) : [];
  };
  const ticket = async () => {
    const fleet = (await fleetRun())?.progress.fleet as
      | { tickets: Record<string, { note?: string; mergeRequestedBy?: string }> }
      | undefined;
    return fleet?.tickets[ticketKey];
  };
  const row = async () => {
    const run = await fleetRun();
    return run ? (await runs.listRunIssues(run.id)).find((r) => r.number === 1) : undefined;
  };
  const prNumber = async () => (await row())?.prNumber;
  const traces = () =>
    existsSync(trace)
      ? readFileSync(trace, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { args: string[]; cwd: string; mode: string })
      : [];
  const builds = () =>
    existsSync(buildLog) ? readFileSync(buildLog, 'utf8').split('\n').filter(Boolean) : [];

  /** What the bot and the runner show now: for a timeout's message. */
  const state = async () => {
    const run = await fleetRun();
    const log = existsSync(runner.log) ? readFileSync(runner.log, 'utf8').split('\n') : [];
    return JSON.stringify(
      {
        run: run && { state: run.state, progress: run.progress },
        rows: run ? await runs.listRunIssues(run.id) : [],
        attempts: (await attempts()).map((a) => ({
          exitPath: a.exitPath,
          outcome: a.outcome,
          launchedAt: a.launchedAt,
          conflictFiles: a.conflictFiles,
          failure: a.failureSummary,
        })),
        trace: traces(),
        builds: builds(),
        runnerAlive: isAlive(runner.pid),
        runnerLog: log.slice(-30),
      },
      null,
      1,
    );
  };
  /** Polls `done` (bounded) and fails with the bot's and the runner's state: both are seen from outside. */
  const until = (what: string, done: () => Promise<boolean> | boolean, timeoutMs = 120_000) =>
    untilReached(what, done, { timeoutMs, everyMs: 250, detail: state });

  return {
    world,
    repo,
    origin,
    trigger,
    botWorkspace,
    runner,
    comment,
    fleetRun,
    attempts,
    ticket,
    row,
    prNumber,
    traces,
    builds,
    until,
    /** One whole orchestrator pass, now (beside the bot's own ticks every second). */
    tick: () => bot.orchestrator.tick(),
  };
};

type Booted = Awaited<ReturnType<typeof boot>>;

const reviewed = (b: Booted, pr: number) =>
  b.world.commentsOn(b.repo, pr).some((c) => c.body.includes(reviewMarkerTag));

/** `/ticket-fleet #1` → the PR from the runner's worktree is open and reviewed; the base then moves. */
const openPrThenMoveBase = async (b: Booted) => {
  await b.comment('/ticket-fleet #1', b.trigger);
  let pr: number | undefined;
  await b.until('the ticket’s PR open and reviewed', async () => {
    pr = await b.prNumber();
    return pr !== undefined && b.world.pull(b.repo, pr)?.pull !== undefined && reviewed(b, pr);
  });
  const [attempt] = await b.attempts();
  expect(await b.attempts()).toHaveLength(1);
  // It ran on the runner (whose token reported it); its paths are on that host, and the bot keeps none.
  expect(attempt!.runner).toBe(runnerName);
  expect(attempt!).toMatchObject({ exitPath: '', worktree: '' });
  expect(attempt!.outcome).toBe('solved');
  expect(b.world.pull(b.repo, pr!)!.pull!.head).toBe('ticket/1-headless');
  // The worker ran in the runner's own workspace.
  const [first] = b.traces();
  expect(first?.mode).toBe('conflict');
  expect(first!.cwd.startsWith(b.runner.workspace)).toBe(true);

  // The base moves the same line under the PR: it conflicts now.
  const work = join(tempDir('blitz-fleet-remote-base-'), 'work');
  cleanups.push(() => removeDir(join(work, '..')));
  await gitIn(join(work, '..'), 'clone', '--quiet', b.origin.bareDir, work);
  await commitAndPush(work, { 'README.md': '# app, as the base now says\n' }, 'README: base moves');
  expect(b.world.count('merge')).toBe(0);
  return { pr: pr!, attempt: attempt! };
};

/** No worktree, and no repo clone, for anything in the bot's own workspace. */
const botHostUntouched = (b: Booted) => {
  const worktrees = join(b.botWorkspace, '.worktrees');
  expect(existsSync(worktrees) ? readdirSync(worktrees, { recursive: true }) : []).toEqual([]);
  expect(existsSync(join(b.botWorkspace, 'acme', 'app'))).toBe(false);
  for (const t of b.traces()) expect(t.cwd.startsWith(b.botWorkspace), t.cwd).toBe(false);
};

describe('a ticket fleet whose only runner is a `blitz-bot runner` process on another host', () => {
  it('opens the PR from the runner, resolves the conflict and runs the build on the runner’s host, then merges and closes the ticket', async () => {
    const b = await boot({ buildFails: false });
    const { pr, attempt } = await openPrThenMoveBase(b);

    await b.comment('/merge', pr);
    await b.until('the PR merged and ticket #1 closed', () =>
      Boolean(b.world.pull(b.repo, pr)?.pull?.merged && b.world.issue(b.repo, 1)?.state === 'closed'),
    );
    expect(b.world.count('merge', 'acme/app', pr)).toBe(1);
    expect(b.world.count('close', 'acme/app', 1)).toBe(1);

    // The same attempt was resumed (no new one) on its host, for the conflict the base merge left there.
    const after = await b.attempts();
    expect(after.map((a) => a.id)).toEqual([attempt.id]);
    expect(after[0]!.conflictFiles).toEqual(['README.md']);
    expect(after[0]!.outcome).toBe('solved');
    expect(after[0]!.launchedAt).not.toBe(attempt.launchedAt);
    // Counted on the ticket's row, where the blitz counts its tries.
    expect((await b.row())?.conflictResumes).toBe(1);
    const resumed = b.traces().filter((t) => t.args.includes('--resume'));
    expect(resumed.map((t) => t.mode)).toEqual(['merge-base']);
    expect(resumed[0]!.cwd.startsWith(b.runner.workspace)).toBe(true);

    // The merged main holds both sides of the conflict and no marker.
    const readme = await originFile(b.origin.bareDir, 'main', 'README.md');
    expect(readme).toContain('# rewritten for #1');
    expect(readme).toContain('# app, as the base now says');
    expect(readme).not.toMatch(/^(<{7}|>{7}|={7})/m);

    // The build ran once, in the attempt's worktree on the runner's host.
    const ran = b.builds();
    expect(ran).toHaveLength(1);
    expect(ran[0]!.startsWith(join(b.runner.workspace, '.worktrees'))).toBe(true);
    expect(ran[0]).toBe(resumed[0]!.cwd);
    botHostUntouched(b);
    // The squash-merged ticket's worktree goes on the runner's host too (a cleanup through its queue).
    await b.until('the runner to remove the merged worktree', () => !existsSync(ran[0]!));
  }, 180_000);

  it('merges nothing when the build fails on the runner’s host after the base was merged in, and says so', async () => {
    const b = await boot({ buildFails: true });
    const { pr, attempt } = await openPrThenMoveBase(b);

    await b.comment('/merge', pr);
    await b.until(
      'the ticket’s note to say the build failed',
      async () => (await b.ticket())?.note === 'the tests failed after the base was merged in',
    );
    // The resumed worker resolved the conflict on its host; only the build stopped the merge.
    const [after] = await b.attempts();
    expect(after!.id).toBe(attempt.id);
    expect(after!.conflictFiles).toEqual(['README.md']);
    expect(after!.outcome).toBe('solved');
    const ran = b.builds();
    expect(ran).toHaveLength(1);
    expect(ran[0]!.startsWith(join(b.runner.workspace, '.worktrees'))).toBe(true);
    // The word is spent; a few more ticks change nothing.
    expect((await b.ticket())?.mergeRequestedBy).toBeUndefined();
    for (let i = 0; i < 3; i++) await b.tick();
    expect(b.world.pull(b.repo, pr)!.pull!.merged).toBe(false);
    expect(b.world.count('merge')).toBe(0);
    expect(b.world.issue(b.repo, 1)?.state).toBe('open');
    expect(b.builds()).toHaveLength(1);
    botHostUntouched(b);
  }, 180_000);

  it('acts on the runner’s report at once: the PR opens after the attempt ends with no cron tick in between', async () => {
    // The cron never fires by itself here: the command's own pass dispatches, and only the runner's
    // report that ends the attempt can ask for the pass that opens the PR.
    const cron = manualCron();
    const b = await boot({ buildFails: false, cron: cron.start });
    await b.comment('/ticket-fleet #1', b.trigger);
    await b.until('the runner’s attempt to end', async () => (await b.attempts())[0]?.outcome === 'solved');
    await b.until('the ticket’s PR open', async () => {
      const pr = await b.prNumber();
      return pr !== undefined && b.world.pull(b.repo, pr)?.pull !== undefined;
    });
    expect(cron.fired()).toBe(0);
    expect((await b.attempts())[0]!.runner).toBe(runnerName);
    botHostUntouched(b);
  }, 180_000);
});
