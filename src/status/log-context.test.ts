import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../observability/logger.ts';
import { attemptLogger, issueLogger, runLogger } from './log-context.ts';

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
  it('puts run, issue and attempt ids on every line, as JSON fields beside a fixed message', () => {
    const { lines, logger } = capture();
    const run = runLogger(logger, { id: 'r1', repo: 'acme/app' });
    const issue = issueLogger(run, { repo: { owner: 'acme', name: 'app' }, number: 3 });
    const attempt = attemptLogger(issue, { id: 'att-9', rosterEntry: 'sonnet' });
    run.info('run reconciled');
    issue.warn({ state: 'bounced' }, 'issue bounced');
    attempt.info({ outcome: 'solved' }, 'attempt finished');
    expect(lines.map((l) => [l.msg, l.runId, l.issue, l.attemptId])).toEqual([
      ['run reconciled', 'r1', undefined, undefined],
      ['issue bounced', 'r1', 3, undefined],
      ['attempt finished', 'r1', 3, 'att-9'],
    ]);
    expect(lines[2]).toMatchObject({
      repo: 'acme/app',
      issueRepo: 'acme/app',
      rosterEntry: 'sonnet',
      outcome: 'solved',
    });
  });

  it('still redacts secrets on a child logger', () => {
    const { lines, logger } = capture();
    runLogger(logger, { id: 'r1' }).info({ token: 'ghs_secret' }, 'forge call');
    expect(JSON.stringify(lines)).not.toContain('ghs_secret');
  });
});
