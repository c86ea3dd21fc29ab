// Reads every slash command in a comment body, in order: pure, bounded, and never throwing. A
// known command with bad arguments becomes an error entry carrying the reply; other slash words
// (`/lgtm`) belong to other bots and are left alone.

import { parseArgs } from './command-args.ts';
import { type CommandLine, findCommandLines } from './command-lines.ts';
import { inlineCode } from './quote.ts';
import { type CommandWord, commandSchema, type ParsedCommand } from './schema.ts';
import { parseTell, tellRest } from './steer-args.ts';
import { tokenize } from './tokenize.ts';
import { commandUsage } from './usage.ts';

export type { Command, ParsedCommand, TicketRef } from './schema.ts';
export { commandUsage, helpText } from './usage.ts';

/** Only the first 64 KiB of a comment is read; a command further down is not seen at all. */
export const MAX_BODY_BYTES = 64 * 1024;
export const MAX_LINE_CHARS = 1000;
/** A comment pasting a script of commands gets the first ones, then one error, not a flood of runs. */
export const MAX_COMMANDS_PER_COMMENT = 20;

/** The first 64 KiB of UTF-8, dropping the last line when it was cut: half a command is not one. */
const capBody = (body: string): string => {
  if (body.length * 3 <= MAX_BODY_BYTES) return body;
  const bytes = Buffer.from(body, 'utf8');
  if (bytes.length <= MAX_BODY_BYTES) return body;
  const head = bytes.subarray(0, MAX_BODY_BYTES).toString('utf8');
  const lastBreak = Math.max(head.lastIndexOf('\n'), head.lastIndexOf('\r'));
  return lastBreak === -1 ? '' : head.slice(0, lastBreak);
};

const failure = (found: CommandLine, error: string): ParsedCommand => ({
  ok: false,
  raw: found.text,
  line: found.line,
  error,
  usage: commandUsage[found.word]!,
  word: found.word,
});

const parseLine = (found: CommandLine): ParsedCommand => {
  if (found.text.length > MAX_LINE_CHARS) {
    return failure(found, `the command line is longer than ${MAX_LINE_CHARS} characters`);
  }
  // A `/blitz tell` message is free text: read as written, never split into words.
  const rest = found.word === 'blitz' ? tellRest(found.args) : undefined;
  const tokens = rest === undefined ? tokenize(found.args) : { ok: true as const, tokens: [] };
  if (!tokens.ok) return failure(found, tokens.error);
  const args = rest === undefined ? parseArgs[found.word](tokens.tokens) : parseTell(rest);
  if (!args.ok) return failure(found, args.error);
  // The parser builds the value; the schema is the contract every consumer relies on.
  const checked = commandSchema.safeParse(args.command);
  if (!checked.success) return failure(found, 'the arguments are not valid');
  return { ok: true, command: checked.data, raw: found.text, line: found.line };
};

export const parseCommands = (body: string): ParsedCommand[] => {
  if (typeof body !== 'string' || body === '') return [];
  const found = findCommandLines(capBody(body));
  const parsed = found.slice(0, MAX_COMMANDS_PER_COMMENT).map(parseLine);
  const extra = found[MAX_COMMANDS_PER_COMMENT];
  if (extra) {
    parsed.push(
      failure(
        extra,
        `a comment can hold at most ${MAX_COMMANDS_PER_COMMENT} commands; this one and the rest were ignored`,
      ),
    );
  }
  return parsed;
};

const usageOf = (word: CommandWord): string => commandUsage[word] ?? '';

/** The reply to a command that could not be read: the line quoted (inert), what is wrong, the usage. */
export const formatParseError = (p: Extract<ParsedCommand, { ok: false }>): string =>
  [
    `> ${inlineCode(p.raw)}`,
    '',
    `I could not run this command: ${p.error}.`,
    '',
    'Usage:',
    '```text',
    usageOf(p.word),
    '```',
  ].join('\n');
