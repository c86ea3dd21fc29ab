// Runner follow-ups with real processes and git: a conflict resume finishes a base merge in the
// worker's worktree, the stall count survives a restart of the supervisor (the fingerprint is in the
// ledger), the whole FINAL REPORT is kept in the ledger, and a plan attempt is asked for PLAN.md.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isAlive } from '../../src/runner/exec.ts';
import { JsonFileAttemptLedger } from '../../src/runner/ledger.ts';
import { commitAndPush, createOrigin, gitIn, originFile, tempDir } from '../support/git.ts';
import { attemptJob, fakeEntry, makeHarness, settle } from '../support/runner-harness.ts';
import { until } from '../support/until.ts';

const traceLines = (file: string): { args: string[]; mode: string }[] =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

/** A worker rewrote README's first line and pushed; then the base moved the same line (a conflict to come). */
const solvedThenBaseMoves = async () => {
  const origin = await createOrigin({ 'README.md': '# app\nsecond line\n' });
  const trace = join(tempDir(), 'trace.jsonl');
  const h = makeHarness();
  const entry = fakeEntry({
    FAKE_AGENT_MODE: 'conflict',
    FAKE_AGENT_RESUME_MODE: 'merge-base',
    FAKE_AGENT_TRACE: trace,
  });
  const r = await h.runner.execute(attemptJob(origin.url, entry));
  if (r.kind !== 'attempt') throw new Error('expected an attempt');
  const first = await settle(h, r.attempt.id);
  expect(first.outcome).toBe('solved');
  await commitAndPush(origin.work, { 'README.md': '# app, base side\nsecond line\n' }, 'base moved');
  return { origin, trace, h, first };
};

describe('runner follow-ups', () => {
  it('a conflict resume names the conflicted files; the resumed worker resolves and commits the merge, the runner pushes it', async () => {
    const { origin, trace, h, first } = await solvedThenBaseMoves();
    // The bot merges the moved base in by hand and leaves the conflict.
    await gitIn(first.worktree, 'fetch', '--quiet', 'origin', 'main');
    await gitIn(first.worktree, 'merge', '--no-edit', 'origin/main').catch(() => undefined);
    expect(await gitIn(first.worktree, 'diff', '--name-only', '--diff-filter=U')).toContain('README.md');

    const res = await h.runner.execute({
      kind: 'resume',
      attemptId: first.id,
      reason: 'conflict',
      conflictFiles: ['README.md'],
    });
    expect(res.kind).toBe('resume');
    expect(h.events.find((e) => e.type === 'attempt.resumed')).toMatchObject({ reason: 'conflict' });
    const done = await settle(h, first.id);
    expect(done.outcome).toBe('solved');
    expect(done.nudges).toBe(0);
    const calls = traceLines(trace);
    expect(calls.map((c) => c.mode)).toEqual(['conflict', 'merge-base']);
    const prompt = readFileSync(calls[1]!.args[1]!, 'utf8');
    expect(prompt).toContain('`main` was merged into your branch');
    expect(prompt).toContain('- `README.md`');
    expect(prompt).toContain('Remove every conflict marker');
    expect(prompt).toContain('Re-run the tests and commit the merge (the runner pushes your branch)');
    const readme = await originFile(origin.url, done.branch, 'README.md');
    expect(readme).not.toMatch(/^(<{7}|={7}|>{7})/m);
    // The pushed branch now contains the base: the merge was committed.
    await gitIn(origin.work, 'fetch', '--quiet', 'origin');
    await gitIn(origin.work, 'merge-base', '--is-ancestor', 'origin/main', `origin/${done.branch}`);
  });

  it('with mergeBase the runner merges the base into the worktree itself and records the conflicted files', async () => {
    const { origin, trace, h, first } = await solvedThenBaseMoves();

    // mergeBase belongs to a conflict resume only: refused, and nothing is merged or relaunched.
    await expect(
      h.runner.execute({ kind: 'resume', attemptId: first.id, reason: 'nudge', mergeBase: 'main' }),
    ).rejects.toMatchObject({ code: 'bad_request' });
    expect(await gitIn(first.worktree, 'diff', '--name-only', '--diff-filter=U')).toBe('');
    expect((await h.ledger.get(first.id))?.pid).toBe(first.pid);

    await h.runner.execute({ kind: 'resume', attemptId: first.id, reason: 'conflict', mergeBase: 'main' });
    expect((await h.ledger.get(first.id))?.conflictFiles).toEqual(['README.md']);
    const done = await settle(h, first.id);
    expect(done).toMatchObject({ outcome: 'solved', conflictFiles: ['README.md'] });
    const calls = traceLines(trace);
    expect(calls.map((c) => c.mode)).toEqual(['conflict', 'merge-base']);
    expect(readFileSync(calls[1]!.args[1]!, 'utf8')).toContain('- `README.md`');
    await gitIn(origin.work, 'fetch', '--quiet', 'origin');
    await gitIn(origin.work, 'merge-base', '--is-ancestor', 'origin/main', `origin/${done.branch}`);
  });

  it('the stall count survives a supervisor restart: one check before and one after is a stall', async () => {
    const origin = await createOrigin();
    const dir = tempDir('blitz-stall-restart-');
    const workspace = join(dir, 'ws');
    const ledgerFile = join(dir, 'ledger.json');
    const entry = fakeEntry({ FAKE_AGENT_MODE: 'stall', FAKE_AGENT_RESUME_MODE: 'push' });
    const before = makeHarness({ workspace, ledger: new JsonFileAttemptLedger(ledgerFile) });
    const r = await before.runner.execute(attemptJob(origin.url, entry));
    if (r.kind !== 'attempt') throw new Error('expected an attempt');
    await until('the worker wrote its log', () => statSync(r.attempt.logPath).size > 0, { everyMs: 50 });
    await before.runner.tick(); // first observation, then the bot restarts
    expect((await before.ledger.get(r.attempt.id))!.stallFingerprint).toMatchObject({
      logSize: statSync(r.attempt.logPath).size,
    });

    const after = makeHarness({ workspace, ledger: new JsonFileAttemptLedger(ledgerFile) });
    await after.runner.tick(); // the same log, HEAD and remote as before the restart: stalled
    expect(after.events.filter((e) => e.type === 'attempt.nudged')).toEqual([
      { type: 'attempt.nudged', attemptId: r.attempt.id, nudges: 1 },
    ]);
    expect(isAlive(r.attempt.pid!)).toBe(false);
    const done = await settle(after, r.attempt.id);
    expect(done).toMatchObject({ outcome: 'solved', nudges: 1 });
    expect(done.stallFingerprint).toBeUndefined();
  });

  it('keeps the whole FINAL REPORT in the ledger: PR, TESTS, REVIEW, UNCERTAINTIES, STATUS, bugs', async () => {
    const origin = await createOrigin();
    const h = makeHarness();
    const entry = fakeEntry({ FAKE_AGENT_MODE: 'uncertain', FAKE_AGENT_UNCERTAINTY: 'Is 204 right?' });
    const r = await h.runner.execute(attemptJob(origin.url, entry));
    if (r.kind !== 'attempt') throw new Error('expected an attempt');
    const done = await settle(h, r.attempt.id);
    expect(done.finalReport).toEqual({
      pr: 'none — branch pushed',
      tests: 'fake tests — 1 passed',
      review: 'none',
      uncertainties: ['Is 204 right?'],
      outOfScopeBugs: [],
      status: 'done — pushed',
    });
  });

  it('a plan attempt is prompted for PLAN.md with the bot instructions, and the planner pushes only PLAN.md', async () => {
    const origin = await createOrigin();
    const h = makeHarness();
    const entry = fakeEntry({ FAKE_AGENT_MODE: 'plan' });
    const r = await h.runner.execute(
      attemptJob(origin.url, entry, {
        deliverable: 'plan',
        instructions: 'This issue has no size yet. Size it first.',
        body: 'fake-size: L\nRoutes for sessions.',
      }),
    );
    if (r.kind !== 'attempt') throw new Error('expected an attempt');
    const prompt = readFileSync(r.attempt.promptPath, 'utf8');
    expect(prompt.startsWith('PLANNING TASK: do not implement issue #7')).toBe(true);
    expect(prompt).toContain('`PLAN.md` is committed on');
    const done = await settle(h, r.attempt.id);
    expect(done.outcome).toBe('solved');
    expect((await originFile(origin.url, done.branch, 'PLAN.md')).split('\n')[0]).toBe('SIZE: L');
    await gitIn(origin.work, 'fetch', '--quiet', 'origin');
    expect(await gitIn(origin.work, 'diff', '--name-only', 'origin/main', `origin/${done.branch}`)).toBe(
      'PLAN.md',
    );
  });
});
