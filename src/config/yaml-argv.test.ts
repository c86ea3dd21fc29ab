import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { keepArgvWordsAsText } from './yaml-argv.ts';

const read = (text: string, paths: string[][]): unknown => {
  const doc = parseDocument(text);
  keepArgvWordsAsText(doc, paths);
  return doc.toJS();
};

describe('keepArgvWordsAsText', () => {
  it('keeps the source text of numbers, booleans and null in the named lists only', () => {
    expect(
      read('cmd: [git, log, -1, 1.10, 0o17, false, null]\nother: [-1, true]\nn: 5\n', [['cmd']]),
    ).toEqual({ cmd: ['git', 'log', '-1', '1.10', '0o17', 'false', 'null'], other: [-1, true], n: 5 });
  });

  it('follows every entry of a list with *', () => {
    expect(read('r:\n  - c: [a, 1]\n  - c: [b, 2.0]\n  - d: [3]\n', [['r', '*', 'c']])).toEqual({
      r: [{ c: ['a', '1'] }, { c: ['b', '2.0'] }, { d: [3] }],
    });
  });

  it('leaves an empty entry, a mapping entry and a non-list field as they are', () => {
    expect(read('cmd:\n  - a\n  -\n  - {x: 1}\nstr: 7\n', [['cmd'], ['str'], ['missing', '*']])).toEqual({
      cmd: ['a', null, { x: 1 }],
      str: 7,
    });
  });
});
