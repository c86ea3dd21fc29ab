// Escaping for text the dashboard did not write (issue titles, roster names, probe errors): one line,
// bounded, and inert in GitHub/Gitea Markdown and inside a Mermaid label. An issue title is written
// by anyone who can open an issue, so it must not break the table, open a code fence, inject HTML,
// ping people or smuggle a link.

// Control and format characters (bidi overrides, zero-width) and line/paragraph separators.
const invisible = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+/gu;

/** One line, whitespace collapsed, at most `max` code points (an ellipsis marks a cut). */
export const oneLine = (text: string, max: number): string => {
  const flat = text.replace(invisible, ' ').replace(/\s+/g, ' ').trim();
  const points = Array.from(flat);
  return points.length > max ? `${points.slice(0, Math.max(0, max - 1)).join('')}…` : flat;
};

// Everything Markdown could read as structure: table pipes, code, HTML, links, emphasis, mentions,
// math, autolinked schemes. Numeric character references render as the character itself.
const markdownSpecial = /[&<>"'|`[\]()\\*_~@:!$#{}=+]/g;

/** Text for a Markdown table cell or list item: renders as the text, means nothing. */
export const markdownText = (text: string, max = 80): string =>
  oneLine(text, max).replace(markdownSpecial, (c) => `&#${c.codePointAt(0)};`);

const mermaidPlain = /^[A-Za-z0-9 .,_-]$/u;

/**
 * Text for a Mermaid node label inside `["…"]`: every character outside a small plain set becomes a
 * Mermaid entity `#<code>;`, so no quote, bracket or backtick reaches the parser or the code fence.
 */
export const mermaidText = (text: string, max = 40): string =>
  Array.from(oneLine(text, max))
    .map((c) => (mermaidPlain.test(c) ? c : `#${c.codePointAt(0)};`))
    .join('');

const urlUnsafe = /[()|`\\[\]'" <>*_~]/g;

/** An http(s) URL safe inside `[text](…)`, or undefined for anything else (javascript:, junk). */
export const safeUrl = (url: string | undefined): string | undefined => {
  if (!url) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return undefined;
  return parsed.href.replace(
    urlUnsafe,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
  );
};

/** 950 → `950`, 12_345 → `12.3k`, 2_500_000 → `2.5M`. */
export const compactNumber = (n: number): string => {
  if (!Number.isFinite(n) || n < 0) return '–';
  if (n < 1_000) return String(Math.round(n));
  if (n < 1_000_000) return `${(n / 1_000).toFixed(n < 10_000 ? 1 : 0).replace(/\.0$/, '')}k`;
  return `${(n / 1_000_000).toFixed(1).replace(/\.0$/, '')}M`;
};
