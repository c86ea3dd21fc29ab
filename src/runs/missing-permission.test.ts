// A write refused for an App permission (issue 37) is kept on the run by the pass, once; any other
// failure keeps nothing. (How long it stands: forges/permission-view.test.ts.)
import { describe, expect, it } from 'vitest';
import { newRun } from '../../test/support/store-suite-fixtures.ts';
import { AppError } from '../errors.ts';
import { openSqliteRunStore } from '../store/sqlite-run-store.ts';
import { keepRefusedWrite } from './missing-permission.ts';

const contentsWrite = { name: 'contents', level: 'write' } as const;
const refused = (permission?: { name: string; level: 'read' | 'write' }) =>
  new AppError('forbidden', 'the app lacks contents:write on acme/app', permission ? { permission } : {});
const since = '2026-12-07T10:00:00.000Z';
const at = (ms: number) => new Date(Date.parse(since) + ms);

describe('keepRefusedWrite', () => {
  it('keeps a refusal for a permission once, and nothing for any other failure', async () => {
    const store = openSqliteRunStore(':memory:');
    await store.createRun({ ...newRun('r1'), state: 'running' });
    let now = at(0);
    const deps = { store, clock: { now: () => now } };
    // Tried: a 403 naming no permission (Gitea's), a 404 and a plain error: nothing kept.
    await keepRefusedWrite(deps, 'r1', refused());
    await keepRefusedWrite(deps, 'r1', new AppError('not_found', 'gone', { permission: contentsWrite }));
    await keepRefusedWrite(deps, 'r1', new Error('forbidden'));
    expect((await store.getRun('r1'))!.progress.refusedWrite).toBeUndefined();
    await keepRefusedWrite(deps, 'r1', refused(contentsWrite));
    const first = (await store.getRun('r1'))!;
    expect(first.progress.refusedWrite).toEqual({ permission: contentsWrite, since });
    // The same refusal again keeps its first time and writes nothing.
    now = at(60_000);
    await keepRefusedWrite(deps, 'r1', refused(contentsWrite));
    const again = (await store.getRun('r1'))!;
    expect(again.progress.refusedWrite?.since).toBe(since);
    expect(again.version).toBe(first.version);
    // The repository the adapter named is kept (a fleet works in several); a name that is none is not.
    const on = (repo: string) =>
      new AppError('forbidden', 'x', { permission: contentsWrite, repo, action: 'merge PR #4' });
    await keepRefusedWrite(deps, 'r1', on('acme/lib'));
    expect((await store.getRun('r1'))!.progress.refusedWrite?.repo).toBe('acme/lib');
    await keepRefusedWrite(deps, 'r1', on('../x y'));
    expect((await store.getRun('r1'))!.progress.refusedWrite).toEqual({
      permission: contentsWrite,
      since: now.toISOString(),
    });
  });
});
