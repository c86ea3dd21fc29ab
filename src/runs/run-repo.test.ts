// The one read of a run's forge and repo config, blitz and plan alike: a config that does not parse
// and a forge that refuses the bot are each a held pass with the hard blocker; the config's errors go
// once on the trigger issue; a config that parses hands the read on.

import { describe, expect, it } from 'vitest';
import { newRun } from '../../test/support/store-suite-fixtures.ts';
import { AppError } from '../errors.ts';
import type { Forge } from '../forges/types.ts';
import { silentLogger } from '../observability/logger.ts';
import { blockReasonOf } from '../plan/block-cause.ts';
import { openSqliteRunStore } from '../store/sqlite-run-store.ts';
import { type HeldPass, loadRunRepo } from './run-repo.ts';

const setup = async (file: () => Promise<string>, notify: { type: string; name?: string }[] = []) => {
  const store = openSqliteRunStore(':memory:');
  await store.createRun({ ...newRun('r1'), state: 'running', triggerIssue: 7 });
  const run = (await store.getRun('r1'))!;
  const comments: string[] = [];
  const forge = {
    kind: 'github',
    getDefaultBranch: async () => 'main',
    getFile: file,
    createComment: async (_ref: unknown, body: string) => {
      comments.push(body);
      return { id: comments.length };
    },
  } as unknown as Forge;
  const deps = {
    store,
    forges: async () => forge,
    logger: silentLogger(),
    config: { roster: [], notify },
  } as unknown as Parameters<typeof loadRunRepo>[0];
  return { run, deps, comments };
};

/** The words a held pass's blocker is said in. */
const reasonOf = (got: unknown): string => {
  const cause = (got as HeldPass).snap.hardBlocker;
  if (!cause) throw new Error('expected a held pass');
  return blockReasonOf(cause);
};

describe('loadRunRepo', () => {
  it.each(['blitz', 'plan'] as const)(
    'holds a %s pass on a config that does not parse, said once',
    async (kind) => {
      const { run, deps, comments } = await setup(async () => 'maxSesions: 2\n');
      const rest = async () => 'read on';
      for (let tick = 0; tick < 3; tick++) {
        const got = await loadRunRepo(deps, run, kind, rest);
        expect(got).toMatchObject({
          held: true,
          snap: { kind, hardBlocker: { kind: 'config_invalid' } },
        });
      }
      expect(comments).toHaveLength(1);
      expect(comments[0]).toContain('maxSesions');
      const reason = reasonOf(await loadRunRepo(deps, run, kind, rest));
      // The reason names the error itself and where all of them went.
      expect(reason).toContain('maxSesions');
      expect(reason).toContain('all on #7');
    },
  );

  it('a run without a trigger issue has the error in its reason and nothing posted', async () => {
    const { run, deps, comments } = await setup(async () => 'maxSesions: 2\n');
    const got = await loadRunRepo(deps, { ...run, triggerIssue: undefined }, 'blitz', async () => 'read on');
    const reason = reasonOf(got);
    expect(reason).toContain('maxSesions');
    expect(reason).not.toContain('#');
    expect(comments).toEqual([]);
  });

  it('holds a pass refused for an App permission on that permission, not on the forge refusing the bot', async () => {
    const { run, deps } = await setup(async () => 'maxSessions: 2\n');
    const issuesRead = { name: 'issues', level: 'read' } as const;
    // The milestone's issues read without `issues:read`: GitHub's 403, as the adapter types it.
    const rest = async (): Promise<string> => {
      throw new AppError('forbidden', 'the app lacks issues:read on acme/app', { permission: issuesRead });
    };
    const got = await loadRunRepo(deps, run, 'blitz', rest);
    expect(got).toMatchObject({ held: true });
    expect((got as { snap: { hardBlocker?: unknown } }).snap.hardBlocker).toEqual({
      kind: 'missing_permission',
      permission: issuesRead,
    });
  });

  it('holds a pass the forge refused, and hands a config that parses on', async () => {
    const refused = await setup(async () => {
      throw new AppError('forbidden', 'Resource not accessible by integration');
    });
    expect(await loadRunRepo(refused.deps, refused.run, 'plan', async () => 'read on')).toMatchObject({
      held: true,
      snap: { hardBlocker: { kind: 'forge_refused', refusal: 'access' } },
    });
    const ok = await setup(async () => 'maxSessions: 2\n');
    const got = await loadRunRepo(ok.deps, ok.run, 'blitz', async (r) => r.defaultBranch);
    expect(got).toBe('main');
    expect(ok.comments).toEqual([]);
  });

  it("keeps the repository's pick of the operator's notify targets on the run, and forgets it when dropped", async () => {
    let file = 'notify: [phone]\n';
    const { run, deps } = await setup(
      async () => file,
      [{ type: 'homeAssistant', name: 'phone' }, { type: 'slack' }],
    );
    expect(await loadRunRepo(deps, run, 'blitz', async () => 'read on')).toBe('read on');
    expect((await deps.store.getRun(run.id))!.progress.notifyTo).toEqual(['phone']);
    file = 'maxSessions: 2\n';
    const again = (await deps.store.getRun(run.id))!;
    await loadRunRepo(deps, again, 'blitz', async () => 'read on');
    expect((await deps.store.getRun(run.id))!.progress.notifyTo).toBeUndefined();
  });

  it('holds the pass on a notify target the operator did not configure, naming it and the ones there are', async () => {
    const { run, deps, comments } = await setup(async () => 'notify: [slack, pager]\n', [{ type: 'slack' }]);
    const got = await loadRunRepo(deps, run, 'blitz', async () => 'read on');
    expect(got).toMatchObject({ held: true, snap: { hardBlocker: { kind: 'config_invalid' } } });
    expect(reasonOf(got)).toContain('pager');
    expect(comments).toHaveLength(1);
    expect(comments[0]).toContain('notify[1]');
    expect(comments[0]).toContain('there are: slack');
    expect((await deps.store.getRun(run.id))!.progress.notifyTo).toBeUndefined();
  });
});
