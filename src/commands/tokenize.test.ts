import { describe, expect, it } from 'vitest';
import { tokenize } from './tokenize.ts';

const texts = (input: string) => {
  const r = tokenize(input);
  if (!r.ok) throw new Error(r.error);
  return r.tokens.map((t) => [t.text, t.quoted]);
};

describe('tokenize', () => {
  it.each<[string, [string, boolean][]]>([
    ['', []],
    [
      '  a   b ',
      [
        ['a', false],
        ['b', false],
      ],
    ],
    [
      '"Milestone 1" --max 3',
      [
        ['Milestone 1', true],
        ['--max', false],
        ['3', false],
      ],
    ],
    ["'single quoted'", [['single quoted', true]]],
    ['\u201Ccurly quotes\u201D', [['curly quotes', true]]],
    ['\u00ABguillemets\u00BB', [['guillemets', true]]],
    ['label:"needs review"', [['label:needs review', false]]],
    ['--model="gpt 5"', [['--model=gpt 5', false]]],
    [
      "Bob's milestone",
      [
        ["Bob's", false],
        ['milestone', false],
      ],
    ],
    ['"--max"', [['--max', true]]],
    [
      '\u2014max 3',
      [
        ['--max', false],
        ['3', false],
      ],
    ],
    [
      'a \u2014 b',
      [
        ['a', false],
        ['\u2014', false],
        ['b', false],
      ],
    ],
    [
      '"" x',
      [
        ['', true],
        ['x', false],
      ],
    ],
    [
      'a\u00A0b',
      [
        ['a', false],
        ['b', false],
      ],
    ],
    [
      '$(id) `x`',
      [
        ['$(id)', false],
        ['`x`', false],
      ],
    ],
  ])('%j splits into %j', (input, expected) => {
    expect(texts(input)).toEqual(expected);
  });

  it.each(['"open', "'open", '\u201Copen', 'label:"open'])('refuses an unclosed quote in %j', (input) => {
    expect(tokenize(input)).toEqual({ ok: false, error: expect.stringMatching(/is never closed/) });
  });
});
