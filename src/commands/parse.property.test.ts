import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCommands } from './parse.ts';
import { commandSchema } from './schema.ts';

// Lines that look like commands, Markdown that changes what counts, and noise.
const commandish = fc.constantFrom(
  '/blitz M1',
  '/blitz --max 3 --dry-run',
  '/blitz status',
  '/blitz retry #3',
  '/blitz tell #3 "keep it small',
  '/blitz accept-review',
  '/merge --when-green',
  '/merge',
  '/review',
  '/ticket-fleet #1 #2',
  '/ticket-fleet merge #3',
  '/plan-blitz --waves 2',
  '  /blitz --max 0',
  '/lgtm',
  '```',
  '~~~',
  '````',
  '> quoted',
  '<!--',
  '-->',
  '`',
  '``',
  '- ```',
  '',
);
const noise = fc.string({ unit: 'grapheme', maxLength: 80 });
const line = fc.oneof(commandish, noise).map((l) => l.replace(/[\r\n]/g, ' '));
const lines = fc.array(line, { maxLength: 30 });

/** Lines that would close a fence opened with `char` (conservatively: any indentation, any length). */
const closesFence = (l: string, char: string): boolean => new RegExp(`^\\s*\\${char}{3,}\\s*$`).test(l);

describe('parseCommands (properties)', () => {
  it('never throws on arbitrary text, and whatever it returns has the command shape', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 400 }),
          lines.map((ls) => ls.join('\n')),
        ),
        (body) => {
          const parsed = parseCommands(body);
          let previous = 0;
          for (const p of parsed) {
            expect(p.line).toBeGreaterThan(previous);
            previous = p.line;
            if (p.ok) expect(commandSchema.safeParse(p.command).success).toBe(true);
            else expect(p.error.length).toBeGreaterThan(0);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('yields nothing from text entirely inside a fenced code block', () => {
    fc.assert(
      fc.property(
        lines,
        fc.constantFrom('```', '~~~', '`````', '```ts', '  ~~~~ md', '- ```'),
        fc.boolean(),
        (all, opener, closed) => {
          const char = opener.trim().replace(/^- /, '')[0]!;
          const inside = all.filter((l) => !closesFence(l, char));
          const closer = opener.trim().replace(/^- /, '').replace(/[^`~]/g, '');
          const body = [opener, ...inside, ...(closed ? [closer] : [])].join('\n');
          expect(parseCommands(body)).toEqual([]);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('yields nothing from text entirely inside a quote', () => {
    fc.assert(
      fc.property(lines, fc.constantFrom('>', '> ', '   > ', '>>'), (quoted, marker) => {
        const body = quoted.map((l) => `${marker}${l}`).join('\n');
        expect(parseCommands(body)).toEqual([]);
      }),
      { numRuns: 500 },
    );
  });

  it('finds a command line in any surroundings that leave it outside quotes and code', () => {
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[a-z ]{0,30}$/), { maxLength: 5 }),
        fc.array(fc.stringMatching(/^[a-z ]{0,30}$/), { maxLength: 5 }),
        (before, after) => {
          const body = [...before, '', '/merge', '', ...after].join('\n');
          expect(parseCommands(body)).toEqual([
            { ok: true, command: { name: 'merge' }, raw: '/merge', line: before.length + 2 },
          ]);
        },
      ),
      { numRuns: 200 },
    );
  });
});
