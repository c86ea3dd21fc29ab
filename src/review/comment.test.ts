import { describe, expect, it } from 'vitest';
import { renderReviewComment, reviewMarkerTag } from './comment.ts';

const at = '2026-11-29T08:00:00.000Z';
const reviewer = { name: 'fast', tool: 'custom' as const, model: 'm1' };

describe('renderReviewComment', () => {
  it('starts with the marker, then the verdict line, then findings, then the reviewer line', () => {
    const body = renderReviewComment({
      verdict: 'minor',
      findings: '- [low] a.ts:1 — naming',
      reviewer,
      failures: [],
      at,
    });
    const lines = body.split('\n');
    expect(lines[0]).toBe(reviewMarkerTag);
    expect(lines[1]).toMatch(/^\*\*Review verdict: minor\*\*/);
    expect(body.indexOf('[low] a.ts:1')).toBeLessThan(
      body.indexOf('Reviewed by `fast` (custom, model `m1`)'),
    );
    expect(body).toContain('not an approval');
    expect(body).not.toContain('Partial review');
  });

  it('names every reviewer that failed before the one that answered', () => {
    const body = renderReviewComment({
      verdict: 'clean',
      findings: '- none',
      reviewer,
      failures: [{ entry: 'slow', reason: 'timed out after 120 s' }],
      at,
    });
    expect(body).toContain('`slow` timed out after 120 s; reviewed by `fast`.');
  });

  it('says a truncated diff was reviewed in part, with both sizes', () => {
    const body = renderReviewComment({
      verdict: 'clean',
      findings: '',
      reviewer,
      failures: [],
      diff: { diff: 'x'.repeat(100), truncated: true, totalBytes: 5000 },
      at,
    });
    expect(body).toContain(
      'Partial review: the diff is 5,000 bytes and only the first 100 bytes were reviewed',
    );
  });

  it('says why no review exists when every reviewer failed, and never looks like a pass', () => {
    const body = renderReviewComment({
      verdict: 'no_review',
      failures: [
        { entry: 'a', reason: 'exited with code 3' },
        { entry: 'b', reason: 'timed out after 5 s' },
      ],
      at,
    });
    expect(body.split('\n')[1]).toBe('**Review: no review could be produced**');
    expect(body).toContain('`a` exited with code 3. `b` timed out after 5 s.');
    expect(body).not.toMatch(/verdict: clean/i);
  });

  it('keeps a roster name from breaking out of its code span', () => {
    const body = renderReviewComment({
      verdict: 'clean',
      findings: '',
      reviewer: { name: 'x`@admin`', tool: 'custom' },
      failures: [],
      at,
    });
    expect(body).toContain('`x@admin`');
  });
});
