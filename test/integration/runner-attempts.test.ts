// Attempts end to end: real bare origin, real clone and worktree, a real fake-agent process that
// commits and pushes (or fails in one of its ways), supervised by the real Runner.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { attemptCost, defaultPrices } from '../../src/plan/cost.ts';
import { InMemoryAttemptLedger } from '../../src/runner/ledger.ts';
import { worktreePathFor } from '../../src/runner/worktrees.ts';
import { createOrigin, originFile, originSha, tempDir } from '../support/git.ts';
import { attemptJob, fakeAgent, fakeEntry, makeHarness, settle } from '../support/runner-harness.ts';

const issue = { repo: { owner: 'acme', name: 'app' }, number: 7 };

describe('runner attempts', () => {
  it('solves an issue: the worker runs in its worktree, pushes, and the ledger records everything', async () => {
    const origin = await createOrigin({ 'README.md': '# app\n', 'CLAUDE.md': 'rules\n' });
    const trace = join(tempDir(), 'trace.jsonl');
    const h = makeHarness();
    const entry = fakeEntry({
      FAKE_AGENT_FORMAT: 'claude',
      FAKE_AGENT_TRACE: trace,
      FAKE_AGENT_CONTENT: 'health ok\n',
    });
    const started = await h.runner.execute(attemptJob(origin.url, entry));
    if (started.kind !== 'attempt') throw new Error('expected an attempt');
    expect(started.attempt.pid).toBeGreaterThan(0);

    const done = await settle(h, started.attempt.id);
    expect(done.outcome).toBe('solved');
    expect(done.exitCode).toBe(0);
    expect(done.branch).toBe('m1/7-add-a-health-route');
    expect(await originFile(origin.url, done.branch, 'fake-7.txt')).toBe('health ok');
    expect(done.tokens).toEqual({ input: 1200, output: 340, cache: 50, cacheWrite: 0 });
    expect(done.finalReport?.status).toBe('done — pushed');
    expect(done.argvRedacted).toEqual(['node', expect.stringContaining('fake-agent.mjs'), done.promptPath]);
    expect(done.worktree.startsWith(h.workspace)).toBe(true);
    expect(readFileSync(done.promptPath, 'utf8')).toContain('Read `CLAUDE.md`');

    const call = JSON.parse(readFileSync(trace, 'utf8').trim());
    expect(call.cwd).toBe(done.worktree);
    expect(call.args).toEqual([done.promptPath]);
    expect(call.env).toMatchObject({
      BLITZ_PROMPT_FILE: done.promptPath,
      BLITZ_WORKTREE: done.worktree,
      BLITZ_BRANCH: done.branch,
      BLITZ_BASE_BRANCH: 'main',
      BLITZ_ISSUE: '7',
      BLITZ_REPO: 'acme/app',
    });
    expect(h.events.map((e) => e.type)).toEqual(['attempt.started', 'attempt.finished']);
    expect(await h.ledger.totalsByIssue(issue)).toEqual({ input: 1200, output: 340, cache: 50, attempts: 1 });
  });

  it('records the model the tool said it ran when the roster names none, and the roster’s own otherwise', async () => {
    const origin = await createOrigin();
    const h = makeHarness();
    const tool = { FAKE_AGENT_FORMAT: 'claude', FAKE_AGENT_MODEL: 'claude-opus-5-5' };
    const own = await h.runner.execute(attemptJob(origin.url, fakeEntry(tool)));
    if (own.kind !== 'attempt') throw new Error('expected an attempt');
    expect(own.attempt.model).toBeUndefined();
    const done = await settle(h, own.attempt.id);
    expect(done.model).toBe('claude-opus-5-5');
    // Priced as Opus 5.5 (plan/cost.ts), not an unknown price.
    expect(attemptCost(defaultPrices, done)).toEqual({ micros: 4_800 + 6_800 + 10, unpriced: 0 });

    const named = { ...fakeEntry(tool, 'named'), model: 'sonnet' };
    const other = await h.runner.execute(
      attemptJob(origin.url, named, { issue: { repo: { owner: 'acme', name: 'app' }, number: 8 } }),
    );
    if (other.kind !== 'attempt') throw new Error('expected an attempt');
    expect((await settle(h, other.attempt.id)).model).toBe('sonnet');
  });

  it('tells its owner when a worker exits, and collects the exit at once, with no supervision tick', async () => {
    const origin = await createOrigin();
    let told: (id: string) => void = () => {};
    const exited = new Promise<string>((r) => {
      told = r;
    });
    const h = makeHarness({ onWorkerExit: (id) => told(id) });
    const started = await h.runner.execute(attemptJob(origin.url, fakeEntry()));
    if (started.kind !== 'attempt') throw new Error('expected an attempt');
    expect(await exited).toBe(started.attempt.id);
    expect((await h.ledger.get(started.attempt.id))?.outcome).toBeUndefined();
    await h.runner.collectExits();
    expect((await h.ledger.get(started.attempt.id))?.outcome).toBe('solved');
    expect(h.events.map((e) => e.type)).toEqual(['attempt.started', 'attempt.finished']);
  });

  it('an exit collected during a pass that failed does not fail every later collection', async () => {
    const origin = await createOrigin();
    let told: (id: string) => void = () => {};
    const exited = new Promise<string>((r) => {
      told = r;
    });
    const ledger = new InMemoryAttemptLedger();
    // The store goes away under one pass: its listing of open attempts fails once.
    let failOnce = false;
    const listOpen = ledger.listOpen.bind(ledger);
    ledger.listOpen = async () => {
      if (!failOnce) return listOpen();
      failOnce = false;
      throw new Error('read ECONNRESET');
    };
    const h = makeHarness({ ledger, onWorkerExit: (id) => told(id) });
    const started = await h.runner.execute(attemptJob(origin.url, fakeEntry()));
    if (started.kind !== 'attempt') throw new Error('expected an attempt');
    expect(await exited).toBe(started.attempt.id);

    // An exit is told while a pass is under way, and that pass fails.
    failOnce = true;
    const failing = h.runner.tick({ stalls: false });
    const firstFollowUp = h.runner.collectExits();
    await expect(failing).rejects.toThrow('read ECONNRESET');
    await firstFollowUp;
    // The store is back: the next exit told during a pass is collected after it, not failed with the old error.
    const pass = h.runner.tick({ stalls: false });
    const collected = h.runner.collectExits();
    await pass;
    await collected;
    expect((await h.ledger.get(started.attempt.id))?.outcome).toBe('solved');
  });

  it('starts two attempts on a fresh workspace at once: one clone, two worktrees, both solved', async () => {
    const origin = await createOrigin();
    const h = makeHarness();
    const results = await Promise.all(
      [31, 32].map((n) =>
        h.runner.execute(attemptJob(origin.url, fakeEntry(), { issue: { ...issue, number: n } })),
      ),
    );
    const ids = results.map((r) => (r.kind === 'attempt' ? r.attempt.id : ''));
    const done = await Promise.all(ids.map((id) => settle(h, id)));
    expect(done.map((d) => d.outcome)).toEqual(['solved', 'solved']);
    expect(done[0]!.repoDir).toBe(done[1]!.repoDir);
    expect(done[0]!.worktree).not.toBe(done[1]!.worktree);
  });

  it('keeps hostile titles inside the workspace: `; rm -rf /` and `../../etc`', async () => {
    const origin = await createOrigin();
    const h = makeHarness();
    for (const [n, title] of [
      [11, '; rm -rf /'],
      [12, '../../etc'],
    ] as const) {
      const r = await h.runner.execute(
        attemptJob(origin.url, fakeEntry(), { title, issue: { ...issue, number: n } }),
      );
      if (r.kind !== 'attempt') throw new Error('expected an attempt');
      const done = await settle(h, r.attempt.id);
      expect(done.outcome).toBe('solved');
      expect(done.worktree.startsWith(`${h.workspace}/.worktrees/acme/app/`)).toBe(true);
    }
    expect(await originSha(origin.url, 'm1/11-rm-rf')).not.toBeNull();
    expect(await originSha(origin.url, 'm1/12-etc')).not.toBeNull();
  });

  it('calls an exit 1 with "API Error: Connection refused" an environment failure, not retried, not charged', async () => {
    const origin = await createOrigin();
    const h = makeHarness({ runner: { retries: 2 } });
    const r = await h.runner.execute(attemptJob(origin.url, fakeEntry({ FAKE_AGENT_MODE: 'outage' })));
    if (r.kind !== 'attempt') throw new Error('expected an attempt');
    const done = await settle(h, r.attempt.id);
    expect(done.outcome).toBe('environment_failure');
    expect(done.failureSummary).toBe('Environment failure: model endpoint unreachable.');
    expect((await h.ledger.listByIssue(issue)).length).toBe(1);
    expect((await h.ledger.totalsByIssue(issue)).attempts).toBe(0);
  });

  it('resumes an attempt parked by an outage in its own worktree once the endpoint is back', async () => {
    const origin = await createOrigin();
    const h = makeHarness();
    const entry = fakeEntry({ FAKE_AGENT_MODE: 'outage', FAKE_AGENT_RESUME_MODE: 'push' });
    const r = await h.runner.execute(attemptJob(origin.url, entry));
    if (r.kind !== 'attempt') throw new Error('expected an attempt');
    expect((await settle(h, r.attempt.id)).outcome).toBe('environment_failure');
    const resumed = await h.runner.execute({
      kind: 'resume',
      attemptId: r.attempt.id,
      reason: 'interrupted',
    });
    expect(resumed).toMatchObject({ kind: 'resume', survived: { unpushedCommits: 0, dirtyFiles: 0 } });
    const done = await settle(h, r.attempt.id);
    expect(done).toMatchObject({ outcome: 'solved', worktree: r.attempt.worktree, nudges: 0 });
    expect((await h.ledger.listByIssue(issue)).length).toBe(1);
  });

  it('retries a failing attempt with the failure fed back into the next prompt', async () => {
    const origin = await createOrigin();
    const h = makeHarness({ runner: { retries: 1 } });
    const r = await h.runner.execute(attemptJob(origin.url, fakeEntry({ FAKE_AGENT_MODE: 'fail' })));
    if (r.kind !== 'attempt') throw new Error('expected an attempt');
    const first = await settle(h, r.attempt.id);
    expect(first).toMatchObject({ outcome: 'unsolved', exitCode: 3 });
    expect(first.failureSummary).toContain('tests failed: expected 200, got 500');
    const retried = h.events.find((e) => e.type === 'attempt.retried');
    if (retried?.type !== 'attempt.retried') throw new Error('no retry');
    const second = await settle(h, retried.nextAttemptId);
    expect(second.outcome).toBe('unsolved');
    expect(second.job.retry).toBe(1);
    expect(readFileSync(second.promptPath, 'utf8')).toContain('A previous attempt at this issue failed');
    expect(readFileSync(second.promptPath, 'utf8')).toContain('Exited with code 3');
    expect(h.events.filter((e) => e.type === 'attempt.retried')).toHaveLength(1);
  });

  it('never calls a pushed branch with conflict markers solved', async () => {
    const origin = await createOrigin();
    const h = makeHarness();
    const r = await h.runner.execute(
      attemptJob(origin.url, fakeEntry({ FAKE_AGENT_MODE: 'markers', FAKE_AGENT_FILE: 'merged.ts' })),
    );
    if (r.kind !== 'attempt') throw new Error('expected an attempt');
    const done = await settle(h, r.attempt.id);
    expect(done).toMatchObject({
      outcome: 'unsolved',
      exitCode: 0,
      failureSummary: 'Conflict markers left in merged.ts.',
    });
  });

  it('records a crash as unsolved with the error in the summary', async () => {
    const origin = await createOrigin();
    const h = makeHarness();
    const r = await h.runner.execute(attemptJob(origin.url, fakeEntry({ FAKE_AGENT_MODE: 'crash' })));
    if (r.kind !== 'attempt') throw new Error('expected an attempt');
    const done = await settle(h, r.attempt.id);
    expect(done.outcome).toBe('unsolved');
    expect(done.failureSummary).toContain('fake agent crashed');
  });

  it('nudges a worker that exits without pushing, then hands it to a person at the nudge cap', async () => {
    const origin = await createOrigin();
    const h = makeHarness({ runner: { maxNudges: 1 } });
    const entry = fakeEntry({ FAKE_AGENT_MODE: 'nothing', FAKE_AGENT_RESUME_MODE: 'nothing' });
    const r = await h.runner.execute(attemptJob(origin.url, entry));
    if (r.kind !== 'attempt') throw new Error('expected an attempt');
    const done = await settle(h, r.attempt.id);
    expect(done).toMatchObject({ outcome: 'stalled', nudges: 1 });
    expect(h.events.map((e) => e.type)).toEqual([
      'attempt.started',
      'attempt.started',
      'attempt.nudged',
      'attempt.resumed',
      'attempt.finished',
      'attempt.needs_person',
    ]);
  });
});

describe('a custom tool that names its session', () => {
  it('gets a session id chosen by the runner at start, and that same id on resume', async () => {
    const origin = await createOrigin();
    const trace = join(tempDir(), 'trace.jsonl');
    const h = makeHarness({ runner: { maxNudges: 1 } });
    const base = fakeEntry({
      FAKE_AGENT_MODE: 'nothing',
      FAKE_AGENT_RESUME_MODE: 'push',
      FAKE_AGENT_TRACE: trace,
    });
    const entry = {
      ...base,
      command: ['node', fakeAgent, '--session-id={session}', '{prompt_file}'],
      resume: ['node', fakeAgent, '--resume', '--session-id={session}', '{prompt_file}'],
    };
    const r = await h.runner.execute(attemptJob(origin.url, entry));
    if (r.kind !== 'attempt') throw new Error('expected an attempt');
    const done = await settle(h, r.attempt.id);
    expect(done).toMatchObject({ outcome: 'solved', nudges: 1 });
    expect(done.sessionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const calls = readFileSync(trace, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { args: string[]; env: Record<string, string> });
    expect(calls.map((c) => c.args.find((a) => a.startsWith('--session-id=')))).toEqual([
      `--session-id=${done.sessionId}`,
      `--session-id=${done.sessionId}`,
    ]);
    expect(calls.map((c) => c.env.BLITZ_SESSION)).toEqual([done.sessionId, done.sessionId]);
  });
});

describe('runner attempts that cannot start', () => {
  it('a roster entry whose binary is missing is an environment failure, and nothing is cloned', async () => {
    const origin = await createOrigin();
    const h = makeHarness();
    const entry = { ...fakeEntry(), command: ['no-such-agent-binary-xyz', '{prompt_file}'] };
    const r = await h.runner.execute(attemptJob(origin.url, entry));
    if (r.kind !== 'attempt') throw new Error('expected an attempt');
    expect(r.attempt.outcome).toBe('environment_failure');
    expect(r.attempt.failureSummary).toContain('command "no-such-agent-binary-xyz" was not found');
    expect(existsSync(join(h.workspace, 'acme'))).toBe(false);
    expect(h.events).toEqual([
      expect.objectContaining({ type: 'attempt.finished', outcome: 'environment_failure' }),
    ]);
  });

  it('a repo that fails to clone leaves no clone and no temp dir behind', async () => {
    const h = makeHarness();
    const r = await h.runner.execute(attemptJob(join(tempDir(), 'does-not-exist.git'), fakeEntry()));
    if (r.kind !== 'attempt') throw new Error('expected an attempt');
    expect(r.attempt.outcome).toBe('environment_failure');
    expect(r.attempt.failureSummary).toContain('Could not clone acme/app');
    expect(existsSync(join(h.workspace, 'acme', 'app'))).toBe(false);
    expect(readdirSync(join(h.workspace, 'acme'))).toEqual([]);
  });

  it('a worktree path that exists but is not ours is refused and left untouched', async () => {
    const origin = await createOrigin();
    const h = makeHarness();
    const path = worktreePathFor(h.workspace, issue.repo, 'm1/7-add-a-health-route');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(path, { recursive: true });
    writeFileSync(join(path, 'someone-elses.txt'), 'keep me');
    const r = await h.runner.execute(attemptJob(origin.url, fakeEntry()));
    if (r.kind !== 'attempt') throw new Error('expected an attempt');
    expect(r.attempt.outcome).toBe('environment_failure');
    expect(r.attempt.failureSummary).toContain("exists but is not the runner's worktree");
    expect(readFileSync(join(path, 'someone-elses.txt'), 'utf8')).toBe('keep me');
    expect(r.attempt.pid).toBeUndefined();
  });

  it('a clone URL carrying credentials is refused', async () => {
    const h = makeHarness();
    const r = await h.runner.execute(
      attemptJob('https://user:ghp_abcdefghijklmnopqrstuvwxyz@example.com/a/b.git', fakeEntry()),
    );
    if (r.kind !== 'attempt') throw new Error('expected an attempt');
    expect(r.attempt.failureSummary).toContain('must not carry credentials');
  });

  it('a malformed job is rejected before anything is recorded', async () => {
    const h = makeHarness();
    await expect(h.runner.execute({ kind: 'attempt' } as never)).rejects.toThrow();
    expect(await h.ledger.listOpen()).toEqual([]);
  });
});
