import { describe, expect, it } from 'vitest';
import { parseReview } from './verdict.ts';

describe('parseReview', () => {
  it('reads the verdict from the first line and keeps the findings after it', () => {
    expect(parseReview('VERDICT: minor\n- [low] a.ts:1 — naming\n')).toEqual({
      verdict: 'minor',
      findings: '- [low] a.ts:1 — naming',
    });
  });

  it('accepts markdown decoration and any case on the verdict line', () => {
    expect(parseReview('**Verdict:** BLOCKING\n- [high] x').verdict).toBe('blocking');
    expect(parseReview('`VERDICT: clean`').verdict).toBe('clean');
  });

  it('reads a verdict after a preamble and keeps the preamble as findings', () => {
    expect(parseReview('Here is my review.\nVERDICT: clean\n- none')).toEqual({
      verdict: 'clean',
      findings: 'Here is my review.\n- none',
    });
  });

  it('calls an answer without a known verdict word unclear and keeps all of it', () => {
    expect(parseReview('Looks good to me')).toEqual({ verdict: 'unclear', findings: 'Looks good to me' });
    expect(parseReview('VERDICT: approve\n- none')).toEqual({
      verdict: 'unclear',
      findings: 'VERDICT: approve\n- none',
    });
  });
});
