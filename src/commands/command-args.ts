// Turns the tokens after each command word into a Command, or into the one-line error a person
// needs to fix it. Limits come from schema.ts; the result is validated against it by the caller.
import { readCount, readFlags } from './flags.ts';
import { inlineCode } from './quote.ts';
import { parseRef, refKey } from './refs.ts';
import {
  type Command,
  type CommandWord,
  controlActions,
  issueActions,
  MAX_CONCURRENCY,
  MAX_FLEET_REFS,
  MAX_WAVES,
  modelPattern,
  reviewActions,
  type TicketRef,
  toolPattern,
} from './schema.ts';
import { misspeltAction, parseIssueAction, parseReviewAction } from './steer-args.ts';
import type { Token } from './tokenize.ts';

export type ArgsResult = { ok: true; command: Command } | { ok: false; error: string };

const fail = (error: string): ArgsResult => ({ ok: false, error });
const MAX_MILESTONE_CHARS = 200;

const milestoneOf = (words: Token[]): { ok: true; milestone?: string } | { ok: false; error: string } => {
  if (words.length === 0) return { ok: true };
  const milestone = words.map((w) => w.text).join(' ');
  if (milestone.trim() === '') return { ok: false, error: 'the milestone name is empty' };
  if (milestone.length > MAX_MILESTONE_CHARS) {
    return { ok: false, error: `the milestone name is longer than ${MAX_MILESTONE_CHARS} characters` };
  }
  return { ok: true, milestone };
};

const parseBlitz = (tokens: Token[]): ArgsResult => {
  const first = tokens[0];
  const action = controlActions.find((a) => first && !first.quoted && first.text.toLowerCase() === a);
  if (action) {
    if (tokens.length > 1) {
      return fail(
        `${inlineCode(`/blitz ${action}`)} takes nothing after it; to start a milestone whose title begins with ` +
          `"${action}", put the title in quotes`,
      );
    }
    return { ok: true, command: { name: 'blitz-control', action } };
  }
  const word = first && !first.quoted ? first.text.toLowerCase() : undefined;
  const issueAction = issueActions.find((a) => a === word);
  if (issueAction) return parseIssueAction(issueAction, tokens.slice(1));
  const reviewAction = reviewActions.find((a) => a === word);
  if (reviewAction) return parseReviewAction(reviewAction, tokens.slice(1));
  const typo = misspeltAction(first);
  if (typo) {
    return fail(
      `${inlineCode(`/blitz ${first!.text}`)} is not a command (did you mean ${inlineCode(`/blitz ${typo}`)}?); ` +
        'to start a milestone with that name, put it in quotes',
    );
  }
  const flags = readFlags(tokens, {
    deploy: 'switch',
    local: 'switch',
    max: 'value',
    tool: 'value',
    model: 'value',
    'dry-run': 'switch',
    'require-checks': 'switch',
  });
  if (!flags.ok) return flags;
  const { values, switches } = flags;
  if (switches.has('deploy') && switches.has('local')) return fail('choose one of `--deploy` or `--local`');
  const milestone = milestoneOf(flags.positionals);
  if (!milestone.ok) return milestone;
  const command: Extract<Command, { name: 'blitz' }> = { name: 'blitz', dryRun: switches.has('dry-run') };
  if (milestone.milestone !== undefined) command.milestone = milestone.milestone;
  if (switches.has('deploy')) command.ship = 'deploy';
  if (switches.has('local')) command.ship = 'local';
  if (switches.has('require-checks')) command.requireChecks = true;
  const max = values.get('max');
  if (max !== undefined) {
    const n = readCount('max', max, 1, MAX_CONCURRENCY);
    if (!n.ok) return n;
    command.max = n.n;
  }
  const tool = values.get('tool');
  if (tool !== undefined) {
    if (!toolPattern.test(tool)) return fail(`${inlineCode(tool)} is not a tool name`);
    command.tool = tool;
  }
  const model = values.get('model');
  if (model !== undefined) {
    if (!modelPattern.test(model)) return fail(`${inlineCode(model)} is not a model name`);
    command.model = model;
  }
  return { ok: true, command };
};

/** Refs from positional tokens; `words` collects tokens that are not refs when the caller allows them. */
const collectRefs = (
  tokens: Token[],
  what: string,
  words?: Token[],
): { ok: true; refs: TicketRef[] } | { ok: false; error: string } => {
  const refs: TicketRef[] = [];
  const seen = new Set<string>();
  for (const token of tokens) {
    const parsed = token.quoted && words ? ({ ok: false, notARef: true } as const) : parseRef(token.text);
    if (!parsed.ok) {
      if ('error' in parsed) return parsed;
      if (words) {
        words.push(token);
        continue;
      }
      return {
        ok: false,
        error: `${inlineCode(token.text)} is not a ticket reference (write \`#9\`, \`owner/repo#9\` or an issue link)`,
      };
    }
    if (parsed.kind === 'pull') {
      return { ok: false, error: `${inlineCode(token.text)} is a pull request; ${what} takes issues` };
    }
    const key = refKey(parsed.ref);
    if (seen.has(key)) return { ok: false, error: `${inlineCode(token.text)} is listed more than once` };
    seen.add(key);
    refs.push(parsed.ref);
  }
  if (refs.length > MAX_FLEET_REFS) {
    return { ok: false, error: `at most ${MAX_FLEET_REFS} tickets at a time (got ${refs.length})` };
  }
  return { ok: true, refs };
};

const parseFleetMerge = (tokens: Token[]): ArgsResult => {
  if (tokens.length !== 1) return fail('`/ticket-fleet merge` takes exactly one pull request, e.g. `#12`');
  const token = tokens[0]!;
  const parsed = parseRef(token.text);
  if (!parsed.ok) {
    return fail(
      'error' in parsed ? parsed.error : `${inlineCode(token.text)} is not a pull request reference`,
    );
  }
  if (parsed.kind === 'issue') {
    return fail(`${inlineCode(token.text)} is an issue link; \`/ticket-fleet merge\` takes a pull request`);
  }
  return { ok: true, command: { name: 'ticket-fleet-merge', pr: parsed.ref } };
};

/** `/<word> resume`: the run kind's own resume; nothing may follow it. */
const resumeOf = (
  tokens: Token[],
  word: 'ticket-fleet' | 'plan-blitz',
  what: string,
): ArgsResult | undefined => {
  const first = tokens[0];
  if (!first || first.quoted || first.text.toLowerCase() !== 'resume') return undefined;
  if (tokens.length > 1)
    return fail(
      `${inlineCode(`/${word} resume`)} takes nothing after it; to name ${what} "resume", put it in quotes`,
    );
  return { ok: true, command: { name: `${word}-resume` } };
};

const parseFleet = (tokens: Token[]): ArgsResult => {
  if (tokens[0] && !tokens[0].quoted && tokens[0].text === 'merge') return parseFleetMerge(tokens.slice(1));
  const resume = resumeOf(tokens, 'ticket-fleet', 'a ticket');
  if (resume) return resume;
  const flags = readFlags(tokens, {});
  if (!flags.ok) return flags;
  const labels: string[] = [];
  const refTokens: Token[] = [];
  for (const token of flags.positionals) {
    if (!/^label:/i.test(token.text)) {
      refTokens.push(token);
      continue;
    }
    const label = token.text.slice('label:'.length);
    if (label.trim() === '' || label.length > 50) {
      return fail(`${inlineCode(token.text)}: a label name is 1 to 50 characters`);
    }
    if (labels.includes(label)) return fail(`${inlineCode(token.text)} is listed more than once`);
    labels.push(label);
  }
  const refs = collectRefs(refTokens, '`/ticket-fleet`');
  if (!refs.ok) return refs;
  if (refs.refs.length === 0 && labels.length === 0) {
    return fail('name at least one ticket, e.g. `/ticket-fleet #9 #12`');
  }
  return { ok: true, command: { name: 'ticket-fleet', refs: refs.refs, labels } };
};

const parsePlanBlitz = (tokens: Token[]): ArgsResult => {
  const resume = resumeOf(tokens, 'plan-blitz', 'a milestone');
  if (resume) return resume;
  const flags = readFlags(tokens, { waves: 'value', 'dry-run': 'switch' });
  if (!flags.ok) return flags;
  const words: Token[] = [];
  const refs = collectRefs(flags.positionals, '`/plan-blitz`', words);
  if (!refs.ok) return refs;
  if (refs.refs.length > 0 && words.length > 0) {
    return fail('give a milestone or a list of issues, not both');
  }
  const milestone = milestoneOf(words);
  if (!milestone.ok) return milestone;
  const wavesText = flags.values.get('waves');
  let waves = 1;
  if (wavesText !== undefined) {
    const n = readCount('waves', wavesText, 1, MAX_WAVES);
    if (!n.ok) return n;
    waves = n.n;
  }
  const command: Extract<Command, { name: 'plan-blitz' }> = {
    name: 'plan-blitz',
    refs: refs.refs,
    waves,
    dryRun: flags.switches.has('dry-run'),
  };
  if (milestone.milestone !== undefined) command.milestone = milestone.milestone;
  return { ok: true, command };
};

const noArguments =
  (name: 'review') =>
  (tokens: Token[]): ArgsResult =>
    tokens.length === 0 ? { ok: true, command: { name } } : fail(`\`/${name}\` takes no arguments`);

/** `/merge`, or `/merge --when-green` to merge once the PR's CI completes green. */
const parseMerge = (tokens: Token[]): ArgsResult => {
  const flags = readFlags(tokens, { 'when-green': 'switch' });
  if (!flags.ok) return flags;
  if (flags.positionals.length > 0) return fail('`/merge` takes no arguments but `--when-green`');
  return { ok: true, command: { name: flags.switches.has('when-green') ? 'merge-when-green' : 'merge' } };
};

export const parseArgs: Record<CommandWord, (tokens: Token[]) => ArgsResult> = {
  blitz: parseBlitz,
  'ticket-fleet': parseFleet,
  merge: parseMerge,
  review: noArguments('review'),
  'plan-blitz': parsePlanBlitz,
};
