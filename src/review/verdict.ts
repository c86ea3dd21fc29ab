// Reading a reviewer's answer: the verdict line and the findings after it. The answer is outside
// input; only the three verdict words are recognised, anything else is `unclear`.
import { type ModelVerdict, modelVerdicts } from './types.ts';

export interface ParsedReview {
  verdict: ModelVerdict | 'unclear';
  /** The answer without the verdict line (still untrusted: sanitise before posting). */
  findings: string;
}

const verdictLine = /^[\s>*_#`-]*verdict[\s*_`]*:[\s*_`]*([a-z]+)\b/i;

/**
 * The verdict is the first non-blank line when it is a VERDICT line; a model that writes a
 * preamble first is still read, from its first VERDICT line, and the preamble is kept as findings.
 */
export const parseReview = (text: string): ParsedReview => {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const at = lines.findIndex((l) => verdictLine.test(l));
  const word = at < 0 ? undefined : verdictLine.exec(lines[at]!)![1]!.toLowerCase();
  const verdict = modelVerdicts.find((v) => v === word);
  if (at < 0 || !verdict) return { verdict: 'unclear', findings: text.trim() };
  const rest = [...lines.slice(0, at), ...lines.slice(at + 1)];
  return { verdict, findings: rest.join('\n').trim() };
};
