// Everything the bot writes on a forge passes here once, just above the adapters: comment bodies,
// sticky comments, closing comments, issue and pull request titles and bodies, merge titles. Much of it quotes what
// others wrote (a command line, an issue title) or relays what a model wrote (a review, a FINAL REPORT,
// uncertainties, findings), so each text is
// - stripped of control characters (bidi overrides, NUL, other C0/C1 and format characters) but
//   newline and tab, so a quoted line cannot reorder or hide what the reader sees;
// - cleared of commands: a line our own parser would read as a command gets a Markdown escape (`\/`),
//   which renders the same, so no line the bot posts can command it (or be mistaken for a person's);
// - redacted of secrets (observability/redact.ts).
import { findCommandLines } from '../commands/command-lines.ts';
import type { Redact } from '../observability/redact.ts';
import type { Forge } from './types.ts';

// Cc (C0, DEL, C1) but \n and \t; Cf (bidi embeddings, overrides and isolates, zero-width marks);
// the Unicode line and paragraph separators, which some renderers break lines on.
const controls = /(?![\n\t])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

/** Newlines normalised to `\n`, then every control and format character but newline and tab removed. */
export const stripControls = (text: string): string => text.replace(/\r\n?/g, '\n').replace(controls, '');

/** Every line our command parser would take as a command, escaped (`\/word`): it renders the same. */
export const neutraliseCommands = (text: string): string => {
  const found = findCommandLines(text);
  if (found.length === 0) return text;
  const lines = text.split('\n');
  for (const { line } of found) lines[line - 1] = lines[line - 1]!.replace('/', '\\/');
  return lines.join('\n');
};

/** A title (plain text, never Markdown, never read for commands): controls stripped, secrets redacted. */
export const cleanTitle = (text: string, redact: Redact): string => redact(stripControls(text));

/** A Markdown body: controls stripped, commands neutralised, secrets redacted. */
export const cleanBody = (text: string, redact: Redact): string =>
  redact(neutraliseCommands(stripControls(text)));

/** `forge` with every text it writes made safe first (reads are untouched). */
export const withCleanOutgoing = (forge: Forge, redact: Redact): Forge => {
  const body = (text: string) => cleanBody(text, redact);
  const title = (text: string) => cleanTitle(text, redact);
  /** A `blitz` check report sent with an open or a merge: its title and summary made safe. */
  const progress = <P extends { report: { title: string; summary: string } }>(p: P): P => ({
    ...p,
    report: { ...p.report, title: title(p.report.title), summary: body(p.report.summary) },
  });
  return {
    ...forge,
    createComment: (ref, text) => forge.createComment(ref, body(text)),
    closeIssue: (ref, opts) =>
      forge.closeIssue(ref, opts?.comment === undefined ? opts : { ...opts, comment: body(opts.comment) }),
    ...(forge.closeIssues
      ? {
          closeIssues: (closes) =>
            forge.closeIssues!(closes.map((c) => ({ ...c, comment: body(c.comment) }))),
        }
      : {}),
    upsertStickyComment: (ref, marker, text, opts) =>
      forge.upsertStickyComment(ref, marker, body(text), opts),
    createIssue: (repo, issue) =>
      forge.createIssue(repo, { ...issue, title: title(issue.title), body: body(issue.body) }),
    openPullRequest: (repo, pr, opts) =>
      forge.openPullRequest(
        repo,
        { ...pr, title: title(pr.title), body: body(pr.body) },
        opts?.progress ? { ...opts, progress: progress(opts.progress) } : opts,
      ),
    mergePullRequest: (ref, opts) =>
      forge.mergePullRequest(ref, {
        ...opts,
        ...(opts.title === undefined ? {} : { title: title(opts.title) }),
        ...(opts.progress ? { progress: progress(opts.progress) } : {}),
      }),
    ...(forge.reportProgress
      ? {
          reportProgress: (repo, sha, report, opts) =>
            forge.reportProgress!(
              repo,
              sha,
              { ...report, title: title(report.title), summary: body(report.summary) },
              opts,
            ),
        }
      : {}),
    ...(forge.replyToReviewComment
      ? { replyToReviewComment: (ref, id, text) => forge.replyToReviewComment!(ref, id, body(text)) }
      : {}),
  };
};
