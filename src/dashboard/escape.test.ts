import { describe, expect, it } from 'vitest';
import { compactNumber, markdownText, mermaidText, oneLine, safeUrl } from './escape.ts';

describe('dashboard escaping', () => {
  it('flattens newlines, separators and bidi overrides into one line and cuts at a code point', () => {
    expect(oneLine('a\nb\u2028c\u202ed\t e', 80)).toBe('a b c d e');
    expect(oneLine('😀😀😀', 2)).toBe('😀…');
  });

  it('turns Markdown structure into character references', () => {
    expect(markdownText('a|b `c` <i> @dev [l](x)')).toBe(
      'a&#124;b &#96;c&#96; &#60;i&#62; &#64;dev &#91;l&#93;&#40;x&#41;',
    );
  });

  it('leaves only plain characters in a Mermaid label', () => {
    expect(mermaidText('Fix "x" [y]')).toBe('Fix #34;x#34; #91;y#93;');
  });

  it('accepts only http(s) URLs and percent-encodes what would end a Markdown link', () => {
    expect(safeUrl('https://x.test/a(b)|c')).toBe('https://x.test/a%28b%29%7Cc');
    expect(safeUrl('javascript:alert(1)')).toBeUndefined();
    expect(safeUrl('not a url')).toBeUndefined();
  });

  it('writes token counts compactly', () => {
    expect([950, 1_234, 48_200, 2_500_000, -1].map(compactNumber)).toEqual([
      '950',
      '1.2k',
      '48k',
      '2.5M',
      '–',
    ]);
  });
});
