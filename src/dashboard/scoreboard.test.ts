import { describe, expect, it } from 'vitest';
import { renderScoreboard, type ScoreboardInput } from './scoreboard.ts';

const input = (over: Partial<ScoreboardInput> = {}): ScoreboardInput => ({
  runState: 'running',
  waves: [
    {
      label: 'Pilot',
      rows: [
        {
          ticket: '#1',
          title: 'First',
          pr: '#5',
          tests: '3 passed',
          review: 'clean',
          status: 'awaiting /merge',
          standing: 'waiting',
        },
      ],
    },
    {
      label: 'Wave 1',
      rows: [
        {
          ticket: '#2',
          title: 'Second',
          pr: '#6',
          tests: '1 failed',
          review: 'blocking',
          status: 'merged abc1234',
          standing: 'merged',
        },
        {
          ticket: 'acme/lib#3',
          title: 'Third | with a pipe',
          status: 'failed: no FINAL REPORT',
          standing: 'failed',
        },
      ],
    },
  ],
  queued: [],
  skipped: [{ ticket: '#7', reason: 'it is closed' }],
  relays: [{ ticket: '#1', uncertainties: ['Is 30 s the right timeout?'], followUps: [] }],
  ...over,
});

describe('fleet scoreboard', () => {
  it('shows one row per ticket per wave with PR, tests, review verdict and status', () => {
    const text = renderScoreboard(input());
    expect(text).toContain('**Pilot**');
    expect(text).toContain('| #1 First | #5 | 3 passed | clean | awaiting /merge |');
    expect(text).toContain('**Wave 1**');
    expect(text).toContain('| #2 Second | #6 | 1 failed | blocking | merged abc1234 |');
    // A pipe in a title cannot break the table.
    expect(text).toContain('Third &#124; with a pipe');
    expect(text).toContain('- #7: it is closed');
    expect(text).toContain('Policy blessings');
    expect(text).not.toContain('### Summary');
  });

  it('says when the run goes slower for the forge rate limit', () => {
    expect(renderScoreboard(input())).not.toContain('Slowed down');
    const text = renderScoreboard(input({ slowed: 'core rate limit nearly spent: no new sessions' }));
    expect(text).toContain('**Slowed down:** core rate limit nearly spent&#58; no new sessions.');
  });

  it('adds the consolidated summary once the run has ended', () => {
    const text = renderScoreboard(
      input({ runState: 'done', final: { reason: 'every ticket is merged or closed' } }),
    );
    expect(text).toContain('### Summary');
    expect(text).toContain('- tickets: 3 run, 1 merged, 1 failed, 1 skipped');
    expect(text).toContain('- review legs with blocking findings: 1');
    expect(text).toContain('- waiting for a person: #1 (#5)');
  });

  it('counts tickets by their typed standing, never by the words of their status', () => {
    const rows = [
      { ticket: '#8', title: 'Eighth', status: 'merged, says its worker', standing: 'other' as const },
      { ticket: '#9', title: 'Ninth', status: 'awaiting nothing', standing: 'failed' as const },
    ];
    const text = renderScoreboard(
      input({ runState: 'done', final: { reason: 'done' }, waves: [{ label: 'Pilot', rows }] }),
    );
    expect(text).toContain('- tickets: 2 run, 0 merged, 1 failed, 1 skipped');
    expect(text).toContain('- waiting for a person: nothing');
  });
});
