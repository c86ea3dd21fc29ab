import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/support/git.ts';
import { InMemoryAttemptLedger } from '../runner/ledger.ts';
import type { AttemptLedger, AttemptRecord } from '../runner/types.ts';
import { openSqliteRunStore } from './sqlite-run-store.ts';

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

// The same cases as the in-memory ledger's, run against both, so the SQLite one is a drop-in.
const ledgers: [string, () => AttemptLedger][] = [
  ['in-memory', () => new InMemoryAttemptLedger()],
  ['sqlite', () => openSqliteRunStore(':memory:').ledger],
];

describe.each(ledgers)('attempt ledger (%s)', (_name, make) => {
  it('totals tokens per issue and run, without charging environment failures', async () => {
    const l = make();
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
    const l = make();
    await l.create(rec('a'));
    await expect(l.create(rec('a'))).rejects.toMatchObject({ code: 'conflict' });
    await expect(l.update('zz', { nudges: 1 })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('hands out copies: changing a returned record does not change the ledger', async () => {
    const l = make();
    await l.create(rec('a'));
    const got = (await l.get('a'))!;
    got.nudges = 99;
    expect((await l.get('a'))!.nudges).toBe(0);
  });

  it('an update with an undefined outcome reopens the attempt (a resume)', async () => {
    const l = make();
    await l.create(rec('a', { outcome: 'stalled', endedAt: '2026-01-01T01:00:00Z' }));
    expect(await l.listOpen()).toEqual([]);
    const r = await l.update('a', { outcome: undefined, endedAt: undefined, nudges: 1 });
    expect(r.outcome).toBeUndefined();
    expect((await l.listOpen()).map((x) => x.id)).toEqual(['a']);
  });

  it('lists by issue and by run, oldest first', async () => {
    const l = make();
    await l.create(rec('late', { startedAt: '2026-01-02T00:00:00Z' }));
    await l.create(rec('early', { startedAt: '2026-01-01T00:00:00Z' }));
    await l.create(rec('other', { runId: 'run-2', issue: { repo, number: 9 } }));
    expect((await l.listByIssue({ repo, number: 1 })).map((r) => r.id).sort()).toEqual(['early', 'late']);
    expect((await l.listByRun('run-2')).map((r) => r.id)).toEqual(['other']);
  });
});

describe('sqlite attempt ledger', () => {
  it('survives a new connection to the same file (a bot restart)', async () => {
    const file = join(tempDir(), 'blitz.db');
    const first = openSqliteRunStore(file);
    await first.ledger.create(rec('a'));
    await first.ledger.update('a', { pid: 1234, nudges: 2 });
    await first.close();
    const second = openSqliteRunStore(file);
    expect(await second.ledger.get('a')).toMatchObject({ pid: 1234, nudges: 2 });
    expect((await second.ledger.listOpen()).map((r) => r.id)).toEqual(['a']);
    await second.close();
  });
});
