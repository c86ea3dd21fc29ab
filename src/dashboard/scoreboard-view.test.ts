import { describe, expect, it } from 'vitest';
import { type ScoreboardFacts, scoreboardInput } from './scoreboard-view.ts';

const ticket = (title: string, over: { state?: 'open' | 'closed'; authorTrusted?: boolean } = {}) => ({
  title,
  state: over.state ?? ('open' as const),
  authorTrusted: over.authorTrusted ?? true,
});
const facts = (over: Partial<ScoreboardFacts> = {}): ScoreboardFacts => ({
  run: { repo: 'acme/app', state: 'running' },
  maxSessions: 2,
  fleet: { tickets: {}, skipped: [], dispatched: ['acme/app#1', 'acme/app#2', 'other/lib#3', 'acme/app#4'] },
  tickets: new Map([
    ['acme/app#1', ticket('One', { state: 'closed' })],
    ['acme/app#2', ticket('Two')],
    ['other/lib#3', ticket('Three')],
    ['acme/app#4', ticket('Four')],
    ['acme/app#5', ticket('Five', { authorTrusted: false })],
  ]),
  rows: new Map([
    ['acme/app#1', { state: 'closed', mergedSha: 'abcdef1234' }],
    ['acme/app#2', { state: 'pr_open', prNumber: 12 }],
    ['other/lib#3', { state: 'pr_open', prNumber: 7 }],
  ]),
  progress: [
    { key: 'acme/app#2', state: 'pr_open' },
    { key: 'other/lib#3', state: 'pr_open' },
    { key: 'acme/app#4', state: 'working' },
  ],
  lapsedApprovals: new Set(),
  ...over,
});

describe('the fleet scoreboard’s rows (scoreboardInput)', () => {
  it('puts the first dispatched ticket in the pilot, then waves of maxSessions, the rest queued', () => {
    const got = scoreboardInput(facts());
    expect(got.waves.map((w) => [w.label, w.rows.map((r) => r.ticket)])).toEqual([
      ['Pilot', ['#1']],
      ['Wave 1', ['#2', 'other/lib#3']],
      ['Wave 2', ['#4']],
    ]);
    expect(got.queued.map((r) => r.ticket)).toEqual(['#5']);
    expect(got.waves[1]!.rows[1]!.pr).toBe('other/lib#7');
  });

  it('says what each ticket waits on: a merge, a person’s /merge, an approval, a worker', () => {
    const status = (f: ScoreboardFacts) =>
      Object.fromEntries(
        [...scoreboardInput(f).waves.flatMap((w) => w.rows), ...scoreboardInput(f).queued].map((r) => [
          r.ticket,
          r.status,
        ]),
      );
    expect(
      status(
        facts({
          fleet: {
            ...facts().fleet,
            tickets: { 'other/lib#3': { mergeRequestedBy: 'alice', uncertainties: [], followUps: [] } },
          },
        }),
      ),
    ).toEqual({
      '#1': 'closed (merged abcdef1)',
      '#2': 'awaiting /merge',
      'other/lib#3': 'merging (asked by alice)',
      '#4': 'working',
      '#5': 'awaiting approval — its author cannot write here; a maintainer adds blitz/approved',
    });
    expect(status(facts({ lapsedApprovals: new Set(['acme/app#5']) }))['#5']).toMatch(/^approval lapsed/);
  });

  it('shows the summary once every worker has finished, and why the run is slowed', () => {
    expect(scoreboardInput(facts()).final).toBeUndefined();
    const settled = facts({
      progress: [],
      tickets: new Map([['acme/app#1', ticket('One', { state: 'closed' })]]),
    });
    expect(scoreboardInput(settled).final?.reason).toMatch(/Every worker has finished/);
    expect(scoreboardInput(facts({ slowed: 'core rate limit nearly spent' })).slowed).toBe(
      'core rate limit nearly spent',
    );
  });
});
