import { describe, expect, it } from 'vitest';
import { noticeMessage, noticeSentence, noticeTally, noticeTitle, type RunNotice } from './notice.ts';

const base: RunNotice = {
  event: 'blocked',
  repo: 'acme/shop',
  run: { id: 'r1', kind: 'fleet', title: 'Fleet\n#3 #4' },
  sentence: 'the build is red',
  issuesShipped: 1,
};

describe('notice words', () => {
  it('titles the run kind, its title on one line, and the event', () => {
    expect(noticeTitle(base)).toBe('fleet: Fleet #3 #4 BLOCKED ⚠️');
    expect(noticeTitle({ ...base, event: 'needs_person' })).toBe('fleet: Fleet #3 #4 needs a person 🙋');
  });

  it('makes one bounded sentence with a capital and a full stop, whatever it was given', () => {
    expect(noticeSentence(base)).toBe('The build is red.');
    expect(noticeSentence({ ...base, sentence: '#12 failed!' })).toBe('#12 failed!');
    expect(noticeSentence({ ...base, sentence: ' \u0007 ' })).toBe('No reason given.');
    expect(noticeSentence({ ...base, sentence: 'x'.repeat(1000) })).toHaveLength(300);
  });

  it('counts what shipped, with the path only when there was a ship step', () => {
    expect(noticeTally(base)).toBe('1 issue closed so far');
    expect(noticeTally({ ...base, event: 'shipped', issuesShipped: 4 })).toBe('4 issues shipped');
    expect(noticeTally({ ...base, event: 'shipped', issuesShipped: 4, path: 'deploy' })).toBe(
      '4 issues shipped · deploy',
    );
  });

  it('names the repository, the issue and the run in the plain message', () => {
    expect(noticeMessage({ ...base, issue: 7 })).toBe(
      'The build is red. acme/shop#7 · run r1 · 1 issue closed so far',
    );
    expect(noticeMessage(base)).toContain('acme/shop · run r1');
  });
});
