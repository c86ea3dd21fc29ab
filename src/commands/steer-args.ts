// The `/blitz` actions a person uses to steer a run that is already going (issue 18): retry, skip or
// unhold one issue, tell its worker something, re-run or accept the integration review. Each reads
// exactly what it needs and refuses anything else with the one-line reason a person can act on.
import { closestMatch } from './did-you-mean.ts';
import { inlineCode } from './quote.ts';
import { parseRef } from './refs.ts';
import {
  blitzActions,
  type Command,
  type issueActions,
  MAX_TELL_CHARS,
  type reviewActions,
  type TicketRef,
} from './schema.ts';
import type { Token } from './tokenize.ts';

export type SteerResult = { ok: true; command: Command } | { ok: false; error: string };

const fail = (error: string): SteerResult => ({ ok: false, error });

type IssueRefResult = { ok: true; ref: TicketRef } | { ok: false; error: string };

/** `#12`, `12`, `repo#12`, `owner/repo#12` or an issue link; never a pull request. */
export const readIssueRef = (text: string, command: string): IssueRefResult => {
  if (/^\d+$/.test(text)) {
    const n = Number(text);
    if (Number.isSafeInteger(n) && n >= 1 && n <= 2_147_483_647) return { ok: true, ref: { number: n } };
    return { ok: false, error: `${inlineCode(text)} is not a valid issue number` };
  }
  const parsed = parseRef(text);
  if (!parsed.ok) {
    if ('error' in parsed) return parsed;
    return { ok: false, error: `${inlineCode(text)} is not an issue; write it as \`#12\`` };
  }
  if (parsed.kind === 'pull') {
    return {
      ok: false,
      error: `${inlineCode(text)} is a pull request; ${inlineCode(command)} takes an issue`,
    };
  }
  return { ok: true, ref: parsed.ref };
};

/** `/blitz retry #12`, `/blitz skip #12`, `/blitz unhold #12`: exactly one issue. */
export const parseIssueAction = (action: (typeof issueActions)[number], tokens: Token[]): SteerResult => {
  const command = `/blitz ${action}`;
  if (tokens.length === 0)
    return fail(`${inlineCode(command)} needs the issue, e.g. ${inlineCode(`${command} #12`)}`);
  if (tokens.length > 1) {
    return fail(`${inlineCode(command)} takes one issue at a time (write one line per issue)`);
  }
  const ref = readIssueRef(tokens[0]!.text, command);
  if (!ref.ok) return ref;
  return { ok: true, command: { name: 'blitz-issue', action, issue: ref.ref } };
};

/** `/blitz review`, `/blitz accept-review`: nothing after them. */
export const parseReviewAction = (action: (typeof reviewActions)[number], tokens: Token[]): SteerResult =>
  tokens.length === 0
    ? { ok: true, command: { name: 'blitz-review', action } }
    : fail(`${inlineCode(`/blitz ${action}`)} takes nothing after it`);

// Tabs become spaces; bidi and other format characters are dropped so the text reads as it shows.
const cleanMessage = (text: string): string =>
  text
    .replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu, ' ')
    .replace(/\p{Cf}+/gu, '')
    .replace(/\s+/g, ' ')
    .trim();

/**
 * `/blitz tell #12 <message>`, from the raw text after `tell`: the message is the rest of the line as
 * written (quotes and apostrophes kept), so it is never tokenized.
 */
export const parseTell = (rest: string): SteerResult => {
  const m = /^\s*(\S+)(?:\s+([\s\S]*))?$/.exec(rest);
  if (!m)
    return fail(
      '`/blitz tell` needs the issue and a message, e.g. `/blitz tell #12 use the existing parser`',
    );
  const ref = readIssueRef(m[1]!, '/blitz tell');
  if (!ref.ok) return ref;
  const message = cleanMessage(m[2] ?? '');
  if (message === '') return fail(`${inlineCode(`/blitz tell ${m[1]}`)} needs a message after the issue`);
  if (message.length > MAX_TELL_CHARS) return fail(`the message is longer than ${MAX_TELL_CHARS} characters`);
  return { ok: true, command: { name: 'blitz-tell', issue: ref.ref, message } };
};

/** The raw text after `tell` when `args` is a `/blitz tell …` line, else undefined. */
export const tellRest = (args: string): string | undefined => {
  const m = /^\s*tell(?=\s|$)([\s\S]*)$/i.exec(args);
  return m ? m[1]! : undefined;
};

/**
 * A first word that is a typo of an action (`retyr`, `stauts`), not a milestone name: only plain
 * words (letters and dashes) count, since milestone names like `M1` or `v2.0` are never that.
 */
export const misspeltAction = (first: Token | undefined): string | undefined => {
  if (!first || first.quoted || !/^[A-Za-z][A-Za-z-]{2,}$/.test(first.text)) return undefined;
  if ((blitzActions as readonly string[]).includes(first.text.toLowerCase())) return undefined;
  return closestMatch(first.text, blitzActions);
};
