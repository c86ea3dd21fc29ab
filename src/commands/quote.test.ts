import { describe, expect, it } from 'vitest';
import { closestMatch } from './did-you-mean.ts';
import { cleanLine, inlineCode } from './quote.ts';

describe('inlineCode', () => {
  it.each<[string, string]>([
    ['plain', '`plain`'],
    ['a `tick`', '`` a `tick` ``'],
    ['```', '```` ``` ````'],
    ['`edge', '`` `edge ``'],
    ['', '` `'],
    ['@everyone', '`@everyone`'],
  ])('wraps %j as %j', (text, expected) => {
    expect(inlineCode(text)).toBe(expected);
  });
});

describe('cleanLine', () => {
  it('flattens newlines and tabs, strips control and bidi characters', () => {
    expect(cleanLine('a\nb\tc\u0000d\u202Ee\u2066f\u001b[0m')).toBe('a b cdef[0m');
  });

  it('cuts to the limit in code points without splitting an emoji', () => {
    expect(cleanLine('🚀🚀🚀', 2)).toBe('🚀🚀…');
  });
});

describe('closestMatch', () => {
  it.each<[string, string[], string | undefined]>([
    ['--mx', ['--max', '--model'], '--max'],
    ['biuld', ['build', 'smoke'], 'build'],
    ['polcy', ['policy', 'deploy'], 'policy'],
    ['foo', ['max', 'tool'], undefined],
    ['x'.repeat(100), ['max'], undefined],
  ])('%j → %j', (word, candidates, expected) => {
    expect(closestMatch(word, candidates)).toBe(expected);
  });
});
