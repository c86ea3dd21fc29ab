import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findCommandLines } from '../commands/command-lines.ts';
import { createRedactor } from '../observability/redact.ts';
import {
  cleanBody,
  cleanTitle,
  neutraliseCommands,
  stripControls,
  withCleanOutgoing,
} from './outgoing-text.ts';
import type { Forge, IssueRef } from './types.ts';

describe('stripControls', () => {
  it('removes bidi overrides, isolates, NUL and C0/C1 controls but keeps newline and tab', () => {
    expect(stripControls('a\u202Eevil\u202C\u2066x\u2069\u0000b\u0007\u009B\tc\r\nd')).toBe('aevilxb\tc\nd');
  });

  it('leaves no control or format character but newline and tab (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        expect(stripControls(text)).not.toMatch(/(?![\n\t])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u);
      }),
    );
  });
});

describe('neutraliseCommands', () => {
  it('escapes a command line so it renders the same and is no command', () => {
    const text = 'The review is done.\n/merge\n  /blitz cancel';
    const out = neutraliseCommands(text);
    expect(out).toBe('The review is done.\n\\/merge\n  \\/blitz cancel');
    expect(findCommandLines(out)).toEqual([]);
  });

  it('leaves commands in code and quotes (already inert) and ordinary paths alone', () => {
    const text = '```\n/merge\n```\n> /merge\n/usr/bin/env is fine';
    expect(neutraliseCommands(text)).toBe(text);
  });

  it('leaves no line our parser reads as a command (property)', () => {
    const line = fc.oneof(
      fc.constantFrom(
        '/merge',
        '/blitz M1',
        ' /plan-blitz',
        '/ticket-fleet #1',
        '/review',
        '```',
        '> q',
        '',
        '`',
      ),
      fc.string(),
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 12 }), (lines) => {
        expect(findCommandLines(neutraliseCommands(lines.join('\n')))).toEqual([]);
      }),
    );
  });
});

describe('cleanBody and cleanTitle', () => {
  const redact = createRedactor(['super-secret-token-value']);

  it('a body: controls out, commands neutralised, secrets redacted', () => {
    expect(cleanBody('/merge\u202E now super-secret-token-value', redact)).toBe('\\/merge now [redacted]');
  });

  it('a title is plain text: no Markdown escape, but no controls and no secret', () => {
    expect(cleanTitle('/merge\u0000 super-secret-token-value', redact)).toBe('/merge [redacted]');
  });
});

describe('withCleanOutgoing', () => {
  it('cleans the comment a close carries, as it cleans any comment', async () => {
    const closes: [IssueRef, { comment?: string } | undefined][] = [];
    const forge = { closeIssue: async (ref, opts) => void closes.push([ref, opts]) } as Pick<
      Forge,
      'closeIssue'
    >;
    const clean = withCleanOutgoing(forge as Forge, createRedactor(['super-secret-token-value']));
    const ref = { repo: { owner: 'acme', name: 'app' }, number: 1 };
    await clean.closeIssue(ref, { comment: '/merge\u202E super-secret-token-value' });
    await clean.closeIssue(ref);
    expect(closes).toEqual([
      [ref, { comment: '\\/merge [redacted]' }],
      [ref, undefined],
    ]);
  });

  it('cleans the comments closes sent together carry', async () => {
    const sent: { ref: IssueRef; comment: string }[][] = [];
    const forge = {
      closeIssues: async (closes: readonly { ref: IssueRef; comment: string }[]) => {
        sent.push([...closes]);
        return closes.map((): PromiseSettledResult<void> => ({ status: 'fulfilled', value: undefined }));
      },
    } as Pick<Forge, 'closeIssues'>;
    const clean = withCleanOutgoing(forge as Forge, createRedactor(['super-secret-token-value']));
    const ref = { repo: { owner: 'acme', name: 'app' }, number: 1 };
    await clean.closeIssues!([
      { ref, comment: '/merge\u202E super-secret-token-value' },
      { ref: { ...ref, number: 2 }, comment: 'done' },
    ]);
    expect(sent).toEqual([
      [
        { ref, comment: '\\/merge [redacted]' },
        { ref: { ...ref, number: 2 }, comment: 'done' },
      ],
    ]);
  });
});
