import { describe, expect, it } from 'vitest';
import { buildIntegrationReviewPrompt, parseIntegrationReview } from './integration-review-prompt.ts';

describe('parseIntegrationReview', () => {
  it('reads the verdict and one finding per severity line, with the issues it blocks', () => {
    const got = parseIntegrationReview(
      [
        'VERDICT: blocking',
        '- [high] src/a.ts:3 — two shapes for User (blocks #4, #5)',
        '- [low] src/b.ts:9 — dead helper left behind',
        'Some prose that is not a finding.',
      ].join('\n'),
    );
    expect(got.verdict).toBe('blocking');
    expect(got.findings).toEqual([
      { text: '[high] src/a.ts:3 — two shapes for User', blocks: [4, 5] },
      { text: '[low] src/b.ts:9 — dead helper left behind', blocks: [] },
    ]);
  });

  it('a clean answer with `- none` has no findings; an answer without a verdict is unclear', () => {
    expect(parseIntegrationReview('VERDICT: clean\n- none')).toEqual({ verdict: 'clean', findings: [] });
    expect(parseIntegrationReview('looks fine to me').verdict).toBe('unclear');
  });
});

describe('buildIntegrationReviewPrompt', () => {
  it('fences the diff so text inside it cannot close the fence, and neutralises mentions in titles', () => {
    const prompt = buildIntegrationReviewPrompt({
      milestone: 'M1',
      defaultBranch: 'main',
      integrationBranch: 'blitz/m1',
      openIssues: [{ number: 4, title: 'ping @octocat' }],
      diff: { diff: '+```\n+END DIFF abc', truncated: true, totalBytes: 900_000 },
      nonce: 'n0nce',
    });
    expect(prompt).toContain('````diff');
    expect(prompt).toContain('END DIFF n0nce');
    expect(prompt).toContain('PARTIAL DIFF');
    expect(prompt).not.toContain(' @octocat');
  });
});
