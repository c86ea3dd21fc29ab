import { describe, expect, it } from 'vitest';
import {
  commandUsage,
  formatParseError,
  helpText,
  MAX_COMMANDS_PER_COMMENT,
  parseCommands,
} from './parse.ts';
import { type Command, commandWords, type ParsedCommand } from './schema.ts';

const commandsOf = (body: string): Command[] =>
  parseCommands(body).map((p) => {
    if (!p.ok) throw new Error(`expected a command from ${JSON.stringify(body)}, got error: ${p.error}`);
    return p.command;
  });

const only = (body: string): ParsedCommand => {
  const parsed = parseCommands(body);
  expect(parsed, `one entry from ${JSON.stringify(body)}`).toHaveLength(1);
  return parsed[0]!;
};

const errorOf = (body: string): string => {
  const p = only(body);
  if (p.ok)
    throw new Error(`expected an error from ${JSON.stringify(body)}, got ${JSON.stringify(p.command)}`);
  return p.error;
};

const blitz = (extra: Partial<Extract<Command, { name: 'blitz' }>> = {}): Command => ({
  name: 'blitz',
  dryRun: false,
  ...extra,
});

describe('parseCommands: /blitz', () => {
  it.each<[string, Command]>([
    ['/blitz', blitz()],
    ['/blitz M1', blitz({ milestone: 'M1' })],
    ['/blitz 3', blitz({ milestone: '3' })],
    ['/blitz Milestone 1', blitz({ milestone: 'Milestone 1' })],
    ['/blitz "Milestone 1"', blitz({ milestone: 'Milestone 1' })],
    ["/blitz 'Milestone 1'", blitz({ milestone: 'Milestone 1' })],
    ['/blitz \u201CMilestone 1\u201D', blitz({ milestone: 'Milestone 1' })],
    ["/blitz Bob's milestone", blitz({ milestone: "Bob's milestone" })],
    ['/blitz M1 --deploy', blitz({ milestone: 'M1', ship: 'deploy' })],
    ['/blitz --local M1', blitz({ milestone: 'M1', ship: 'local' })],
    ['/blitz M1 --max 3', blitz({ milestone: 'M1', max: 3 })],
    ['/blitz M1 --max=32', blitz({ milestone: 'M1', max: 32 })],
    ['/blitz --max 1', blitz({ max: 1 })],
    ['/blitz \u2014max 2', blitz({ max: 2 })],
    ['/blitz M1 --tool codex', blitz({ milestone: 'M1', tool: 'codex' })],
    [
      '/blitz M1 --model openai/gpt-5.1-codex:high',
      blitz({ milestone: 'M1', model: 'openai/gpt-5.1-codex:high' }),
    ],
    ['/blitz --dry-run', blitz({ dryRun: true })],
    ['/blitz M1 --require-checks', blitz({ milestone: 'M1', requireChecks: true })],
    [
      '/blitz "Milestone 1" --deploy --max 4 --tool claude --model opus --dry-run',
      blitz({
        milestone: 'Milestone 1',
        ship: 'deploy',
        max: 4,
        tool: 'claude',
        model: 'opus',
        dryRun: true,
      }),
    ],
    ['/blitz "status"', blitz({ milestone: 'status' })],
    ['/blitz "--max"', blitz({ milestone: '--max' })],
    ['/blitz\tM1', blitz({ milestone: 'M1' })],
    ['   /blitz M1   ', blitz({ milestone: 'M1' })],
  ])('%j is read as the blitz command it names', (body, expected) => {
    expect(commandsOf(body)).toEqual([expected]);
  });

  it.each(['status', 'pause', 'resume', 'cancel', 'help', 'STATUS'])(
    '/blitz %s is a control action',
    (action) => {
      expect(commandsOf(`/blitz ${action}`)).toEqual([
        { name: 'blitz-control', action: action.toLowerCase() },
      ]);
    },
  );

  it.each<[string, RegExp]>([
    ['/blitz --max 0', /`--max` must be a whole number from 1 to 32 \(got `0`\)/],
    ['/blitz --max 33', /from 1 to 32 \(got `33`\)/],
    ['/blitz --max abc', /got `abc`/],
    ['/blitz --max 2.5', /got `2\.5`/],
    ['/blitz --max -1', /got `-1`/],
    ['/blitz --max', /`--max` needs a value/],
    ['/blitz --max --dry-run', /`--max` needs a value/],
    ['/blitz --max=', /`--max` needs a value/],
    ['/blitz --tool', /`--tool` needs a value/],
    ['/blitz --model', /`--model` needs a value/],
    ['/blitz --tool "rm -rf"', /is not a tool name/],
    ['/blitz --model "$(id)"', /is not a model name/],
    ['/blitz --mx 3', /unknown option `--mx` \(did you mean `--max`\?\)/],
    ['/blitz --yolo', /unknown option `--yolo`$/],
    ['/blitz -n 3', /unknown option `-n`/],
    ['/blitz --deploy --local', /choose one of `--deploy` or `--local`/],
    ['/blitz --max 2 --max 3', /`--max` is given more than once/],
    ['/blitz --dry-run --dry-run', /`--dry-run` is given more than once/],
    ['/blitz --dry-run=yes', /`--dry-run` takes no value/],
    ['/blitz status now', /`\/blitz status` takes nothing after it/],
    ['/blitz pause --max 2', /`\/blitz pause` takes nothing after it/],
    ['/blitz "M1', /a quote \("\) is never closed/],
    ['/blitz ""', /milestone name is empty/],
    [`/blitz ${'m'.repeat(201)}`, /longer than 200 characters/],
  ])('%j is refused: %s', (body, message) => {
    expect(errorOf(body)).toMatch(message);
  });
});

describe('parseCommands: /ticket-fleet, /merge, /review', () => {
  it.each<[string, Command]>([
    ['/ticket-fleet #9', { name: 'ticket-fleet', refs: [{ number: 9 }], labels: [] }],
    [
      '/ticket-fleet #9 #12 owner/repo#3 verdandi#4',
      {
        name: 'ticket-fleet',
        refs: [
          { number: 9 },
          { number: 12 },
          { owner: 'owner', repo: 'repo', number: 3 },
          { repo: 'verdandi', number: 4 },
        ],
        labels: [],
      },
    ],
    [
      '/ticket-fleet https://github.com/o/r/issues/3 https://git.example.org/gitea/o2/r.2/issues/7#issuecomment-1',
      {
        name: 'ticket-fleet',
        refs: [
          { owner: 'o', repo: 'r', number: 3, host: 'github.com' },
          { owner: 'o2', repo: 'r.2', number: 7, host: 'git.example.org' },
        ],
        labels: [],
      },
    ],
    [
      '/ticket-fleet label:bug label:"needs review"',
      { name: 'ticket-fleet', refs: [], labels: ['bug', 'needs review'] },
    ],
    ['/ticket-fleet #1 label:bug', { name: 'ticket-fleet', refs: [{ number: 1 }], labels: ['bug'] }],
    ['/ticket-fleet merge #12', { name: 'ticket-fleet-merge', pr: { number: 12 } }],
    ['/ticket-fleet merge o/r#12', { name: 'ticket-fleet-merge', pr: { owner: 'o', repo: 'r', number: 12 } }],
    [
      '/ticket-fleet merge https://gitea.local/o/r/pulls/5',
      { name: 'ticket-fleet-merge', pr: { owner: 'o', repo: 'r', number: 5, host: 'gitea.local' } },
    ],
    ['/ticket-fleet resume', { name: 'ticket-fleet-resume' }],
    ['/ticket-fleet RESUME', { name: 'ticket-fleet-resume' }],
    ['/merge', { name: 'merge' }],
    ['/review', { name: 'review' }],
  ])('%j is read as the command it names', (body, expected) => {
    expect(commandsOf(body)).toEqual([expected]);
  });

  const fiftyOne = Array.from({ length: 51 }, (_, i) => `#${i + 1}`).join(' ');
  const twoHundred = Array.from({ length: 200 }, (_, i) => `#${i + 1}`).join(' ');
  it.each<[string, RegExp]>([
    ['/ticket-fleet', /name at least one ticket/],
    ['/ticket-fleet #9 #9', /`#9` is listed more than once/],
    ['/ticket-fleet O/R#9 o/r#9', /`o\/r#9` is listed more than once/],
    ['/ticket-fleet label:bug label:bug', /listed more than once/],
    ['/ticket-fleet label:', /a label name is 1 to 50 characters/],
    ['/ticket-fleet https://github.com/o/r/pull/3', /is a pull request; `\/ticket-fleet` takes issues/],
    ['/ticket-fleet https://github.com/o/r', /is not a link to an issue or pull request/],
    ['/ticket-fleet ftp://github.com/o/r/issues/3', /is not a ticket reference/],
    ['/ticket-fleet #0', /`#0` is not a valid issue number/],
    ['/ticket-fleet #99999999999', /is not a valid issue number/],
    ['/ticket-fleet #abc', /`#abc` is not a ticket reference/],
    ['/ticket-fleet please', /`please` is not a ticket reference/],
    ['/ticket-fleet -o/r#1', /unknown option `-o\/r#1`/],
    ['/ticket-fleet --all', /unknown option `--all`/],
    [`/ticket-fleet ${fiftyOne}`, /at most 50 tickets at a time \(got 51\)/],
    [`/ticket-fleet ${twoHundred}`, /at most 50 tickets at a time \(got 200\)/],
    ['/ticket-fleet merge', /takes exactly one pull request/],
    ['/ticket-fleet merge #1 #2', /takes exactly one pull request/],
    ['/ticket-fleet merge now', /`now` is not a pull request reference/],
    [
      '/ticket-fleet merge https://github.com/o/r/issues/3',
      /is an issue link; `\/ticket-fleet merge` takes a pull request/,
    ],
    ['/ticket-fleet resume #3', /`\/ticket-fleet resume` takes nothing after it/],
    ['/merge now', /`\/merge` takes no arguments/],
    ['/review please', /`\/review` takes no arguments/],
  ])('%j is refused: %s', (body, message) => {
    expect(errorOf(body)).toMatch(message);
  });
});

describe('parseCommands: /plan-blitz', () => {
  it.each<[string, Command]>([
    ['/plan-blitz', { name: 'plan-blitz', refs: [], waves: 1, dryRun: false }],
    ['/plan-blitz M1', { name: 'plan-blitz', milestone: 'M1', refs: [], waves: 1, dryRun: false }],
    [
      '/plan-blitz "Q3 work" --waves 3',
      { name: 'plan-blitz', milestone: 'Q3 work', refs: [], waves: 3, dryRun: false },
    ],
    [
      '/plan-blitz #4 #5 --dry-run',
      { name: 'plan-blitz', refs: [{ number: 4 }, { number: 5 }], waves: 1, dryRun: true },
    ],
    [
      '/plan-blitz --waves=20 o/r#1',
      { name: 'plan-blitz', refs: [{ owner: 'o', repo: 'r', number: 1 }], waves: 20, dryRun: false },
    ],
    ['/plan-blitz resume', { name: 'plan-blitz-resume' }],
    // A milestone called "resume" is named in quotes.
    ['/plan-blitz "resume"', { name: 'plan-blitz', milestone: 'resume', refs: [], waves: 1, dryRun: false }],
  ])('%j is read as the plan it names', (body, expected) => {
    expect(commandsOf(body)).toEqual([expected]);
  });

  it.each<[string, RegExp]>([
    ['/plan-blitz --waves 0', /`--waves` must be a whole number from 1 to 20 \(got `0`\)/],
    ['/plan-blitz --waves 21', /got `21`/],
    ['/plan-blitz --waves', /`--waves` needs a value/],
    ['/plan-blitz M1 #2', /a milestone or a list of issues, not both/],
    ['/plan-blitz #2 #2', /listed more than once/],
    ['/plan-blitz https://github.com/o/r/pull/9', /is a pull request; `\/plan-blitz` takes issues/],
    ['/plan-blitz --wave 2', /did you mean `--waves`/],
    ['/plan-blitz resume M1', /`\/plan-blitz resume` takes nothing after it/],
  ])('%j is refused: %s', (body, message) => {
    expect(errorOf(body)).toMatch(message);
  });
});

describe('parseCommands: where a command counts', () => {
  it.each<[string, string]>([
    ['quoted', '> /blitz M1'],
    ['quoted, indented', '   > /merge'],
    ['a lazy continuation of a quote', '> Alice wrote:\n/merge'],
    ['in a backtick fence', '```\n/blitz M1\n```'],
    ['in a tilde fence', '~~~\n/blitz M1\n~~~'],
    ['in a long fence closed by a longer one', '````md\n```\n/merge\n```\n`````'],
    ['in a fence with an info string', '```sh\n/blitz M1\n```'],
    ['in a fence never closed', 'text\n```\n/merge\n\nmore'],
    ['in a fence inside a list item', '- steps:\n  ```\n  /merge\n  ```'],
    ['after a fence closer that is really indented content', '```\n    ```\n/merge\n```'],
    ['in an indented code block', '    /blitz M1'],
    ['in a tab-indented code block', '\t/blitz M1'],
    ['in inline code', '`/blitz M1`'],
    ['in inline code spanning lines', 'run `this\n/merge\nlater` please'],
    ['in a double-backtick span spanning lines', 'see ``a ` b\n/merge\n`` ok'],
    ['in an HTML comment', '<!--\n/merge\n-->'],
    ['in a <pre> block', '<pre>\n/blitz M1\n</pre>'],
    ['mid-line', 'please /merge'],
    ['after a list marker', '- /merge'],
    ['glued to another word', '/blitzkrieg now'],
    ['a different slash word', '/lgtm'],
    ['capitalised', '/Merge'],
    ['a near miss', '/ticket-fleets #1'],
  ])('a command %s is not taken', (_why, body) => {
    expect(parseCommands(body)).toEqual([]);
  });

  it('takes every command in a comment, in order, with its line number', () => {
    const body = [
      'Thanks!',
      '/blitz M1 --max 2',
      '> /merge',
      '',
      '```',
      '/review',
      '```',
      '/lgtm',
      '/review',
      '/blitz --max 0',
    ].join('\n');
    const parsed = parseCommands(body);
    expect(parsed.map((p) => [p.line, p.ok ? p.command.name : 'error'])).toEqual([
      [2, 'blitz'],
      [9, 'review'],
      [10, 'error'],
    ]);
    expect(parsed[0]!.raw).toBe('/blitz M1 --max 2');
  });

  it('takes a command right after a fence closes and after a quote ends at a blank line', () => {
    expect(commandsOf('```\nx\n```\n/merge\n> quoted\n\n/review')).toEqual([
      { name: 'merge' },
      { name: 'review' },
    ]);
  });

  it('takes a command after an inline code span closed on the same line', () => {
    expect(commandsOf('use `x` here\n/merge')).toEqual([{ name: 'merge' }]);
  });

  it('takes a command after an HTML comment closes', () => {
    expect(commandsOf('<!-- marker -->\n/merge\n<!--\nhidden\n-->\n/review')).toEqual([
      { name: 'merge' },
      { name: 'review' },
    ]);
  });

  it('reads Windows and old Mac line endings', () => {
    expect(commandsOf('hi\r\n/merge\r/review')).toEqual([{ name: 'merge' }, { name: 'review' }]);
  });
});

describe('parseCommands: limits and hostile text', () => {
  it('refuses a command line over 1,000 characters', () => {
    expect(errorOf(`/blitz ${'x '.repeat(600)}`)).toMatch(/longer than 1000 characters/);
  });

  it('ignores a long line that is not a command', () => {
    expect(commandsOf(`${'x'.repeat(5000)}\n/merge`)).toEqual([{ name: 'merge' }]);
  });

  it('reads only the first 64 KiB of a comment', () => {
    const filler = `${'a'.repeat(99)}\n`.repeat(700); // 70,000 bytes
    expect(commandsOf(`/review\n${filler}/merge`)).toEqual([{ name: 'review' }]);
  });

  it('drops a command cut in half by the 64 KiB limit rather than read a different one', () => {
    const head = `${'a'.repeat(99)}\n`.repeat(655); // 65,500 bytes
    const body = `${head}/blitz M1 --max 12${'x'.repeat(100)}`;
    expect(parseCommands(body)).toEqual([]);
  });

  it('counts the 64 KiB in bytes, so multi-byte text cannot smuggle more in', () => {
    const filler = `${'é'.repeat(60)}\n`.repeat(600); // 73,200 bytes, 36,600 characters
    expect(commandsOf(`${filler}/merge`)).toEqual([]);
  });

  it(`takes at most ${MAX_COMMANDS_PER_COMMENT} commands from one comment, then reports the rest`, () => {
    const parsed = parseCommands('/review\n'.repeat(30));
    expect(parsed).toHaveLength(MAX_COMMANDS_PER_COMMENT + 1);
    const last = parsed.at(-1)!;
    expect(last.ok).toBe(false);
    expect(last.ok ? '' : last.error).toMatch(/at most 20 commands/);
    expect(last.line).toBe(21);
  });

  it.each([
    '/blitz $(rm -rf /) `whoami` ; | && > /etc/passwd',
    '/blitz \u0000\u0007\u001b[31m red',
    '/blitz \u202Egnp.exe',
    '/blitz 🚀 マイルストーン',
    '/ticket-fleet #1\u0000',
    '/blitz "unterminated \u201C',
    '/merge\u200B',
  ])('never throws on hostile text %j', (body) => {
    expect(() => parseCommands(body)).not.toThrow();
  });

  it('keeps shell syntax as plain milestone text, never interpreting it', () => {
    expect(commandsOf('/blitz $(id)')).toEqual([blitz({ milestone: '$(id)' })]);
  });

  it('returns nothing for an empty or non-string body', () => {
    expect(parseCommands('')).toEqual([]);
    expect(parseCommands(undefined as unknown as string)).toEqual([]);
  });
});

describe('formatParseError', () => {
  const replyTo = (body: string): string => {
    const p = only(body);
    if (p.ok) throw new Error('expected an error');
    return formatParseError(p);
  };

  it('quotes the line, says what is wrong and shows the usage', () => {
    const reply = replyTo('/blitz M1 --max 0');
    expect(reply).toContain('> `/blitz M1 --max 0`');
    expect(reply).toContain('`--max` must be a whole number from 1 to 32 (got `0`)');
    expect(reply).toContain('/blitz [milestone] [--deploy | --local] [--max N]');
  });

  it('shows the usage of the command that failed', () => {
    expect(replyTo('/plan-blitz --waves 0')).toContain(
      '/plan-blitz [milestone | #issue …] [--waves N] [--dry-run]',
    );
    expect(replyTo('/ticket-fleet')).toContain('/ticket-fleet merge <pull request>');
  });

  it('quotes backticks inside a longer code span so they cannot break out', () => {
    const reply = replyTo('/blitz ``` --max 0');
    expect(reply.split('\n')[0]).toBe('> ```` /blitz ``` --max 0 ````');
  });

  it('strips control and bidi characters and cuts a long line to about 200 characters', () => {
    const reply = replyTo(`/blitz \u202E\u0007${'z'.repeat(400)} --max 0`);
    const quoted = reply.split('\n')[0]!;
    expect(quoted.includes('\u202E') || quoted.includes('\u0007')).toBe(false);
    expect(quoted.length).toBeLessThan(215);
    expect(quoted).toContain('…');
  });

  it('neutralises mentions by keeping them inside code', () => {
    const reply = replyTo('/merge @everyone');
    expect(reply).toContain('> `/merge @everyone`');
  });
});

describe('helpText and commandUsage', () => {
  it('documents every command word, with a usage for each', () => {
    const help = helpText();
    for (const word of commandWords) {
      expect(help).toContain(`/${word}`);
      expect(commandUsage[word]).toMatch(new RegExp(`^/${word}`));
    }
    expect(help).toContain('--dry-run');
    expect(help).toContain('label:<name>');
  });
});
