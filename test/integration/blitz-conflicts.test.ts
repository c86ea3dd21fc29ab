// Slow for a reason: a milestone of three issues that conflict, blitzed to the end on each forge, on real git.
// Issue 37: three issues append to the same file at the same place, on one base. The first merges; each
// of the others goes back to the session that wrote it, which merges the integration branch in (a fake
// worker that really runs git and keeps both lines): told that the branch changed its file under it
// (plan/base-change.ts) or, failing that, after a merge refused for the conflict, with the markers
// checked before the PR merges. No issue is redone from scratch.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { maxConflictResumes } from '../../src/plan/merge-conflict.ts';
import type { ProbeResult } from '../../src/runs/budget-probe.ts';
import { type BlitzHarness, startBlitzHarness } from '../support/blitz-harness.ts';
import { tempDir } from '../support/git.ts';

let h: BlitzHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const three: ProbeResult = { status: 'ok', recommendedMaxSessions: 3, preferMedium: false, park: false };

describe.each(['github', 'gitea'] as const)('blitz merge conflicts on %s', (forge) => {
  it('three issues appending to one file at one place all merge, each conflict resolved by its own session', async () => {
    const trace = join(tempDir('conflicts-trace-'), 'trace.jsonl');
    h = await startBlitzHarness({
      forge,
      maxSessions: 3,
      budgetProbe: async () => three,
      files: { 'letters.txt': '# letters\n' },
      // No issue names the file: nothing fences them apart, so all three start on the same base.
      issues: [
        { number: 1, title: 'Add the alpha line', body: 'One line.' },
        { number: 2, title: 'Add the bravo line', body: 'One line.' },
        { number: 3, title: 'Add the charlie line', body: 'One line.' },
      ],
      agentEnv: {
        FAKE_AGENT_MODE: 'append',
        FAKE_AGENT_FILE: 'letters.txt',
        FAKE_AGENT_RESUME_MODE: 'merge-base',
        FAKE_AGENT_TRACE: trace,
      },
    });
    const x = h;
    await x.comment('/blitz M1');
    await x.drive(async () => {
      const run = await x.liveRun();
      return run?.state === 'done' && (await x.bot.runs.ledger.listOpen()).length === 0;
    }, 240_000);
    const run = (await x.liveRun())!;
    for (const n of [1, 2, 3]) expect(x.world.issue(x.repo, n)?.state, `#${n}`).toBe('closed');
    const rows = await x.bot.runs.listRunIssues(run.id);
    const attempts = await x.bot.runs.ledger.listByRun(run.id);
    // Nothing redone from scratch: no bounce, one attempt (one session) per issue.
    for (const n of [1, 2, 3]) {
      expect(rows.find((r) => r.number === n)?.bouncedAfter, `#${n} bounced`).toBeUndefined();
      expect(
        attempts.filter((a) => a.issue.number === n).map((a) => a.outcome),
        `#${n}`,
      ).toEqual(['solved']);
    }
    // The first merge moved the base under the other two: both went back to their sessions with the
    // integration branch merged in (told of the change, or after a refused merge), within the tries allowed.
    const told = (n: number) =>
      readFileSync(trace, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { args: string[]; env: Record<string, string>; prompt?: string })
        .filter(
          (t) =>
            t.args.includes('--resume') &&
            t.env.BLITZ_ISSUE === String(n) &&
            t.prompt?.includes('The integration branch `blitz/m1` changed'),
        ).length;
    const back = [1, 2, 3]
      .map((n) => told(n) + (rows.find((r) => r.number === n)?.conflictResumes ?? 0))
      .sort();
    expect(back[0]).toBe(0);
    expect(back[1]).toBeGreaterThanOrEqual(1);
    expect(back[2]).toBeGreaterThanOrEqual(1);
    for (const r of rows) expect(r.conflictResumes ?? 0).toBeLessThanOrEqual(maxConflictResumes);
    for (const a of attempts.filter((a) => rows.find((r) => r.number === a.issue.number)?.conflictResumes))
      expect(a.conflictFiles).toEqual(['letters.txt']);
    // Every line is on the integration branch once, and no marker is.
    const letters = await x.origin.git.ok(['show', 'blitz/m1:letters.txt']);
    expect(letters.split('\n').filter(Boolean).sort()).toEqual([
      '# letters',
      'line for #1',
      'line for #2',
      'line for #3',
    ]);
    expect(letters).not.toMatch(/^(<{7}|={7}|>{7})/m);
    // The resumed sessions were asked to merge the integration branch in, never to rebase.
    for (const n of [1, 2, 3]) {
      const comments = x.world.commentsOn(x.repo, n).map((c) => c.body);
      expect(
        comments.some((c) => c.includes('bounced back')),
        `#${n}`,
      ).toBe(false);
    }
  }, 300_000);
});
