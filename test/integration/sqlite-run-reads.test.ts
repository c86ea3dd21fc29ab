// A run's progress text the schema passed once is parsed as JSON only when read again (the store's
// read path, once per read of every pass): the answer is the same, each read its own object, and a
// text changed behind the store's back is checked again.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteRunStore } from '../../src/store/sqlite-run-store.ts';
import { removeDir, tempDir } from '../support/git.ts';
import { attempt, newRun } from '../support/store-suite-fixtures.ts';

const dirs: string[] = [];
const closers: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
  for (const d of dirs.splice(0)) removeDir(d);
});

const world = () => {
  const dir = tempDir('blitz-run-reads-');
  dirs.push(dir);
  const file = join(dir, 'blitz.db');
  const runs = openSqliteRunStore(file);
  closers.push(() => runs.close());
  const other = new Database(file);
  closers.push(() => other.close());
  const setProgress = (id: string, text: string) =>
    other.prepare('UPDATE runs SET progress = ? WHERE id = ?').run(text, id);
  const setRecord = (id: string, record: unknown) =>
    other.prepare('UPDATE attempts SET record = ? WHERE id = ?').run(JSON.stringify(record), id);
  return { runs, setProgress, setRecord };
};

describe("a run's progress read again", () => {
  it('is the same value each time, a fresh object each read, unnamed fields kept', async () => {
    const { runs } = world();
    const progress = { wave: 2, build: { status: 'passed' as const, covers: ['acme/app#1'], failures: 0 } };
    await runs.createRun({ ...newRun('r1'), progress: { ...progress, keptAsIs: { a: [1] } } as never });
    const first = await runs.getRun('r1');
    const second = await runs.getRun('r1');
    expect(second).toEqual(first);
    expect(second!.progress).toMatchObject({ ...progress, keptAsIs: { a: [1] } });
    expect(second!.progress).not.toBe(first!.progress);
    // A caller's change to one read is not in the next.
    first!.progress.wave = 99;
    expect((await runs.getRun('r1'))!.progress.wave).toBe(2);
    expect((await runs.listLiveRuns())[0]!.progress.wave).toBe(2);
  });

  it('is checked again when its text changed: a shape the schema refuses is refused after a good read', async () => {
    const { runs, setProgress } = world();
    await runs.createRun({ ...newRun('r1'), progress: { wave: 1 } });
    expect((await runs.getRun('r1'))!.progress).toEqual({ wave: 1 });
    setProgress('r1', JSON.stringify({ build: { status: 'not-a-state', covers: [], failures: 0 } }));
    await expect(runs.getRun('r1')).rejects.toThrow();
    setProgress('r1', JSON.stringify({ wave: 3 }));
    expect((await runs.getRun('r1'))!.progress).toEqual({ wave: 3 });
  });
});

describe('an attempt row read back', () => {
  it('keeps every field of the record, each read its own object, and checks a changed text again', async () => {
    const { runs, setRecord } = world();
    const a = attempt('a1', { tokens: { input: 10, output: 2, cacheWrite: 4 } });
    await runs.ledger.create(a);
    const first = await runs.ledger.get('a1');
    const again = await runs.ledger.get('a1');
    expect(first).toEqual(a);
    expect(again).toEqual(a);
    expect(again).not.toBe(first);
    const wider = { ...a, issue: { ...a.issue, title: 'kept', repo: { ...a.issue.repo, extra: 1 } } };
    setRecord('a1', wider);
    expect(await runs.ledger.listByRun(a.runId)).toEqual([wider]);
    // The text changed behind the store's back after it was checked: checked again, and refused.
    setRecord('a1', { ...a, tokens: { input: 1 } });
    await expect(runs.ledger.get('a1')).rejects.toMatchObject({ code: 'store_error' });
  });

  it.each([
    ['not an object', []],
    ['no run id', { ...attempt('a1'), runId: 7 }],
    ['an issue without a number', { ...attempt('a1'), issue: { repo: { owner: 'o', name: 'r' } } }],
    ['a repo without a name', { ...attempt('a1'), issue: { repo: { owner: 'o' }, number: 1 } }],
    ['tokens without output', { ...attempt('a1'), tokens: { input: 1 } }],
    [
      'a cache count that is not a number',
      { ...attempt('a1'), tokens: { input: 1, output: 1, cache: null } },
    ],
  ])('is refused as unreadable with %s', async (_, record) => {
    const { runs, setRecord } = world();
    await runs.ledger.create(attempt('a1'));
    setRecord('a1', record);
    await expect(runs.ledger.get('a1')).rejects.toMatchObject({ code: 'store_error' });
  });
});
