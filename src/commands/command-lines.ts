// Finds the lines of a Markdown comment that are our commands: a command word at the start of a
// line (at most three spaces in), outside quotes, fenced or indented code, code spans and HTML
// comments. When the Markdown is ambiguous we lean towards "not a command": a missed command can
// be typed again, a command run from a quoted reply cannot be taken back.
import { type CommandWord, commandWords } from './schema.ts';

export interface CommandLine {
  /** 1-based line number in the comment. */
  line: number;
  /** The line without its leading spaces. */
  text: string;
  word: CommandWord;
  /** Everything after the command word. */
  args: string;
}

type LineKind = 'text' | 'blank' | 'quote' | 'code' | 'hidden';

interface Fence {
  char: '`' | '~';
  length: number;
  indent: number;
}

// A fence may follow list markers (`- ```` opens a fence inside a list item). Any indentation is
// accepted for an opener: reading an indented code line as a fence only hides more text.
const FENCE_OPEN = /^(\s*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)*)(`{3,}|~{3,})(.*)$/;
const QUOTE = /^ {0,3}>/;
const COMMAND = /^ {0,3}\/([a-z][a-z-]*)(?=\s|$)/;
// HTML regions that hide or code-format what is inside them; the key is the opener as matched.
const HTML_OPEN = /<!--|<pre[\s>]|<code[\s>]/gi;
const HTML_CLOSE: Record<string, string> = { '<!--': '-->', '<pre': '</pre>', '<code': '</code>' };

const widthOf = (prefix: string): number => prefix.replace(/\t/g, '    ').length;

const openFence = (line: string): Fence | null => {
  const m = FENCE_OPEN.exec(line);
  if (!m) return null;
  const marker = m[2]!;
  // A backtick "fence" followed by more backticks is an inline code span, not a block.
  if (marker[0] === '`' && m[3]!.includes('`')) return null;
  return { char: marker[0] as '`' | '~', length: marker.length, indent: widthOf(m[1]!) };
};

const closesFence = (line: string, fence: Fence): boolean => {
  const m = /^(\s*)(`+|~+)\s*$/.exec(line);
  return !!m && m[2]![0] === fence.char && m[2]!.length >= fence.length && widthOf(m[1]!) <= fence.indent + 3;
};

/** The closer of the HTML region still open at the end of `line`, or null when none is. */
const scanHtml = (line: string, open: string | null): string | null => {
  const lower = line.toLowerCase();
  let closer = open;
  let pos = 0;
  for (;;) {
    if (closer !== null) {
      const at = lower.indexOf(closer, pos);
      if (at === -1) return closer;
      pos = at + closer.length;
    }
    HTML_OPEN.lastIndex = pos;
    const m = HTML_OPEN.exec(lower);
    if (!m) return null;
    closer = HTML_CLOSE[m[0].slice(0, m[0] === '<!--' ? 4 : m[0].length - 1)]!;
    pos = m.index + m[0].length;
  }
};

const classify = (lines: string[]): LineKind[] => {
  const kinds: LineKind[] = [];
  let fence: Fence | null = null;
  let html: string | null = null;
  let lazyQuote = false;
  for (const line of lines) {
    if (fence) {
      kinds.push('code');
      if (closesFence(line, fence)) fence = null;
      continue;
    }
    if (html !== null) {
      kinds.push('hidden');
      html = scanHtml(line, html);
      continue;
    }
    const opened = openFence(line);
    if (opened) {
      kinds.push('code');
      fence = opened;
      lazyQuote = false;
      continue;
    }
    const blank = line.trim() === '';
    // A paragraph line right after a quote, with no blank line between, is rendered inside it.
    const kind: LineKind = blank ? 'blank' : QUOTE.test(line) || lazyQuote ? 'quote' : 'text';
    kinds.push(kind);
    lazyQuote = kind === 'quote';
    html = scanHtml(line, null);
  }
  return kinds;
};

/**
 * Line indexes of a paragraph whose start lies inside a code span opened on an earlier line.
 * CommonMark: a run of n backticks opens a span closed by the next run of exactly n backticks;
 * a run with no such partner is literal text.
 */
const linesInsideCodeSpans = (lines: string[], first: number): Set<number> => {
  const starts: number[] = [];
  let offset = 0;
  for (const line of lines) {
    starts.push(offset);
    offset += line.length + 1;
  }
  const runs = [...lines.join('\n').matchAll(/`+/g)].map((m) => ({ at: m.index, length: m[0].length }));
  // Indexes of runs by length, and how far each list has been consumed: keeps this linear.
  const byLength = new Map<number, number[]>();
  runs.forEach((run, i) => {
    const list = byLength.get(run.length);
    if (list) list.push(i);
    else byLength.set(run.length, [i]);
  });
  const cursor = new Map<number, number>();
  const inside = new Set<number>();
  let line = 0;
  for (let i = 0; i < runs.length; i++) {
    const open = runs[i]!;
    const same = byLength.get(open.length)!;
    let c = cursor.get(open.length) ?? 0;
    while (c < same.length && same[c]! <= i) c++;
    cursor.set(open.length, c);
    if (c === same.length) continue;
    const j = same[c]!;
    const close = runs[j]!;
    while (line < starts.length && starts[line]! <= open.at) line++;
    for (; line < starts.length && starts[line]! <= close.at; line++) inside.add(first + line);
    i = j;
  }
  return inside;
};

export const findCommandLines = (body: string): CommandLine[] => {
  const lines = body.split(/\r\n|\r|\n/);
  const kinds = classify(lines);
  const inSpan = new Set<number>();
  for (let i = 0; i < lines.length; ) {
    if (kinds[i] !== 'text') {
      i++;
      continue;
    }
    let end = i;
    while (end < lines.length && kinds[end] === 'text') end++;
    // Only a paragraph with two backticks or more can hide a line in a span.
    if (end - i > 1) for (const k of linesInsideCodeSpans(lines.slice(i, end), i)) inSpan.add(k);
    i = end;
  }
  const found: CommandLine[] = [];
  lines.forEach((line, i) => {
    if (kinds[i] !== 'text' || inSpan.has(i)) return;
    const m = COMMAND.exec(line);
    const word = commandWords.find((w) => w === m?.[1]);
    if (!m || !word) return;
    const text = line.trimStart();
    found.push({ line: i + 1, text, word, args: text.slice(word.length + 1) });
  });
  return found;
};
