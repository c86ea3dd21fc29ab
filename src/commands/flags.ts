// Separates `--flags` from positional words in a command's tokens, with the errors a person needs:
// unknown flag (and the one they probably meant), a flag given twice, a value missing or unexpected.
import { closestMatch } from './did-you-mean.ts';
import { inlineCode } from './quote.ts';
import type { Token } from './tokenize.ts';

export type FlagSpec = Record<string, 'value' | 'switch'>;

export type FlagsResult =
  | { ok: true; values: Map<string, string>; switches: Set<string>; positionals: Token[] }
  | { ok: false; error: string };

// `-1` is a (bad) number someone meant as a value, not a flag.
const looksLikeFlag = (token: Token): boolean => !token.quoted && /^-[^\d]/.test(token.text);

export const readFlags = (tokens: Token[], spec: FlagSpec): FlagsResult => {
  const values = new Map<string, string>();
  const switches = new Set<string>();
  const positionals: Token[] = [];
  const known = Object.keys(spec).map((name) => `--${name}`);
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (!looksLikeFlag(token)) {
      positionals.push(token);
      continue;
    }
    const eq = token.text.indexOf('=');
    const flag = eq === -1 ? token.text : token.text.slice(0, eq);
    const name = flag.startsWith('--') ? flag.slice(2) : '';
    const kind = Object.hasOwn(spec, name) ? spec[name] : undefined;
    if (kind === undefined) {
      const guess = closestMatch(flag, known);
      const hint = guess ? ` (did you mean ${inlineCode(guess)}?)` : '';
      return { ok: false, error: `unknown option ${inlineCode(flag)}${hint}` };
    }
    if (values.has(name) || switches.has(name)) {
      return { ok: false, error: `${inlineCode(flag)} is given more than once` };
    }
    if (kind === 'switch') {
      if (eq !== -1) return { ok: false, error: `${inlineCode(flag)} takes no value` };
      switches.add(name);
      continue;
    }
    let value: string | undefined;
    if (eq !== -1) value = token.text.slice(eq + 1);
    else {
      const next = tokens[i + 1];
      if (next && !looksLikeFlag(next)) {
        value = next.text;
        i++;
      }
    }
    if (value === undefined || value === '') return { ok: false, error: `${inlineCode(flag)} needs a value` };
    values.set(name, value);
  }
  return { ok: true, values, switches, positionals };
};

/** A whole number within bounds, written plainly (`3`, not `3.0`, `+3` or `1e1`). */
export const readCount = (
  flag: string,
  value: string,
  min: number,
  max: number,
): { ok: true; n: number } | { ok: false; error: string } => {
  const n = /^\d{1,6}$/.test(value) ? Number(value) : Number.NaN;
  if (Number.isInteger(n) && n >= min && n <= max) return { ok: true, n };
  return {
    ok: false,
    error: `${inlineCode(`--${flag}`)} must be a whole number from ${min} to ${max} (got ${inlineCode(value)})`,
  };
};
