import { describe, expect, it } from 'vitest';
import { blockerReport } from './blocker-reports.ts';

const cycle = { type: 'report_cycle' as const, members: ['acme/app#3', 'acme/app#4'] };
const unknownOne = {
  type: 'report_unknown_blocker' as const,
  blocker: 'acme/api#99',
  namedBy: ['acme/app#8'],
};
const unknownTwo = { ...unknownOne, namedBy: ['acme/app#8', 'acme/app#9'] };

describe('blocker reports', () => {
  it('names a cycle in a blitz and in a plan run', () => {
    expect(blockerReport('blitz', cycle)).toEqual({
      key: 'cycle:acme/app#3,acme/app#4',
      text: 'blitz: these issues block each other in a cycle and will not run until a person cuts it: #3, #4.',
    });
    expect(blockerReport('plan', cycle).text).toBe(
      'plan-blitz: these issues block each other in a cycle and will not be planned until a person cuts it: #3, #4.',
    );
  });

  it('names an unreadable blocker and who it holds, one or several', () => {
    expect(blockerReport('blitz', unknownOne)).toEqual({
      key: 'unknown:acme/api#99:acme/app#8',
      text: 'blitz: #8 is blocked by acme/api#99, which does not exist or cannot be read; it stays open and will not run (fail closed).',
    });
    expect(blockerReport('blitz', unknownTwo).text).toBe(
      'blitz: #8, #9 are blocked by acme/api#99, which does not exist or cannot be read; they stay open and will not run (fail closed).',
    );
    expect(blockerReport('plan', unknownTwo).text).toBe(
      'plan-blitz: #8, #9 are blocked by acme/api#99, which does not exist or cannot be read; not planned (fail closed).',
    );
  });

  it('keys a report by its cause, so a changed cause posts again', () => {
    expect(blockerReport('plan', unknownTwo).key).not.toBe(blockerReport('plan', unknownOne).key);
    expect(blockerReport('plan', cycle).key).toBe(blockerReport('blitz', cycle).key);
  });
});
