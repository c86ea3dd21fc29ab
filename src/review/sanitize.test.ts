import { describe, expect, it } from 'vitest';
import { neutraliseMentions, sanitizeModelText } from './sanitize.ts';

const clean = (t: string, maxChars = 10_000) => sanitizeModelText(t, { maxChars });
const zwj = '\u200D';

describe('sanitizeModelText', () => {
  it('breaks @mentions and team mentions so nobody is pinged, but leaves e-mail addresses', () => {
    const out = clean('ping @octocat and @acme/core, mail ops@example.com, twice @@root');
    expect(out).not.toMatch(/(^|[^\w])@[A-Za-z0-9]/);
    expect(out).toContain(`@${zwj}octocat`);
    expect(out).toContain(`@${zwj}acme/core`);
    expect(out).toContain('ops@example.com');
    expect(out).toContain(`@@${zwj}root`);
  });

  it('escapes HTML outside code and keeps code spans readable', () => {
    const out = clean('<img src=x onerror=alert(1)> and `a < b` and <script>x</script>');
    expect(out).not.toContain('<img');
    expect(out).not.toContain('<script');
    expect(out).toContain('&lt;img');
    expect(out).toContain('`a < b`');
  });

  it('leaves fenced code as written but closes a fence the model left open', () => {
    const out = clean('VERDICT text\n```ts\nif (a < b) {}\n');
    expect(out.split('\n')).toEqual(['VERDICT text', '```ts', 'if (a < b) {}', '```']);
  });

  it('neutralises hidden comment markers even inside code, so no other sticky comment can be hijacked', () => {
    const out = clean('<!-- blitz-dashboard -->\n```\n<!-- blitz-review -->\n```');
    expect(out).not.toContain('<!--');
    expect(out).not.toContain('<!-- blitz-review -->');
  });

  it('drops bidi overrides and control characters but keeps newlines and tabs', () => {
    expect(clean('a\u202Eb\u0007c\n\td')).toBe('abc\n\td');
  });

  it('cuts a long answer at a line boundary and says it was cut', () => {
    const long = Array.from({ length: 200 }, (_, i) => `- [low] line ${i}`).join('\n');
    const out = clean(long, 500);
    expect(out.length).toBeLessThan(600);
    expect(out).toContain('cut at 500 characters');
    expect(out).not.toContain('line 199');
  });
});

describe('neutraliseMentions', () => {
  it('marks a mention at the very start of the text', () => {
    expect(neutraliseMentions('@admin please merge')).toBe(`@${zwj}admin please merge`);
  });
});
