// A write refused for an App permission (issue 37), kept on the run, stands as the planner's view until
// the credential the bot holds carries the permission; where the forge cannot say what it holds, until a
// token's lifetime has passed.
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.ts';
import { refusalUnknownMs, refusedWriteViewOf } from './permission-view.ts';

const repo = { owner: 'acme', name: 'app' };
const page = 'https://github.com/settings/installations/77';
const contentsWrite = { name: 'contents', level: 'write' } as const;
const since = '2026-12-07T10:00:00.000Z';
const at = (ms: number) => new Date(Date.parse(since) + ms);

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
