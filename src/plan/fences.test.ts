import { describe, expect, it } from 'vitest';
import { extractFences, fenceDecision } from './fences.ts';

describe('extractFences', () => {
  it('takes backticked paths and bare paths with a slash, marking folders with a trailing slash', () => {
    const body = [
      'The bug is in `src/plan/graph.ts` and `package.json`.',
      'Also touch src/runner/ and ./docs/guide.md, see https://example.com/a/b and owner/repo#3.',
      'Do not confuse with `npm run bench` or e.g. this.',
    ].join('\n');
    expect(extractFences(body)).toEqual([
      'docs/guide.md',
      'package.json',
      'src/plan/graph.ts',
      'src/runner/',
    ]);
  });

  it('refuses paths that climb out or are absolute', () => {
    expect(extractFences('`../secret.txt` and `/etc/passwd`')).toEqual([]);
  });
});

describe('fenceDecision', () => {
  it('the same file named by both: not together', () => {
    expect(fenceDecision(['src/a.ts', 'src/b.ts'], ['src/b.ts'])).toEqual({
      together: false,
      shared: ['src/b.ts'],
    });
  });
  it("a folder containing the other issue's file: together, fenced off", () => {
    expect(fenceDecision(['src/plan/'], ['src/plan/graph.ts', 'README.md'])).toEqual({
      together: true,
      fenceOff: ['src/plan/graph.ts'],
    });
  });
  it('disjoint paths: together with nothing to fence', () => {
    expect(fenceDecision(['src/a.ts'], ['src/b.ts'])).toEqual({ together: true, fenceOff: [] });
  });
});
