// Quoting untrusted comment text back into a Markdown reply: one line, no control or bidi
// characters, bounded length, and wrapped so nothing inside renders, mentions or pings anyone.

const MAX_QUOTED_CHARS = 200;

// Cc covers NUL..US and DEL..; the bidi overrides can make a quoted line read differently from
// what was typed, so they go too.
const UNSAFE_CHARS = /[\p{Cc}\u200E\u200F\u202A-\u202E\u2066-\u2069\uFEFF]/gu;

/** One line of plain text, control characters stripped, cut to `max` code points with an ellipsis. */
export const cleanLine = (text: string, max = MAX_QUOTED_CHARS): string => {
  const flat = text.replace(/[\t\r\n]+/g, ' ').replace(UNSAFE_CHARS, '');
  const chars = Array.from(flat);
  return chars.length > max ? `${chars.slice(0, max).join('')}…` : flat;
};

/**
 * `text` as a Markdown code span. The fence is one backtick longer than the longest run inside,
 * which is how CommonMark lets a span contain backticks; nothing in a span is rendered or mentioned.
 */
export const inlineCode = (text: string, max = MAX_QUOTED_CHARS): string => {
  const clean = cleanLine(text, max);
  if (clean === '') return '` `';
  const longestRun = Math.max(0, ...(clean.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longestRun + 1);
  // A span whose content starts or ends with a backtick needs a space of padding on both sides.
  const pad = clean.startsWith('`') || clean.endsWith('`') || longestRun > 0 ? ' ' : '';
  return `${fence}${pad}${clean}${pad}${fence}`;
};
