import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../observability/logger.ts';
import { runLogger } from './log-context.ts';

const capture = () => {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  });
  return { lines, logger: createLogger({ destination }) };
};

describe('log context', () => {
  it('puts the run id and repository on every line, as JSON fields beside a fixed message', () => {
    const { lines, logger } = capture();
    const run = runLogger(logger, { id: 'r1', repo: 'acme/app' });
    run.info('run reconciled');
    run.warn({ state: 'bounced' }, 'issue bounced');
    expect(lines.map((l) => [l.msg, l.runId, l.repo])).toEqual([
      ['run reconciled', 'r1', 'acme/app'],
      ['issue bounced', 'r1', 'acme/app'],
    ]);
    expect(lines[1]).toMatchObject({ state: 'bounced' });
  });

  it('still redacts secrets on a child logger', () => {
    const { lines, logger } = capture();
    runLogger(logger, { id: 'r1' }).info({ token: 'ghs_secret' }, 'forge call');
    expect(JSON.stringify(lines)).not.toContain('ghs_secret');
  });
});
