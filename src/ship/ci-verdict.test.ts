import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CheckConclusion, CheckInfo } from '../forges/types.ts';
import {
  type CiSettings,
  type CiVerdictInput,
  ciVerdict,
  describeCiVerdict,
  matchesIgnore,
} from './ci-verdict.ts';

const ci: CiSettings = { wait: 'auto', settleSeconds: 60, timeoutMinutes: 60, ignore: ['codecov/*'] };
const pushedAt = Date.UTC(2026, 0, 1);
const check = (name: string, conclusion?: CheckConclusion, reporter = 'github-actions'): CheckInfo => ({
  name,
  status: conclusion ? 'completed' : 'in_progress',
  ...(conclusion ? { conclusion } : {}),
  summary: '',
  url: '',
  externalId: `check_run:${name}`,
  reporter,
});
const verdict = (checks: CheckInfo[], secondsAfterPush: number, over: Partial<CiSettings> = {}) =>
  ciVerdict({
    checks,
    ci: { ...ci, ...over },
    pushedAt,
    now: pushedAt + secondsAfterPush * 1000,
    ownReporters: ['blitz-bot[bot]'],
  });

describe('ciVerdict', () => {
  it('is green when every check passed (neutral and skipped pass)', () => {
    expect(verdict([check('test', 'success'), check('docs', 'skipped'), check('x', 'neutral')], 5).kind).toBe(
      'green',
    );
  });

  it('is red as soon as one check failed, naming only the failing ones, even while others run', () => {
    const v = verdict([check('test', 'failure'), check('lint'), check('build', 'success')], 5);
    expect(v).toMatchObject({ kind: 'red', failing: [{ name: 'test', conclusion: 'failure' }] });
  });

  it.each<CheckConclusion>(['cancelled', 'timed_out', 'action_required', 'stale', 'error'])(
    'counts %s as failing',
    (c) => {
      expect(verdict([check('test', c)], 5).kind).toBe('red');
    },
  );

  it('waits for running checks until the timeout, then times out naming them', () => {
    expect(verdict([check('test')], 59 * 60)).toMatchObject({
      kind: 'pending',
      waitingFor: ['test'],
      recheckAt: pushedAt + 3600_000,
    });
    expect(verdict([check('test')], 60 * 60)).toEqual({ kind: 'timed_out', waitingFor: ['test'] });
  });

  it('auto: a head with no check is pending for settleSeconds, then has no CI', () => {
    expect(verdict([], 59)).toMatchObject({ kind: 'pending', recheckAt: pushedAt + 60_000 });
    expect(verdict([], 60)).toEqual({ kind: 'no_ci', reason: 'none_appeared' });
  });

  it('always: a head with no check waits to the timeout', () => {
    expect(verdict([], 61, { wait: 'always' }).kind).toBe('pending');
    expect(verdict([], 3600, { wait: 'always' })).toEqual({ kind: 'timed_out', waitingFor: [] });
  });

  it('never: no wait, whatever the checks say', () => {
    expect(verdict([check('test', 'failure')], 0, { wait: 'never' })).toEqual({
      kind: 'no_ci',
      reason: 'never',
    });
  });

  it('leaves out the bot’s own `blitz` check and ignored names, but not another app’s `blitz`', () => {
    const own = check('blitz', 'failure', 'blitz-bot');
    expect(verdict([own, check('codecov/patch', 'failure'), check('test', 'success')], 5).kind).toBe('green');
    expect(verdict([own], 120)).toEqual({ kind: 'no_ci', reason: 'none_appeared' });
    expect(verdict([check('blitz', 'failure', 'someone-else')], 5).kind).toBe('red');
  });

  it('says each verdict in words', () => {
    expect(describeCiVerdict(verdict([check('test', 'failure')], 1))).toBe('CI red: test (failure)');
    expect(describeCiVerdict(verdict([check('lint')], 1))).toBe('waiting for CI: lint');
  });

  it('matches ignore patterns with * only as a wildcard', () => {
    expect(matchesIgnore('codecov/patch', 'codecov/*')).toBe(true);
    expect(matchesIgnore('ci.test', 'ci*test')).toBe(true);
    expect(matchesIgnore('ciXtest', 'ci.test')).toBe(false);
    expect(matchesIgnore('codecov/patch', 'codecov')).toBe(false);
  });
});

const conclusions: CheckConclusion[] = [
  'success',
  'failure',
  'neutral',
  'cancelled',
  'skipped',
  'timed_out',
  'action_required',
  'stale',
  'error',
];
const arbCheck = fc
  .record({
    name: fc.constantFrom('test', 'lint', 'build', 'blitz', 'codecov/patch'),
    conclusion: fc.option(fc.constantFrom(...conclusions), { nil: undefined }),
    reporter: fc.constantFrom('github-actions', 'blitz-bot', 'ci-bot'),
  })
  .map(({ name, conclusion, reporter }) => check(name, conclusion, reporter));
const arbInput = fc.record({
  checks: fc.array(arbCheck, { maxLength: 8 }),
  wait: fc.constantFrom<CiSettings['wait']>('auto', 'always', 'never'),
  settleSeconds: fc.integer({ min: 0, max: 600 }),
  timeoutMinutes: fc.integer({ min: 1, max: 120 }),
  elapsed: fc.integer({ min: 0, max: 3 * 3600 }),
});
type ArbInput = typeof arbInput extends fc.Arbitrary<infer T> ? T : never;
const toInput = (i: ArbInput): CiVerdictInput => ({
  checks: i.checks,
  ci: {
    wait: i.wait,
    settleSeconds: i.settleSeconds,
    timeoutMinutes: i.timeoutMinutes,
    ignore: ['codecov/*'],
  },
  pushedAt,
  now: pushedAt + i.elapsed * 1000,
  ownReporters: ['blitz-bot[bot]'],
});

describe('ciVerdict properties', () => {
  it('never green while a counted check failed or runs', () => {
    fc.assert(
      fc.property(arbInput, (i) => {
        const input = toInput(i);
        const v = ciVerdict(input);
        if (v.kind !== 'green') return;
        for (const c of v.passed)
          expect(c.status === 'completed' && ['success', 'neutral', 'skipped'].includes(c.conclusion!)).toBe(
            true,
          );
        expect(v.passed.length).toBeGreaterThan(0);
      }),
    );
  });

  it('the bot’s own check and ignored checks never change the verdict', () => {
    fc.assert(
      fc.property(arbInput, arbCheck, (i, extra) => {
        const input = toInput(i);
        const own = { ...extra, name: 'blitz', reporter: 'blitz-bot' };
        const ignored = { ...extra, name: 'codecov/project' };
        const strip = (v: ReturnType<typeof ciVerdict>) => v.kind;
        expect(strip(ciVerdict({ ...input, checks: [...input.checks, own, ignored] }))).toBe(
          strip(ciVerdict(input)),
        );
      }),
    );
  });

  it('waiting longer never turns a pending head green or red: only timed_out or no_ci', () => {
    fc.assert(
      fc.property(arbInput, fc.integer({ min: 0, max: 3 * 3600 }), (i, more) => {
        const input = toInput(i);
        const before = ciVerdict(input);
        const after = ciVerdict({ ...input, now: input.now + more * 1000 });
        if (before.kind === 'pending') expect(['pending', 'timed_out', 'no_ci']).toContain(after.kind);
        else expect(after.kind).toBe(before.kind);
      }),
    );
  });
});
