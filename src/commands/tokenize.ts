// Splits the arguments of one command line into argv-like tokens. Quotes group words
// (`/blitz "Milestone 1"`, `label:"needs review"`), including the curly quotes phones and Macs
// type; nothing is expanded or interpreted, there is no escape character.

export interface Token {
  text: string;
  /** The token began with a quote: it is always a value, never a flag. */
  quoted: boolean;
}

export type TokenizeResult = { ok: true; tokens: Token[] } | { ok: false; error: string };

const closingQuote: Record<string, string> = {
  '"': '"',
  "'": "'",
  '\u201C': '\u201D', // “ ”
  '\u201D': '\u201D', // some keyboards type ” on both sides
  '\u2018': '\u2019', // ‘ ’
  '\u00AB': '\u00BB', // « »
};

// An autocorrected `--max` arrives as an em or en dash; a person meant the flag.
const normaliseDashes = (text: string): string => text.replace(/^[\u2013\u2014](?=\p{L})/u, '--');

export const tokenize = (input: string): TokenizeResult => {
  const tokens: Token[] = [];
  let current = '';
  let inToken = false;
  let quotedStart = false;
  let i = 0;
  const chars = Array.from(input);
  const flush = () => {
    if (inToken) tokens.push({ text: quotedStart ? current : normaliseDashes(current), quoted: quotedStart });
    current = '';
    inToken = false;
    quotedStart = false;
  };
  while (i < chars.length) {
    const ch = chars[i]!;
    const close = closingQuote[ch];
    // A quote opens only where a value starts, so the apostrophe in `Bob's` stays a letter.
    const atValueStart = !inToken || current.endsWith(':') || current.endsWith('=');
    if (close !== undefined && atValueStart) {
      if (!inToken) quotedStart = true;
      inToken = true;
      const end = chars.indexOf(close, i + 1);
      if (end === -1) return { ok: false, error: `a quote (${ch}) is never closed` };
      current += chars.slice(i + 1, end).join('');
      i = end + 1;
      continue;
    }
    if (/\s/u.test(ch)) flush();
    else {
      current += ch;
      inToken = true;
    }
    i++;
  }
  flush();
  return { ok: true, tokens };
};
