// Slow for a reason: a milestone of three issues blitzed to the end on each forge, on real git.
// Issue 37: a worker whose files the integration branch changed under it is told so at its next resume.
// Two issues append to one file at one place and a third writes a file of its own, all on one base. The
// first of the two to merge changes the file under the other: that one's session is resumed with the
// bot's tell naming the file and the merge commit (the runner merged the branch in first), resolves it
// and merges without a refused merge; the third, which shares no file, is never told.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ProbeResult } from '../../src/runs/budget-probe.ts';
import { type BlitzHarness, startBlitzHarness } from '../support/blitz-harness.ts';
import { tempDir } from '../support/git.ts';

let h: BlitzHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const three: ProbeResult = { status: 'ok', recommendedMaxSessions: 3, preferMedium: false, park: false };

interface Trace {
  args: string[];
  env: Record<string, string>;
  prompt?: string;
}

describe.each(['github', 'gitea'] as const)('the integration branch moving under a worker on %s', (forge) => {
  it('tells the session whose file a merge changed, at its next resume, and never the others', async () => {
    const trace = join(tempDir('base-change-trace-'), 'trace.jsonl');
    h = await startBlitzHarness({
      forge,
      maxSessions: 3,
      budgetProbe: async () => three,
      files: { 'letters.txt': '# letters\n' },
      // No issue names a file: nothing fences them apart, so all three start on the same base.
      issues: [
        { number: 1, title: 'Add the alpha line', body: 'One line.' },
        { number: 2, title: 'Add the bravo line', body: 'One line.' },
        { number: 3, title: 'Add a file of its own', body: 'One file.' },
      ],
      agentEnv: {
        FAKE_AGENT_MODES: JSON.stringify({
          'acme/app#1': 'append',
          'acme/app#2': 'append',
          'acme/app#3': 'push',
        }),
        FAKE_AGENT_FILE: 'letters.txt',
        FAKE_AGENT_FILES: JSON.stringify({ 'acme/app#3': 'own-3.txt' }),
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
    // One session each, nothing redone, and no merge refused for a conflict: the tell came first.
    for (const n of [1, 2, 3]) {
      expect(
        attempts.filter((a) => a.issue.number === n).map((a) => a.outcome),
        `#${n}`,
      ).toEqual(['solved']);
      expect(rows.find((r) => r.number === n)?.bouncedAfter, `#${n} bounced`).toBeUndefined();
      expect(rows.find((r) => r.number === n)?.conflictResumes ?? 0, `#${n} conflict resumes`).toBe(0);
    }
    const resumes = readFileSync(trace, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Trace)
      .filter((t) => t.args.includes('--resume'));
    const told = resumes.filter((t) => t.prompt?.includes('The integration branch `blitz/m1` changed'));
    // Exactly one of the two appending issues was told, once: the one that merged second.
    expect(told.map((t) => t.env.BLITZ_ISSUE)).toHaveLength(1);
    const second = Number(told[0]!.env.BLITZ_ISSUE);
    const first = second === 1 ? 2 : 1;
    expect([1, 2]).toContain(second);
    const firstSha = rows.find((r) => r.number === first)!.mergedSha!;
    const prompt = told[0]!.prompt!;
    expect(prompt).toContain(`merge commit ${firstSha.slice(0, 7)}`);
    expect(prompt).toContain('Merge it in (never rebase), resolve, run the checks, push');
    // The file is named inside the untrusted-data fence: a worker named it.
    expect(prompt).toMatch(/```untrusted-data\nletters\.txt\n```/);
    // The third shares no file with either merge and was never resumed at all.
    expect(resumes.filter((t) => t.env.BLITZ_ISSUE === '3')).toEqual([]);
    // The open PRs' files came from git in the bot's clone: the forge's file lists were never read
    // (tried: reading them from the forge, one list per open PR at every merge under it).
    const fileLists = (x.fakeGithub?.requests ?? x.fakeGitea?.requests ?? []).filter((r) =>
      ['pulls/list-files', 'repoGetPullRequestFiles'].includes(r.operationId ?? ''),
    );
    expect(fileLists).toEqual([]);
    // The bot's status on the told PR names the real reason: no person wrote on any PR (tried: the
    // bot's own tell counted as a writer's message, "worker resumed: a writer sent a message").
    const said = (x.fakeGithub?.requests ?? x.fakeGitea?.requests ?? []).map((r) =>
      JSON.stringify(r.body ?? ''),
    );
    expect(said.filter((b) => b.includes('a writer sent a message'))).toEqual([]);
    expect(said.some((b) => b.includes('worker resumed: the integration branch changed'))).toBe(true);
    // Both lines are on the integration branch once, and no marker is.
    const letters = await x.origin.git.ok(['show', 'blitz/m1:letters.txt']);
    expect(letters.split('\n').filter(Boolean).sort()).toEqual(['# letters', 'line for #1', 'line for #2']);
    expect(letters).not.toMatch(/^(<{7}|={7}|>{7})/m);
    expect(existsSync(trace)).toBe(true);
  }, 300_000);
});
