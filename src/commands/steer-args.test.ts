import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { commandPermission, commentPermission } from './command-permission.ts';
import { commandUsage, formatParseError, helpText, parseCommands } from './parse.ts';
import { type Command, commandSchema, MAX_TELL_CHARS } from './schema.ts';

const only = (body: string) => {
  const parsed = parseCommands(body);
  expect(parsed, `one entry from ${JSON.stringify(body)}`).toHaveLength(1);
  return parsed[0]!;
};
const commandOf = (body: string): Command => {
  const p = only(body);
  if (!p.ok) throw new Error(`expected a command from ${JSON.stringify(body)}, got: ${p.error}`);
  return p.command;
};
const errorOf = (body: string): string => {
  const p = only(body);
  if (p.ok)
    throw new Error(`expected an error from ${JSON.stringify(body)}, got ${JSON.stringify(p.command)}`);
  return p.error;
};

describe('steering commands: /blitz retry | skip | unhold <issue>', () => {
  it.each<[string, Command]>([
    ['/blitz retry #12', { name: 'blitz-issue', action: 'retry', issue: { number: 12 } }],
    ['/blitz retry 12', { name: 'blitz-issue', action: 'retry', issue: { number: 12 } }],
    ['/blitz SKIP #3', { name: 'blitz-issue', action: 'skip', issue: { number: 3 } }],
    [
      '/blitz unhold acme/shop#7',
      { name: 'blitz-issue', action: 'unhold', issue: { owner: 'acme', repo: 'shop', number: 7 } },
    ],
    [
      '/blitz retry https://git.example.org/acme/shop/issues/9',
      {
        name: 'blitz-issue',
        action: 'retry',
        issue: { owner: 'acme', repo: 'shop', number: 9, host: 'git.example.org' },
      },
    ],
  ])('%j names the action and the issue', (body, expected) => {
    expect(commandOf(body)).toEqual(expected);
  });

  it.each<[string, RegExp]>([
    ['/blitz retry', /`\/blitz retry` needs the issue, e\.g\. `\/blitz retry #12`/],
    ['/blitz skip #3 #4', /one issue at a time/],
    [
      '/blitz unhold https://github.com/acme/shop/pull/5',
      /is a pull request; `\/blitz unhold` takes an issue/,
    ],
    ['/blitz retry soon', /`soon` is not an issue; write it as `#12`/],
    ['/blitz retry #0', /not a valid issue number/],
    ['/blitz retry 0', /not a valid issue number/],
    ['/blitz retry 99999999999', /not a valid issue number/],
  ])('%j is refused: %s', (body, message) => {
    expect(errorOf(body)).toMatch(message);
  });
});

describe('steering commands: /blitz tell <issue> <message>', () => {
  it('keeps the message as written: quotes, apostrophes and words that look like flags', () => {
    expect(commandOf(`/blitz tell #4 don't touch "src/db" --force is fine`)).toEqual({
      name: 'blitz-tell',
      issue: { number: 4 },
      message: `don't touch "src/db" --force is fine`,
    });
  });

  it('turns tabs into spaces and drops bidi controls, so the text reads as it shows', () => {
    expect(commandOf('/blitz tell #4 use\tthe \u202Eparser')).toMatchObject({ message: 'use the parser' });
  });

  it.each<[string, RegExp]>([
    ['/blitz tell', /needs the issue and a message/],
    ['/blitz tell #4', /`\/blitz tell #4` needs a message after the issue/],
    ['/blitz tell #4 \u202E', /needs a message/],
    ['/blitz tell please #4', /`please` is not an issue/],
    ['/blitz tell https://github.com/a/b/pull/3 fix it', /is a pull request/],
  ])('%j is refused: %s', (body, message) => {
    expect(errorOf(body)).toMatch(message);
  });

  it('stops at the end of its line: the next line is not part of the message', () => {
    const parsed = parseCommands('/blitz tell #4 first line\nsecond line');
    expect(parsed).toHaveLength(1);
    expect(parsed[0]).toMatchObject({ ok: true, command: { message: 'first line' } });
  });

  it('never yields a message longer than the limit or one with a line break (any text after the ref)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 1200 }), (text) => {
        const parsed = parseCommands(`/blitz tell #4 ${text}`);
        for (const p of parsed) {
          if (!p.ok || p.command.name !== 'blitz-tell') continue;
          expect(commandSchema.safeParse(p.command).success).toBe(true);
          expect(p.command.message.length).toBeLessThanOrEqual(MAX_TELL_CHARS);
          expect(p.command.message).not.toMatch(/[\r\n\t]/);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('steering commands: /blitz review | accept-review, /merge --when-green', () => {
  it('reads the review actions and the merge switch', () => {
    expect(commandOf('/blitz review')).toEqual({ name: 'blitz-review', action: 'review' });
    expect(commandOf('/blitz accept-review')).toEqual({ name: 'blitz-review', action: 'accept-review' });
    expect(commandOf('/merge --when-green')).toEqual({ name: 'merge-when-green' });
    expect(commandOf('/merge')).toEqual({ name: 'merge' });
  });

  it.each<[string, RegExp]>([
    ['/blitz review now', /`\/blitz review` takes nothing after it/],
    ['/blitz accept-review #3', /`\/blitz accept-review` takes nothing after it/],
    ['/merge --wehn-green', /unknown option `--wehn-green` \(did you mean `--when-green`\?\)/],
    ['/merge now', /`\/merge` takes no arguments but `--when-green`/],
    ['/merge --when-green --when-green', /given more than once/],
  ])('%j is refused: %s', (body, message) => {
    expect(errorOf(body)).toMatch(message);
  });
});

describe('did-you-mean for /blitz actions', () => {
  it.each([
    ['/blitz retyr #3', '/blitz retry'],
    ['/blitz unhlod #3', '/blitz unhold'],
    ['/blitz stauts', '/blitz status'],
    ['/blitz acept-review', '/blitz accept-review'],
    ['/blitz revew', '/blitz review'],
  ])('%j suggests %s and starts nothing', (body, guess) => {
    const error = errorOf(body);
    expect(error).toContain(`did you mean \`${guess}\`?`);
    expect(error).toContain('put it in quotes');
  });

  it('leaves milestone names alone: numbers, short names, titles, quoted words', () => {
    expect(commandOf('/blitz M1')).toMatchObject({ name: 'blitz', milestone: 'M1' });
    expect(commandOf('/blitz v2.0')).toMatchObject({ name: 'blitz', milestone: 'v2.0' });
    expect(commandOf('/blitz Checkout redesign')).toMatchObject({
      name: 'blitz',
      milestone: 'Checkout redesign',
    });
    expect(commandOf('/blitz "retyr"')).toMatchObject({ name: 'blitz', milestone: 'retyr' });
  });
});

describe('help and usage list the steering commands', () => {
  it('names every one, and a refusal shows the usage', () => {
    const help = helpText();
    for (const c of [
      '/blitz retry',
      '/blitz skip',
      '/blitz unhold',
      '/blitz tell',
      '/blitz review',
      '/blitz accept-review',
      '/merge --when-green',
    ]) {
      expect(help).toContain(c);
    }
    expect(help).toContain('write access only');
    expect(commandUsage.blitz).toContain('/blitz retry | skip | unhold <issue>');
    const p = only('/blitz retry');
    if (p.ok) throw new Error('expected an error');
    expect(formatParseError(p)).toContain('/blitz tell <issue> <message>');
  });
});

describe('commandPermission', () => {
  const retry: Command = { name: 'blitz-issue', action: 'retry', issue: { number: 1 } };
  const start: Command = { name: 'blitz', dryRun: false };

  it('asks write for steering commands even where readers may start runs, and never lowers a policy', () => {
    expect(commandPermission(retry, 'read')).toBe('write');
    expect(commandPermission({ name: 'merge-when-green' }, 'read')).toBe('write');
    expect(commandPermission({ name: 'blitz-review', action: 'accept-review' }, 'none')).toBe('write');
    expect(commandPermission(retry, 'admin')).toBe('admin');
    expect(commandPermission(start, 'read')).toBe('read');
  });

  it('takes the highest need of a comment’s commands', () => {
    expect(commentPermission([start], 'read')).toBe('read');
    expect(commentPermission([start, retry], 'read')).toBe('write');
    expect(commentPermission([], 'read')).toBe('read');
  });
});
