import { describe, expect, it } from 'vitest';
import type { AttemptRecord } from '../runner/types.ts';
import type { RunIssueRecord } from '../store/run-store.ts';
import { handoffFor } from './handoff.ts';
import type { PlanIssue } from './types.ts';

const issue = (number: number, blockedBy: string[] = [], repo = 'acme/app'): PlanIssue => ({
  repo,
  number,
  title: `Issue ${number}`,
  body: '',
  labels: [],
  state: 'open',
  authorTrusted: true,
  createdAt: '2026-01-01T00:00:00Z',
  blockedBy,
  children: [],
});
const row = (repo: string, number: number, mergedSha?: string): RunIssueRecord => ({
  runId: 'r',
  repo,
  number,
  state: mergedSha ? 'closed' : 'working',
  reviewPosted: false,
  attempts: 1,
  updatedAt: '2026-01-01T00:00:00Z',
  ...(mergedSha ? { mergedSha } : {}),
});
const solved = (id: string, number: number, report?: AttemptRecord['finalReport']) =>
  ({
    id,
    runId: 'r',
    issue: { repo: { owner: 'acme', name: 'app' }, number },
    outcome: 'solved',
    ...(report ? { finalReport: report } : {}),
  }) as unknown as AttemptRecord;

describe('handoffFor', () => {
  const sha = 'a'.repeat(40);
  it('hands off the merged blockers only, with the last solved attempt’s STATUS and TESTS', () => {
    // Merged blockers are closed, so not among the open issues: the title comes from the kept graph.
    const issues = new Map([
      ['acme/app#2', issue(2)],
      ['acme/app#4', issue(4, ['acme/app#1', 'acme/app#2', 'acme/lib#3', 'acme/app#99'])],
    ]);
    const run = {
      repo: 'acme/app',
      progress: { graph: [{ number: 1, title: 'The data model', state: 'closed', blockedBy: [] }] },
    };
    const rows = new Map([
      ['acme/app#1', row('acme/app', 1, sha)],
      ['acme/app#2', row('acme/app', 2)],
      ['acme/lib#3', row('acme/lib', 3, 'b'.repeat(40))],
    ]);
    const attempts = [
      solved('a1', 1, { status: 'old', uncertainties: [], outOfScopeBugs: [] }),
      solved('a2', 1, {
        status: 'done',
        tests: 'npm test: 12 passed',
        uncertainties: [],
        outOfScopeBugs: [],
      }),
    ];
    expect(handoffFor({ issues, rows, attempts, run }, 'acme/app#4')).toEqual([
      {
        issue: '#1',
        title: 'The data model',
        mergedSha: sha,
        report: 'STATUS: done\nTESTS: npm test: 12 passed',
      },
      { issue: 'acme/lib#3', title: '', mergedSha: 'b'.repeat(40) },
    ]);
  });

  it('caps a long title and report, and never passes on a recorded sha that is not one', () => {
    const long = issue(1);
    long.title = 'T'.repeat(5000);
    const issues = new Map([
      ['acme/app#1', long],
      ['acme/app#2', issue(2, ['acme/app#1'])],
    ]);
    const rows = new Map([['acme/app#1', row('acme/app', 1, '--output=/tmp/x')]]);
    const attempts = [solved('a1', 1, { status: 'S'.repeat(9000), uncertainties: [], outOfScopeBugs: [] })];
    const [h] = handoffFor({ issues, rows, attempts, run: { repo: 'acme/app', progress: {} } }, 'acme/app#2');
    expect(h!.title.length).toBeLessThanOrEqual(300);
    expect(h!.report!.length).toBeLessThanOrEqual(1600);
    expect(h!.mergedSha).toBeUndefined();
  });
});
