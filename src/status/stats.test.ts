import { describe, expect, it } from 'vitest';
import { finishedAttempts, finishedRunId, finishedStates } from '../../test/fixtures/runs/finished-run.ts';
import type { RunIssueRecord } from '../store/run-store.ts';
import { apiStatsOf } from './api-data.ts';
import { computeStats, formatStatsText, inPassBand } from './stats.ts';

const issues: RunIssueRecord[] = Object.entries(finishedStates).map(([n, state]) => ({
  runId: finishedRunId,
  repo: 'acme/app',
  number: Number(n),
  state,
  reviewPosted: false,
  attempts: 0,
  updatedAt: '2026-11-28T12:00:00Z',
}));

describe('attempt stats', () => {
  it('counts pass rates per roster entry and tier, leaving environment failures out', () => {
    const s = computeStats({ attempts: finishedAttempts(), issues });
    expect(s.attempts).toBe(9);
    expect(s.byOutcome).toEqual({
      solved: 2,
      unsolved: 5,
      environment_failure: 1,
      stalled: 1,
      cancelled: 0,
      open: 0,
    });
    const row = (entry: string, tier: string) =>
      s.rows.find((r) => r.rosterEntry === entry && r.tier === tier);
    // local-qwen/execution: #1 solved, #3 unsolved, #1 unsolved, #5 unsolved → 1 of 4.
    expect(row('local-qwen', 'execution')).toMatchObject({
      attempts: 4,
      counted: 4,
      solved: 1,
      passRate: 0.25,
      inBand: true,
    });
    expect(row('sonnet', 'execution')).toMatchObject({ solved: 1, counted: 1, passRate: 1, inBand: false });
    // sonnet/design: one unsolved, one environment failure that is not the model's fault.
    expect(row('sonnet', 'design')).toMatchObject({
      attempts: 2,
      counted: 1,
      solved: 0,
      passRate: 0,
      inBand: false,
    });
    expect(s.tokens).toEqual({ input: 22_900, output: 1_470, cache: 0 });
  });

  it('lists unsolved issues: a stronger model for design work, a person for stalled or subtle work', () => {
    const s = computeStats({ attempts: finishedAttempts(), issues });
    expect(s.waiting.map((w) => [w.number, w.waitingFor])).toEqual([
      [4, 'person'],
      [5, 'person'],
    ]);
    const withoutRows = computeStats({ attempts: finishedAttempts() });
    expect(withoutRows.waiting.map((w) => [w.number, w.waitingFor])).toEqual([
      [4, 'stronger_model'],
      [5, 'person'],
    ]);
  });

  it('does not list an issue whose latest attempt is still running', () => {
    const [first] = finishedAttempts().filter((a) => a.issue.number === 4);
    const running = { ...first!, id: 'att-running', outcome: undefined };
    const s = computeStats({ attempts: [first!, running] });
    expect(s.waiting).toEqual([]);
    expect(s.byOutcome.open).toBe(1);
  });

  it('marks the band inclusively at 20 and 80 percent', () => {
    expect([0.19, 0.2, 0.5, 0.8, 0.81, undefined].map(inPassBand)).toEqual([
      false,
      true,
      true,
      true,
      false,
      false,
    ]);
  });

  it('prints a table with the band marked and the waiting issues', () => {
    const text = formatStatsText(apiStatsOf(computeStats({ attempts: finishedAttempts(), issues })));
    expect(text).toMatch(/local-qwen\s+aider\s+execution\s+4\s+1\/4\s+25 % \*/);
    expect(text).toMatch(/sonnet\s+claude\s+execution\s+1\s+1\/1\s+100 %\s/);
    expect(text).toContain(
      'acme/app#5 (run run-m1-finished): 2 attempt(s), last unsolved, up to subtle; waiting for a person',
    );
  });
});
