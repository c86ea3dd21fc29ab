// A write refused for an App permission (issue 37) is kept on the run by the pass and stands, as the
// planner's view, until the credential the bot holds carries the permission; where the forge cannot
// say what it holds, until a token's lifetime has passed. Any other failure keeps nothing.
import { describe, expect, it } from 'vitest';
import { newRun } from '../../test/support/store-suite-fixtures.ts';
import { AppError } from '../errors.ts';
import { openSqliteRunStore } from '../store/sqlite-run-store.ts';
import { keepRefusedWrite, refusalUnknownMs, refusedWriteViewOf } from './missing-permission.ts';

const repo = { owner: 'acme', name: 'app' };
const page = 'https://github.com/settings/installations/77';
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

describe('refusedWriteViewOf', () => {
  const kept = { permission: contentsWrite, since };

  it('stands, with the settings page, while the credential lacks the permission; lifts once it carries it', async () => {
    let held: Record<string, string> = { contents: 'read', issues: 'write' };
    const forge = {
      heldPermissions: async () => held,
      installationSettingsPage: async () => page,
    };
    expect(await refusedWriteViewOf(forge, repo, kept, at(0))).toEqual({ permission: contentsWrite, page });
    held = { contents: 'write' };
    expect(await refusedWriteViewOf(forge, repo, kept, at(0))).toBeUndefined();
    held = { contents: 'admin' };
    expect(await refusedWriteViewOf(forge, repo, kept, at(0))).toBeUndefined();
  });

  it('stands while the forge cannot say what it holds (the token is not minted)', async () => {
    const forge = {
      heldPermissions: async (): Promise<Record<string, string>> => {
        throw new AppError('forge_unavailable', 'down');
      },
    };
    expect(await refusedWriteViewOf(forge, repo, kept, at(10 * refusalUnknownMs))).toEqual({
      permission: contentsWrite,
    });
  });

  it("without a way to ask, stands for a token's lifetime, then lets the write be tried again", async () => {
    expect(await refusedWriteViewOf({}, repo, kept, at(refusalUnknownMs - 1))).toEqual({
      permission: contentsWrite,
    });
    expect(await refusedWriteViewOf({}, repo, kept, at(refusalUnknownMs))).toBeUndefined();
    expect(await refusedWriteViewOf({}, repo, undefined, at(0))).toBeUndefined();
  });
});
