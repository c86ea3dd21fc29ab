// Supervision with real processes: stall → nudge → resume → push, timeouts, cancel, an interrupted
// worker resumed in its worktree, credentials kept out of .git/config, cleanup and the build gate.
import { appendFileSync, chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isAlive, killGroup } from '../../src/runner/exec.ts';
import { InMemoryAttemptLedger } from '../../src/runner/ledger.ts';
import { readTreeActivity } from '../../src/runner/process-tree.ts';
import { BUSY_CPU_MS } from '../../src/runner/stall.ts';
import type { AttemptRecord } from '../../src/runner/types.ts';
import { commandsOf } from '../support/command-counts.ts';
import { commitAndPush, createOrigin, gitIn, originFile, originSha, tempDir } from '../support/git.ts';
import { attemptJob, fakeEntry, makeHarness, settle } from '../support/runner-harness.ts';
import { until } from '../support/until.ts';

/**
 * A git in front of the real one that records each call's argv and environment, then runs it: put
 * `bin` in front of PATH. `calls()` reads what it saw so far.
 */
const gitSpy = () => {
  const bin = tempDir('blitz-git-spy-');
  const file = join(bin, 'calls.jsonl');
  const real = (process.env.PATH ?? '')
    .split(':')
    .map((dir) => join(dir, 'git'))
    .find((p) => existsSync(p));
  if (!real) throw new Error('no git on PATH');
  writeFileSync(
    join(bin, 'git'),
    `#!${process.execPath}
const args = process.argv.slice(2);
require('node:fs').appendFileSync(${JSON.stringify(file)}, JSON.stringify({ args, env: process.env }) + '\\n');
const r = require('node:child_process').spawnSync(${JSON.stringify(real)}, args, { stdio: 'inherit' });
process.exit(r.status ?? 1);
`,
  );
  chmodSync(join(bin, 'git'), 0o755);
  const calls = (): { args: string[]; env: Record<string, string> }[] =>
    existsSync(file)
      ? readFileSync(file, 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as { args: string[]; env: Record<string, string> })
      : [];
  return { bin, calls };
};

/** git's subcommand in a recorded argv (past `-c key=value` settings). */
const subcommand = (args: string[]) => args.find((x, i) => !x.startsWith('-') && args[i - 1] !== '-c');

describe('runner supervision', () => {
  it('a silent worker is stalled after two identical checks, nudged, resumed in the same worktree, and pushes', async () => {
    const origin = await createOrigin();
    const trace = join(tempDir(), 'trace.jsonl');
    const h = makeHarness();
    const entry = fakeEntry({
      FAKE_AGENT_MODE: 'stall',
      FAKE_AGENT_RESUME_MODE: 'push',
      FAKE_AGENT_TRACE: trace,
    });
    const r = await h.runner.execute(attemptJob(origin.url, entry));
    if (r.kind !== 'attempt') throw new Error('expected an attempt');
    const a = r.attempt;
    await until('the worker wrote its log', () => statSync(a.logPath).size > 0, { everyMs: 50 });
    const firstPid = a.pid!;

    await h.runner.tick(); // first observation
    expect(h.events.some((e) => e.type === 'attempt.nudged')).toBe(false);
    await h.runner.tick(); // same log size, same HEAD, same remote: stalled → nudge
    expect(h.events.filter((e) => e.type === 'attempt.nudged')).toEqual([
      { type: 'attempt.nudged', attemptId: a.id, nudges: 1 },
    ]);
    expect(isAlive(firstPid)).toBe(false);

    const done = await settle(h, a.id);
    expect(done).toMatchObject({ outcome: 'solved', nudges: 1 });
    expect(done.pid).not.toBe(firstPid);
    const calls = readFileSync(trace, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(calls.map((c) => c.mode)).toEqual(['stall', 'push']);
    expect(calls[1].args[0]).toBe('--resume');
    expect(calls[1].cwd).toBe(calls[0].cwd);
    const nudge = readFileSync(calls[1].args[1], 'utf8');
    expect(nudge).toContain('no output and no new commits for two checks in a row');
    expect(nudge).toContain('Do not end your final reply until ALL of these are true:');
    expect(await originFile(origin.url, done.branch, 'fake-7.txt')).toContain('done by fake agent');
  });

  it('a tell nudge stops a running worker and resumes its session with the message; an ended session is refused', async () => {
    const origin = await createOrigin();
    const trace = join(tempDir(), 'trace.jsonl');
    const h = makeHarness();
    const entry = fakeEntry({
      FAKE_AGENT_MODE: 'stall',
      FAKE_AGENT_RESUME_MODE: 'push',
      FAKE_AGENT_TRACE: trace,
    });
    const r = await h.runner.execute(attemptJob(origin.url, entry));
    if (r.kind !== 'attempt') throw new Error('expected an attempt');
    const a = r.attempt;
    await until('the worker wrote its log', () => statSync(a.logPath).size > 0, { everyMs: 50 });
    const firstPid = a.pid!;
    const tell = {
      kind: 'resume' as const,
      attemptId: a.id,
      reason: 'tell' as const,
      conflictFiles: [],
      feedback: '```text\nalice: call it v2\n```',
    };
    // A nudge for a session the bot did not see (another feedback resume count) is refused.
    await expect(h.runner.execute({ ...tell, interrupt: { feedbackResumes: 1 } })).rejects.toMatchObject({
      code: 'conflict',
    });
    expect(isAlive(firstPid)).toBe(true);

    const resumed = await h.runner.execute({ ...tell, interrupt: { feedbackResumes: 0 } });
    expect(isAlive(firstPid)).toBe(false);
    expect(resumed).toMatchObject({ kind: 'resume', attempt: { feedbackResumes: 1 } });
    const done = await settle(h, a.id);
    expect(done).toMatchObject({ outcome: 'solved', nudges: 0, feedbackResumes: 1 });
    const calls = readFileSync(trace, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(calls.map((c) => c.mode)).toEqual(['stall', 'push']);
    expect(calls[1].args[0]).toBe('--resume');
    expect(calls[1].prompt).toContain('sent you a message about this task');
    expect(calls[1].prompt).toContain('alice: call it v2');
    // The session ended: a nudge finds nothing running and is refused (the bot keeps the message).
    await expect(h.runner.execute({ ...tell, interrupt: { feedbackResumes: 1 } })).rejects.toMatchObject({
      code: 'conflict',
    });
    expect(readFileSync(trace, 'utf8').trim().split('\n')).toHaveLength(2);
  });

  it('a tick while a feedback resume relaunches the session leaves it alone: the session is resumed once', async () => {
    const origin = await createOrigin();
    const trace = join(tempDir(), 'trace.jsonl');
    // The race from a CI run: the resume reopens the attempt in the ledger (its pid still the ended
    // worker's) and only then launches; a supervision pass in between took the dead pid for an exit
    // without an exit file and resumed the session a second time, as "interrupted".
    let h: ReturnType<typeof makeHarness> | undefined;
    let ticksInside = 0;
    class TickingLedger extends InMemoryAttemptLedger {
      override async update(id: string, patch: Partial<Omit<AttemptRecord, 'id'>>): Promise<AttemptRecord> {
        const updated = await super.update(id, patch);
        if ('outcome' in patch && patch.outcome === undefined && h) {
          ticksInside++;
          await h.runner.tick({ stalls: false });
        }
        return updated;
      }
    }
    h = makeHarness({ ledger: new TickingLedger() });
    const entry = fakeEntry({
      FAKE_AGENT_MODE: 'push',
      FAKE_AGENT_RESUME_MODE: 'push',
      FAKE_AGENT_TRACE: trace,
    });
    const r = await h.runner.execute(attemptJob(origin.url, entry));
    if (r.kind !== 'attempt') throw new Error('expected an attempt');
    const a = r.attempt;
    expect((await settle(h, a.id)).outcome).toBe('solved');

    const resumed = await h.runner.execute({
      kind: 'resume',
      attemptId: a.id,
      reason: 'ci_failed',
      conflictFiles: [],
      feedback: "The repository's CI failed on its head.",
    });
    expect(ticksInside).toBe(1);
    expect(resumed).toMatchObject({ kind: 'resume', attempt: { feedbackResumes: 1 } });
    const done = await settle(h, a.id);
    expect(done).toMatchObject({ outcome: 'solved', nudges: 0, feedbackResumes: 1 });
    expect(h.events.filter((e) => e.type === 'attempt.resumed').map((e) => e.reason)).toEqual(['ci_failed']);
    const calls = readFileSync(trace, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(calls.map((c) => c.args[0] === '--resume')).toEqual([false, true]);
  });

  it('a worker that is busy (log growing) is not stalled', async () => {
    const origin = await createOrigin();
    const h = makeHarness();
    const r = await h.runner.execute(
      attemptJob(origin.url, fakeEntry({ FAKE_AGENT_MODE: 'slow-push', FAKE_AGENT_DELAY_MS: '3000' })),
    );
    if (r.kind !== 'attempt') throw new Error('expected an attempt');
    await until('the worker wrote its log', () => statSync(r.attempt.logPath).size > 0, { everyMs: 50 });
    await h.runner.tick();
    // The next check comes once the worker has written more (an event, not a fixed wait).
    const seen = statSync(r.attempt.logPath).size;
    await until('the worker wrote more log', () => statSync(r.attempt.logPath).size > seen, { everyMs: 50 });
    await h.runner.tick();
    expect(h.events.some((e) => e.type === 'attempt.nudged')).toBe(false);
    expect((await settle(h, r.attempt.id)).outcome).toBe('solved');
  });

  it('a worker running a quiet command is busy, not stalled, across many checks, and then solves', async () => {
    const origin = await createOrigin();
    const h = makeHarness();
    const pidFile = join(tempDir(), 'child.pid');
    const r = await h.runner.execute(
      attemptJob(
        origin.url,
        fakeEntry({ FAKE_AGENT_MODE: 'quiet-command', FAKE_AGENT_CHILD_PID_FILE: pidFile }),
      ),
    );
    if (r.kind !== 'attempt') throw new Error('expected an attempt');
    await until(
      'the worker wrote its pid file',
      () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').length > 0,
      { everyMs: 50 },
    );
    const child = Number(readFileSync(pidFile, 'utf8'));
    await until(
      'a command ran in the worker tree',
      () => (readTreeActivity(r.attempt.pid!)?.commands ?? 0) > 0,
      { everyMs: 50 },
    );
    // Nothing in the log, no commit, an idle `sleep`: only the running command keeps it from a stall.
    for (let i = 0; i < 4; i++) await h.runner.tick();
    expect(h.events.filter((e) => e.type === 'attempt.nudged')).toEqual([]);
    expect((await h.ledger.get(r.attempt.id))?.outcome).toBeUndefined();
    process.kill(child, 'SIGTERM');
    expect((await settle(h, r.attempt.id)).outcome).toBe('solved');
  });

  it('a worker whose tool refused its commands ends needing a person, with the denial and the rule to allow', async () => {
    const origin = await createOrigin();
    const h = makeHarness();
    const r = await h.runner.execute(
      attemptJob(origin.url, fakeEntry({ FAKE_AGENT_MODE: 'refused', FAKE_AGENT_FORMAT: 'claude' })),
    );
    if (r.kind !== 'attempt') throw new Error('expected an attempt');
    const done = await settle(h, r.attempt.id);
    // Not nudged (the nudge would be refused the same way), not the model's failure: a person's allowlist.
    expect(done).toMatchObject({ outcome: 'stalled', nudges: 0 });
    expect(done.permissionDenials).toEqual([
      { tool: 'Bash', command: 'pytest -q tests', rule: 'Bash(pytest:*)' },
    ]);
    expect(done.failureSummary).toContain('`Bash(pytest:*)`');
    expect(h.events).toContainEqual({
      type: 'attempt.needs_person',
      attemptId: done.id,
      reason: done.failureSummary,
    });
    expect(h.events.some((e) => e.type === 'attempt.nudged' || e.type === 'attempt.resumed')).toBe(false);
  });

  it('a worker using CPU with a quiet log is busy, not stalled', async () => {
    const origin = await createOrigin();
    const h = makeHarness();
    const doneFile = join(tempDir(), 'done');
    const r = await h.runner.execute(
      attemptJob(origin.url, fakeEntry({ FAKE_AGENT_MODE: 'quiet-busy', FAKE_AGENT_DONE_FILE: doneFile })),
    );
    if (r.kind !== 'attempt') throw new Error('expected an attempt');
    const pid = r.attempt.pid!;
    const cpu = () => readTreeActivity(pid)?.cpuMs ?? 0;
    for (let i = 0; i < 3; i++) {
      // Each check comes once the tree has used more than the busy threshold since the last one.
      const seen = cpu();
      await h.runner.tick();
      await until('the worker tree spent CPU', () => cpu() > seen + BUSY_CPU_MS + 100, { everyMs: 50 });
    }
    await h.runner.tick();
    expect(h.events.filter((e) => e.type === 'attempt.nudged')).toEqual([]);
    writeFileSync(doneFile, '');
    expect((await settle(h, r.attempt.id)).outcome).toBe('solved');
  });

  it('kills a worker past the attempt timeout (by the injected clock) and records it', async () => {
    const origin = await createOrigin();
    const h = makeHarness({ runner: { attemptTimeoutMinutes: 5 } });
    const r = await h.runner.execute(attemptJob(origin.url, fakeEntry({ FAKE_AGENT_MODE: 'stall' })));
    if (r.kind !== 'attempt') throw new Error('expected an attempt');
    h.clock.advance(6 * 60_000);
    await h.runner.tick();
    const done = (await h.ledger.get(r.attempt.id))!;
    expect(done).toMatchObject({ outcome: 'unsolved', failureSummary: 'Timed out and was stopped.' });
    expect(isAlive(r.attempt.pid!)).toBe(false);
  });

  it('cancels a running worker: the process group is gone and the attempt is cancelled', async () => {
    const origin = await createOrigin();
    const h = makeHarness();
    const r = await h.runner.execute(attemptJob(origin.url, fakeEntry({ FAKE_AGENT_MODE: 'stall' })));
    if (r.kind !== 'attempt') throw new Error('expected an attempt');
    await expect(
      h.runner.execute({ kind: 'resume', attemptId: r.attempt.id, reason: 'interrupted' }),
    ).rejects.toMatchObject({
      code: 'conflict',
    });
    const c = await h.runner.execute({ kind: 'cancel', attemptId: r.attempt.id });
    if (c.kind !== 'cancel') throw new Error('expected cancel');
    expect(c.attempt.outcome).toBe('cancelled');
    expect(isAlive(r.attempt.pid!)).toBe(false);
    expect(h.events.at(-1)).toMatchObject({ type: 'attempt.finished', outcome: 'cancelled' });
  });

  it('resumes an interrupted worker in its worktree after checking what survived (unpushed commit)', async () => {
    const origin = await createOrigin();
    const h = makeHarness();
    const entry = fakeEntry({ FAKE_AGENT_MODE: 'commit-then-stall', FAKE_AGENT_RESUME_MODE: 'push' });
    const r = await h.runner.execute(attemptJob(origin.url, entry));
    if (r.kind !== 'attempt') throw new Error('expected an attempt');
    const a = r.attempt;
    await until(
      'the worker committed',
      async () => (await gitIn(a.worktree, 'log', '--oneline', 'origin/main..HEAD')).length > 0,
      { everyMs: 50 },
    );
    // The host dies: wrapper and agent are killed without a chance to write exit.json.
    killGroup(a.pid!, 'SIGKILL');
    await until('the worker exited', () => !isAlive(a.pid!), { everyMs: 50 });
    expect(existsSync(a.exitPath)).toBe(false);

    await h.runner.tick({ stalls: false });
    const resumed = h.events.find((e) => e.type === 'attempt.resumed');
    expect(resumed).toMatchObject({ reason: 'interrupted', survived: { unpushedCommits: 1, dirtyFiles: 0 } });
    const done = await settle(h, a.id);
    expect(done.outcome).toBe('solved');
    expect(done.survived).toEqual({ unpushedCommits: 1, dirtyFiles: 0 });
    expect(done.worktree).toBe(a.worktree);
  });

  it('passes credentials per command: the token is in neither .git/config, the ledger nor the log', async () => {
    const origin = await createOrigin();
    const token = 'ghs_0123456789abcdefghijklmnopqrstuvwxyz';
    const h = makeHarness({ credentials: { username: 'x-access-token', token } });
    const r = await h.runner.execute(attemptJob(origin.url, fakeEntry()));
    if (r.kind !== 'attempt') throw new Error('expected an attempt');
    const done = await settle(h, r.attempt.id);
    expect(done.outcome).toBe('solved');
    const basic = Buffer.from(`x-access-token:${token}`).toString('base64');
    const gitConfig = readFileSync(join(done.repoDir, '.git', 'config'), 'utf8');
    expect(gitConfig).toContain(`url = ${origin.url}`);
    for (const text of [
      gitConfig,
      JSON.stringify(await h.ledger.get(done.id)),
      readFileSync(done.logPath, 'utf8'),
    ]) {
      expect(text).not.toContain(token);
      expect(text).not.toContain(basic);
    }
  });

  it('hands the credentials to git only to talk to origin: no local read or write holds the token in its environment or argv', async () => {
    const origin = await createOrigin();
    const token = 'ghs_local0123456789abcdefghijklmnopqrstu';
    const basic = Buffer.from(`x-access-token:${token}`).toString('base64');
    const spy = gitSpy();
    const h = makeHarness({ credentials: { username: 'x-access-token', token }, pathPrepend: [spy.bin] });
    const entry = fakeEntry({ FAKE_AGENT_MODE: 'commit-then-stall', FAKE_AGENT_RESUME_MODE: 'push' });
    const r = await h.runner.execute(attemptJob(origin.url, entry));
    if (r.kind !== 'attempt') throw new Error('expected an attempt');
    const a = r.attempt;
    await until(
      'the worker committed',
      async () => (await gitIn(a.worktree, 'log', '--oneline', 'origin/main..HEAD')).length > 0,
      { everyMs: 50 },
    );
    await h.runner.tick(); // reads the refs, pushes the commit
    await h.runner.tick(); // nothing moved: stalled, nudged, resumed (what survived: status, log)
    expect(h.events.filter((e) => e.type === 'attempt.resumed')).toHaveLength(1);
    expect((await settle(h, a.id)).outcome).toBe('solved');

    const seen = spy.calls();
    const sub = subcommand;
    const remote = new Set(['clone', 'fetch', 'push', 'ls-remote']);
    const holds = (c: { args: string[]; env: Record<string, string> }) =>
      [...c.args, ...Object.values(c.env)].some((v) => v.includes(token) || v.includes(basic));
    const local = seen.filter((c) => !remote.has(sub(c.args) ?? ''));
    // The spy sees what the runner hands git: its pushes and ls-remotes do carry the credentials.
    expect(seen.some((c) => sub(c.args) === 'push' && holds(c))).toBe(true);
    expect(seen.some((c) => sub(c.args) === 'ls-remote' && holds(c))).toBe(true);
    // The supervision tick's and the resume's local reads were all seen, none holding the token.
    for (const cmd of ['show-ref', 'rev-parse', 'rev-list', 'status', 'bundle', 'update-ref'])
      expect(local.map((c) => sub(c.args))).toContain(cmd);
    expect(local.filter(holds).map((c) => c.args.join(' '))).toEqual([]);
  }, 60_000);

  it('a tick asks origin nothing: a new commit is pushed once, and a quiet worker costs no git that talks to a remote and no credentials', async () => {
    const origin = await createOrigin();
    const spy = gitSpy();
    let asked = 0;
    const h = makeHarness({
      pathPrepend: [spy.bin],
      credentials: { username: 'x-access-token', token: 'ghs_quiet0123456789abcdefghijklmnopqrstu' },
      onCredentials: () => asked++,
    });
    const r = await h.runner.execute(
      attemptJob(origin.url, fakeEntry({ FAKE_AGENT_MODE: 'commit-then-stall' })),
    );
    if (r.kind !== 'attempt') throw new Error('expected an attempt');
    const a = r.attempt;
    await until(
      'the worker committed',
      async () => (await gitIn(a.worktree, 'log', '--oneline', 'origin/main..HEAD')).length > 0,
      { everyMs: 50 },
    );
    const remote = new Set(['clone', 'fetch', 'push', 'ls-remote']);
    /** The git commands of one tick that talk to a remote, and how often it asked for credentials. */
    const tickSees = async () => {
      const [before, askedBefore] = [spy.calls().length, asked];
      await h.runner.tick();
      const calls = spy
        .calls()
        .slice(before)
        // The worker's commits come into the runner's clone from a bundle file, not from origin.
        .filter((c) => !c.args.some((a) => a.endsWith('.bundle')))
        .map((c) => subcommand(c.args) ?? '')
        .filter((c) => remote.has(c));
      return { remote: calls, credentials: asked - askedBefore };
    };
    // The worker's commit is pushed by the tick that first sees it, and nothing else asks origin.
    expect(await tickSees()).toEqual({ remote: ['push'], credentials: 1 });
    const head = await gitIn(a.worktree, 'rev-parse', 'HEAD');
    expect(await originSha(origin.url, a.branch)).toBe(head);
    // The worker writes on, commits nothing: the next ticks push nothing and ask origin nothing.
    for (let t = 0; t < 2; t++) {
      appendFileSync(a.logPath, `working ${t}\n`);
      expect(await tickSees()).toEqual({ remote: [], credentials: 0 });
    }
    expect(h.events.some((e) => e.type === 'attempt.nudged')).toBe(false);
    await h.runner.execute({ kind: 'cancel', attemptId: a.id });
  });

  it('reuses and fetches the clone for the next issue and sees new commits on origin', async () => {
    const origin = await createOrigin();
    const h = makeHarness();
    const first = await h.runner.execute(attemptJob(origin.url, fakeEntry()));
    if (first.kind !== 'attempt') throw new Error('expected an attempt');
    await settle(h, first.attempt.id);
    await commitAndPush(origin.work, { 'NEW.md': 'moved\n' }, 'base moved');
    const second = await h.runner.execute(
      attemptJob(origin.url, fakeEntry(), { issue: { repo: { owner: 'acme', name: 'app' }, number: 8 } }),
    );
    if (second.kind !== 'attempt') throw new Error('expected an attempt');
    expect(second.attempt.repoDir).toBe(first.attempt.repoDir);
    expect(existsSync(join(second.attempt.worktree, 'NEW.md'))).toBe(true);
    await settle(h, second.attempt.id);
  });

  it('cleanup removes the repositories of merged branches and deletes those branches, keeping unmerged ones', async () => {
    const origin = await createOrigin();
    const h = makeHarness();
    const ids: string[] = [];
    for (const n of [21, 22]) {
      const r = await h.runner.execute(
        attemptJob(origin.url, fakeEntry(), { issue: { repo: { owner: 'acme', name: 'app' }, number: n } }),
      );
      if (r.kind !== 'attempt') throw new Error('expected an attempt');
      ids.push((await settle(h, r.attempt.id)).id);
    }
    const [merged, open] = await Promise.all(ids.map(async (id) => (await h.ledger.get(id))!));
    await gitIn(origin.work, 'fetch', '--quiet', 'origin');
    await gitIn(origin.work, 'merge', '--quiet', '--no-edit', `origin/${merged!.branch}`);
    await gitIn(origin.work, 'push', '--quiet', 'origin', 'main');

    const res = await h.runner.execute({
      kind: 'cleanup',
      repo: { owner: 'acme', name: 'app' },
      mergedInto: 'main',
      attemptIds: ids,
    });
    expect(res).toEqual({
      kind: 'cleanup',
      removed: [merged!.worktree],
      kept: [open!.worktree],
      deletedBranches: [merged!.branch],
    });
    expect(existsSync(merged!.worktree)).toBe(false);
    expect(existsSync(open!.worktree)).toBe(true);
  });

  it('two cleanups of one clone asked together: one fetch, and the merged branch deleted once', async () => {
    const origin = await createOrigin();
    const h = makeHarness();
    const ids: string[] = [];
    for (const n of [23, 24]) {
      const r = await h.runner.execute(
        attemptJob(origin.url, fakeEntry(), { issue: { repo: { owner: 'acme', name: 'app' }, number: n } }),
      );
      if (r.kind !== 'attempt') throw new Error('expected an attempt');
      ids.push((await settle(h, r.attempt.id)).id);
    }
    const [merged, open] = await Promise.all(ids.map(async (id) => (await h.ledger.get(id))!));
    await gitIn(origin.work, 'fetch', '--quiet', 'origin');
    await gitIn(origin.work, 'merge', '--quiet', '--no-edit', `origin/${merged!.branch}`);
    await gitIn(origin.work, 'push', '--quiet', 'origin', 'main');

    const cleanup = () =>
      h.runner.execute({
        kind: 'cleanup',
        repo: { owner: 'acme', name: 'app' },
        mergedInto: 'main',
        attemptIds: ids,
      });
    let results: unknown[] = [];
    const commands = await commandsOf(async () => {
      results = await Promise.all([cleanup(), cleanup()]);
    });
    expect(results).toEqual([
      {
        kind: 'cleanup',
        removed: [merged!.worktree],
        kept: [open!.worktree],
        deletedBranches: [merged!.branch],
      },
      { kind: 'cleanup', removed: [], kept: [open!.worktree], deletedBranches: [] },
    ]);
    // The second waited for the first and found its fetch and its deletion done: `branch --merged`
    // twice, `branch -D` once.
    expect(commands['git fetch']).toBe(1);
    expect(commands['git branch']).toBe(3);
  });

  it('cleanup removes a squash-merged branch’s worktree only while the branch is still at the merged head', async () => {
    const origin = await createOrigin();
    const h = makeHarness();
    const ids: string[] = [];
    for (const n of [31, 32]) {
      const r = await h.runner.execute(
        attemptJob(origin.url, fakeEntry(), { issue: { repo: { owner: 'acme', name: 'app' }, number: n } }),
      );
      if (r.kind !== 'attempt') throw new Error('expected an attempt');
      ids.push((await settle(h, r.attempt.id)).id);
    }
    const [squashed, movedOn] = await Promise.all(ids.map(async (id) => (await h.ledger.get(id))!));
    const heads = await Promise.all(
      [squashed!, movedOn!].map(async (a) => (await originSha(origin.url, a.branch))!),
    );
    // Both are squash-merged into main (a new commit: neither branch is an ancestor of main) …
    await gitIn(origin.work, 'fetch', '--quiet', 'origin');
    for (const a of [squashed!, movedOn!]) {
      await gitIn(origin.work, 'merge', '--squash', `origin/${a.branch}`);
      await gitIn(origin.work, 'commit', '--quiet', '-m', `squash ${a.branch}`);
    }
    await gitIn(origin.work, 'push', '--quiet', 'origin', 'main');
    // … but one worktree has a new commit since its merged head: that work is not on main.
    await commitAndPush(movedOn!.worktree, { 'later.txt': 'after the merge\n' }, 'later', movedOn!.branch);

    const without = await h.runner.execute({
      kind: 'cleanup',
      repo: { owner: 'acme', name: 'app' },
      mergedInto: 'main',
      attemptIds: ids,
    });
    expect(without).toMatchObject({ removed: [], deletedBranches: [] });

    const res = await h.runner.execute({
      kind: 'cleanup',
      repo: { owner: 'acme', name: 'app' },
      mergedInto: 'main',
      attemptIds: ids,
      mergedHeads: heads,
    });
    expect(res).toEqual({
      kind: 'cleanup',
      removed: [squashed!.worktree],
      kept: [movedOn!.worktree],
      deletedBranches: [squashed!.branch],
    });
    expect(existsSync(squashed!.worktree)).toBe(false);
    expect(existsSync(movedOn!.worktree)).toBe(true);
    await expect(
      h.runner.execute({
        kind: 'cleanup',
        repo: { owner: 'acme', name: 'app' },
        mergedInto: 'main',
        mergedHeads: ['not a sha; rm -rf /'],
      }),
    ).rejects.toThrow(/must be a commit sha/);
  });

  it('runs a build through the gate inside the workspace and refuses a cwd outside it', async () => {
    const origin = await createOrigin({ 'package.json': '{}' });
    const h = makeHarness();
    const r = await h.runner.execute(attemptJob(origin.url, fakeEntry()));
    if (r.kind !== 'attempt') throw new Error('expected an attempt');
    await settle(h, r.attempt.id);
    const gate = await h.runner.execute({
      kind: 'gate',
      name: 'build',
      argv: ['node', '-e', 'console.log(require("fs").readdirSync(".").sort().join(","));process.exit(4)'],
      cwd: r.attempt.worktree,
    });
    expect(gate).toMatchObject({ kind: 'gate', name: 'build', result: { exitCode: 4, timedOut: false } });
    if (gate.kind === 'gate') expect(gate.result.tail).toContain('fake-7.txt');
    await expect(
      h.runner.execute({ kind: 'gate', name: 'smoke', argv: ['true'], cwd: '../../etc' }),
    ).rejects.toThrow(/outside the workspace/);
    expect(h.events.filter((e) => e.type === 'gate.finished')).toHaveLength(1);
  });

  describe('a retried attempt on a branch an earlier attempt already pushed (a lost runner, a moved lease)', () => {
    // Host A's worker pushed and then A died; the job went to host B, whose worker finds the work done.
    it('counts the work already on the branch: the worker exits cleanly without a new commit → solved', async () => {
      const origin = await createOrigin();
      const hostA = makeHarness();
      const first = await hostA.runner.execute(attemptJob(origin.url, fakeEntry()));
      if (first.kind !== 'attempt') throw new Error('expected an attempt');
      expect((await settle(hostA, first.attempt.id)).outcome).toBe('solved');
      const pushed = await originSha(origin.url, first.attempt.branch);

      const hostB = makeHarness({ runner: { maxNudges: 1 } });
      const second = await hostB.runner.execute(
        attemptJob(origin.url, fakeEntry({ FAKE_AGENT_MODE: 'nothing' }), { retry: 1 }),
      );
      if (second.kind !== 'attempt') throw new Error('expected an attempt');
      expect(second.attempt.originShaAtStart).toBe(pushed);
      const done = await settle(hostB, second.attempt.id);
      expect(done).toMatchObject({ outcome: 'solved', nudges: 0 });
      expect(hostB.events.some((e) => e.type === 'attempt.nudged')).toBe(false);
      expect(await originSha(origin.url, first.attempt.branch)).toBe(pushed);
    });

    it('a branch that exists but holds nothing beyond its base is not work: nudged, then stalled', async () => {
      const origin = await createOrigin();
      const hostA = makeHarness();
      const probe = await hostA.runner.execute(
        attemptJob(origin.url, fakeEntry({ FAKE_AGENT_MODE: 'stall' })),
      );
      if (probe.kind !== 'attempt') throw new Error('expected an attempt');
      await hostA.runner.execute({ kind: 'cancel', attemptId: probe.attempt.id });
      // The branch is on origin, at the base's own commit (pushed by hand, as a half-set-up attempt would).
      await gitIn(
        probe.attempt.worktree,
        'push',
        '--quiet',
        'origin',
        `HEAD:refs/heads/${probe.attempt.branch}`,
      );
      expect(await originSha(origin.url, probe.attempt.branch)).toBe(await originSha(origin.url, 'main'));

      const hostB = makeHarness({ runner: { maxNudges: 1 } });
      const nothing = fakeEntry({ FAKE_AGENT_MODE: 'nothing', FAKE_AGENT_RESUME_MODE: 'nothing' });
      const second = await hostB.runner.execute(attemptJob(origin.url, nothing, { retry: 1 }));
      if (second.kind !== 'attempt') throw new Error('expected an attempt');
      const done = await settle(hostB, second.attempt.id);
      expect(done).toMatchObject({ outcome: 'stalled', nudges: 1 });
    });

    it('work already on the branch that still holds conflict markers is never solved', async () => {
      const origin = await createOrigin();
      const hostA = makeHarness();
      const first = await hostA.runner.execute(
        attemptJob(origin.url, fakeEntry({ FAKE_AGENT_MODE: 'markers' })),
      );
      if (first.kind !== 'attempt') throw new Error('expected an attempt');
      expect((await settle(hostA, first.attempt.id)).outcome).toBe('unsolved');

      const hostB = makeHarness();
      const second = await hostB.runner.execute(
        attemptJob(origin.url, fakeEntry({ FAKE_AGENT_MODE: 'nothing' }), { retry: 1 }),
      );
      if (second.kind !== 'attempt') throw new Error('expected an attempt');
      const done = await settle(hostB, second.attempt.id);
      expect(done.outcome).toBe('unsolved');
      expect(done.failureSummary).toContain('Conflict markers left in fake-7.txt');
    });
  });
});
