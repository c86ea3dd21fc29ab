import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/support/git.ts';
import { InMemoryAttemptLedger, JsonFileAttemptLedger } from './ledger.ts';
import type { AttemptRecord } from './types.ts';

const repo = { owner: 'o', name: 'r' };
const rec = (id: string, over: Partial<AttemptRecord> = {}): AttemptRecord =>
  ({
    id,
    runId: 'run-1',
    issue: { repo, number: 1 },
    rosterEntry: 'fake',
    tool: 'custom',
    tier: 'execution',
    branch: 'b',
    baseBranch: 'main',
    repoDir: '/w/o/r',
    worktree: '/w/.worktrees/o/r/b',
    logPath: '/w/l',
    promptPath: '/w/p',
    exitPath: '/w/e',
    launchedAt: '2026-01-01T00:00:00Z',
    argvRedacted: [],
    originShaAtStart: null,
    startedAt: '2026-01-01T00:00:00Z',
    nudges: 0,
    tokens: { input: 10, output: 1 },
    job: {} as AttemptRecord['job'],
    ...over,
  }) as AttemptRecord;

describe('attempt ledger', () => {
  it('totals tokens per issue and run, without charging environment failures', async () => {
    const l = new InMemoryAttemptLedger();
    await l.create(rec('a', { outcome: 'unsolved' }));
    await l.create(rec('b', { outcome: 'environment_failure', tokens: { input: 1000, output: 1000 } }));
    await l.create(rec('c', { issue: { repo, number: 2 }, tokens: { input: 5, output: 5, cache: 3 } }));
    expect(await l.totalsByIssue({ repo, number: 1 })).toEqual({
      input: 10,
      output: 1,
      cache: 0,
      attempts: 1,
    });
    expect(await l.totalsByRun('run-1')).toEqual({ input: 15, output: 6, cache: 3, attempts: 2 });
    expect((await l.listOpen()).map((r) => r.id)).toEqual(['c']);
  });

  it('refuses a duplicate id and an update of an unknown attempt', async () => {
    const l = new InMemoryAttemptLedger();
    await l.create(rec('a'));
    await expect(l.create(rec('a'))).rejects.toMatchObject({ code: 'conflict' });
    await expect(l.update('zz', { nudges: 1 })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('hands out copies: changing a returned record does not change the ledger', async () => {
    const l = new InMemoryAttemptLedger();
    await l.create(rec('a'));
    const got = (await l.get('a'))!;
    got.nudges = 99;
    expect((await l.get('a'))!.nudges).toBe(0);
  });

  it('the file ledger survives a new instance (a supervisor restart)', async () => {
    const file = join(tempDir(), 'ledger.json');
    const l = new JsonFileAttemptLedger(file);
    await l.create(rec('a'));
    await l.update('a', { pid: 1234, nudges: 2 });
    expect(await new JsonFileAttemptLedger(file).get('a')).toMatchObject({ pid: 1234, nudges: 2 });
  });
});
