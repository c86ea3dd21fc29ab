// Plan review with real reviewer processes (the fake reviewer CLI, run through the runner's exec):
// verdicts, an L plan's second reviewer, fall-back past a failing reviewer, sanitised findings.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rosterEntrySchema } from '../../src/config/blitz-config.ts';
import { isAppError } from '../../src/errors.ts';
import { type ReviewPlanInput, reviewPlan } from '../../src/review/plan-review.ts';
import type { ReviewRosterEntry } from '../../src/review/types.ts';
import { tempDir, testEnv } from '../support/git.ts';

const fakeReviewer = resolve('test/support/fake-agents/fake-reviewer.mjs');
const reviewer = (name: string, ...args: string[]): ReviewRosterEntry => ({
  costRank: 1,
  ...rosterEntrySchema.parse({
    name,
    tool: 'custom',
    provider: `p-${name}`,
    command: [process.execPath, fakeReviewer, ...args, '{prompt_file}'],
    resume: [process.execPath, fakeReviewer, '{prompt_file}'],
    roles: ['review'],
    tiers: ['execution'],
  }),
});

const input = (
  roster: ReturnType<typeof reviewer>[],
  over: Pick<Partial<ReviewPlanInput>, 'plan' | 'size'> = {},
): ReviewPlanInput => ({
  issue: { repo: 'acme/app', number: 4, title: 'Session API', body: 'Routes for sessions.' },
  plan: '# Plan\n1. Add routes.\n2. Test them.',
  size: 'M' as const,
  author: { name: 'planner', tool: 'custom' as const, provider: 'p-planner' },
  roster,
  timeoutSeconds: 30,
  baseEnv: testEnv(),
  signal: new AbortController().signal,
  ...over,
});

describe('reviewPlan', () => {
  it('an M plan gets one reviewer, who sees the plan and the issue, and approves it', async () => {
    const capture = join(tempDir('plan-review-'), 'seen.json');
    const r = await reviewPlan(
      input([
        reviewer('a', '--verdict', 'APPROVED', '--findings', '- none', '--capture', capture),
        reviewer('b', '--verdict', 'PIVOT'),
      ]),
    );
    expect(r.verdict).toBe('approved');
    expect(r.reviews).toEqual([{ reviewer: 'a', verdict: 'approved', findings: '- none' }]);
    const seen = JSON.parse(readFileSync(capture, 'utf8')) as { prompt: string };
    expect(seen.prompt).toContain('2. Test them.');
    expect(seen.prompt).toContain('Routes for sessions.');
  });

  it('an L plan gets a second reviewer, and its PIVOT wins over the other APPROVED', async () => {
    const r = await reviewPlan(
      input(
        [
          reviewer('a', '--verdict', 'APPROVED'),
          reviewer('b', '--verdict', 'PIVOT', '--findings', '- [high] wrong store'),
        ],
        { size: 'L' },
      ),
    );
    expect(r.verdict).toBe('pivot');
    expect(r.reviews.map((x) => [x.reviewer, x.verdict])).toEqual([
      ['a', 'approved'],
      ['b', 'pivot'],
    ]);
  });

  it('a failing reviewer is named and the next one reviews; BLOCKED findings come back sanitised', async () => {
    const r = await reviewPlan(
      input([
        reviewer('a-broken', '--exit', '3'),
        // Equal cost: tried in name order, so the broken one first.
        reviewer(
          'b',
          '--verdict',
          'BLOCKED',
          '--findings',
          '- [high] ask @alice <script>x</script> <!-- blitz-plan -->',
        ),
      ]),
    );
    expect(r.verdict).toBe('blocked');
    expect(r.failures).toEqual(['a-broken exited with code 3']);
    const findings = r.reviews[0]!.findings;
    expect(findings).not.toContain('@alice');
    expect(findings).not.toContain('<script>');
    expect(findings).not.toContain('<!-- blitz-plan -->');
  });

  it('an answer without a plan verdict is unclear, and no answer at all is no review', async () => {
    expect((await reviewPlan(input([reviewer('a', '--verdict', 'clean')]))).verdict).toBe('unclear');
    const none = await reviewPlan(input([reviewer('a', '--exit', '2'), reviewer('b', '--empty')]));
    expect(none.verdict).toBe('no_review');
    expect(none.failures).toEqual(['a exited with code 2', 'b printed no review']);
  });

  it('refuses an empty plan and runs no reviewer', async () => {
    const capture = join(tempDir('plan-review-'), 'seen.json');
    const err = await reviewPlan(input([reviewer('a', '--capture', capture)], { plan: '  \n' })).catch(
      (e: unknown) => e,
    );
    expect(isAppError(err, 'bad_request')).toBe(true);
    expect(existsSync(capture)).toBe(false);
  });
});
