import { describe, expect, it } from 'vitest';
import { isAppError } from '../../errors.ts';
import type { Milestone } from '../types.ts';
import { pickMilestone } from './milestones.ts';

const m = (number: number, title: string, openIssues = 1, state: 'open' | 'closed' = 'open'): Milestone => ({
  number,
  title,
  description: '',
  state,
  openIssues,
  closedIssues: 0,
});
const all = [m(4, 'M1 Setup', 0), m(7, 'M2 Core'), m(9, 'M3 Core polish'), m(2, 'M0 Done', 0, 'closed')];

const fails = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    return err;
  }
  throw new Error('expected an error');
};

describe('pickMilestone', () => {
  it('with no query, takes the lowest-numbered open milestone that has open issues', () => {
    expect(pickMilestone(all, 'acme/app').number).toBe(7);
  });

  it('takes a number with or without #, also a closed milestone', () => {
    expect(pickMilestone(all, 'acme/app', '#9').title).toBe('M3 Core polish');
    expect(pickMilestone(all, 'acme/app', '2').title).toBe('M0 Done');
  });

  it('prefers an exact title over substring matches, case-insensitively', () => {
    expect(pickMilestone(all, 'acme/app', 'm2 core').number).toBe(7);
  });

  it('refuses an ambiguous substring and names the matches', () => {
    const err = fails(() => pickMilestone(all, 'acme/app', 'core'));
    expect(isAppError(err, 'bad_request')).toBe(true);
    expect((err as Error).message).toBe(
      'milestone "core" is ambiguous in acme/app: it matches M2 Core, M3 Core polish',
    );
  });

  it('names the open milestones when nothing matches, and when no milestone has open issues', () => {
    expect((fails(() => pickMilestone(all, 'acme/app', 'M9')) as Error).message).toBe(
      'milestone M9 not found in acme/app; open milestones: M1 Setup, M2 Core, M3 Core polish',
    );
    expect((fails(() => pickMilestone([m(1, 'M1', 0)], 'acme/app')) as Error).message).toBe(
      'no open milestone with open issues in acme/app; open milestones: M1',
    );
  });
});
