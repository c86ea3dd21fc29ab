// Making a model's answer safe to post: it is outside input (and a diff may have steered it), so it
// must not ping people, render HTML, plant another comment's hidden marker, leave a code fence open
// that swallows the rest of the comment, or grow without bound.

/** Control and format characters (bidi overrides, zero-width) other than newline and tab. */
const invisible = /(?![\n\t])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;
const zwj = '\u200D';

/** `@name` and `@org/team` never notify: a zero-width joiner after the `@` breaks the mention. */
export const neutraliseMentions = (text: string): string =>
  text.replace(/(^|[^\w])@(?=[A-Za-z0-9])/g, `$1@${zwj}`);

/** Escapes `<` and `&` outside inline code spans of one line, so no HTML tag or entity renders. */
const escapeOutsideCode = (line: string): string => {
  let out = '';
  let i = 0;
  while (i < line.length) {
    const tick = line.indexOf('`', i);
    if (tick < 0) {
      out += escapeHtml(line.slice(i));
      break;
    }
    out += escapeHtml(line.slice(i, tick));
    let n = tick;
    while (line[n] === '`') n++;
    const run = line.slice(tick, n);
    const close = findRun(line, run, n);
    if (close < 0) {
      out += run;
      i = n;
      continue;
    }
    out += line.slice(tick, close + run.length);
    i = close + run.length;
  }
  return out;
};

const escapeHtml = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** Index of the next backtick run exactly as long as `run`, or -1. */
const findRun = (line: string, run: string, from: number): number => {
  let at = line.indexOf(run, from);
  while (at >= 0) {
    let end = at + run.length;
    if (line[at - 1] !== '`' && line[end] !== '`') return at;
    while (line[end] === '`') end++;
    at = line.indexOf(run, end);
  }
  return -1;
};

const fenceOpen = /^ {0,3}(`{3,}|~{3,})/;

export interface SanitizeOptions {
  /** Characters kept; the rest is cut at a line boundary with a note. */
  maxChars: number;
}

/** Model text → inert Markdown: no mentions, no HTML, no hidden markers, fences closed, bounded. */
export const sanitizeModelText = (text: string, opts: SanitizeOptions): string => {
  let src = text.replace(/\r\n?/g, '\n').replace(invisible, '').trimEnd();
  let cut = false;
  if (src.length > opts.maxChars) {
    const at = src.lastIndexOf('\n', opts.maxChars);
    src = src.slice(0, at > opts.maxChars / 2 ? at : opts.maxChars);
    cut = true;
  }
  const out: string[] = [];
  let fence: string | undefined;
  for (const raw of src.split('\n')) {
    // Inside code HTML does not render, but a hidden marker would still match a sticky-comment search.
    const line = neutraliseMentions(raw).replace(/<!--/g, `<!${zwj}--`);
    if (fence) {
      out.push(line);
      if (new RegExp(`^ {0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`).test(line))
        fence = undefined;
      continue;
    }
    const open = fenceOpen.exec(line);
    if (open) {
      fence = open[1]!;
      out.push(line);
      continue;
    }
    out.push(escapeOutsideCode(line));
  }
  if (fence) out.push(fence);
  if (cut)
    out.push('', `_(the reviewer's answer was cut at ${opts.maxChars.toLocaleString('en-US')} characters)_`);
  return out.join('\n').trim();
};
