// A plan run whose repo config stops parsing: it is blocked and says so once on its trigger issue,
// however often the cron looks at it again (a blocked run is still reconciled every tick), and goes on
// by itself at the first reconcile after a push that fixes the config.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { newRun } from '../../test/support/store-suite-fixtures.ts';
import type { Forge } from '../forges/types.ts';
import { silentLogger } from '../observability/logger.ts';
import { openSqliteRunStore } from '../store/sqlite-run-store.ts';
import { type PlanRunPorts, reconcilePlanRun } from './reconcile-plan-run.ts';

describe('a plan run on a repo config that does not parse', () => {
  it('is blocked, the errors are posted once across reconciles, and a fixed config lifts it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'plan-config-'));
    try {
      const store = openSqliteRunStore(':memory:');
      await store.createRun({ ...newRun('p1'), kind: 'plan', state: 'running', triggerIssue: 7 });
      const comments: { number: number; body: string }[] = [];
      let configText = 'maxSesions: 2\n';
      const notices: string[] = [];
      const filed: string[] = [];
      const closed: number[] = [];
      const forge = {
        kind: 'github',
        getDefaultBranch: async () => 'main',
        getFile: async () => configText,
        loadMilestone: async () => ({
          milestone: { number: 1, title: 'M1', description: '' },
          issues: [],
          externalBlockers: [],
        }),
        createIssue: async (_repo: unknown, i: { title: string }) => {
          filed.push(i.title);
          return { ref: { number: 99 } };
        },
        getIssue: async (ref: { number: number }) => ({
          ref,
          state: closed.includes(ref.number) ? 'closed' : 'open',
        }),
        closeIssue: async (ref: { number: number }) => void closed.push(ref.number),
        createComment: async (ref: { number: number }, body: string) => {
          comments.push({ number: ref.number, body });
          return { id: comments.length };
        },
      } as unknown as Forge;
      const deps = {
        store,
        forges: async () => forge,
        ledger: { listByRun: async () => [] },
        logger: silentLogger(),
        config: { modelNotesPath: join(dir, 'models.md'), runner: { retries: 1 }, roster: [] },
        clock: { now: () => new Date('2026-12-02T12:00:00Z') },
        notifiers: [
          {
            target: 'test',
            events: new Set(['blocked']),
            notify: async (n: { event: string }) => {
              notices.push(n.event);
              return { ok: true };
            },
          },
        ],
        machine: () => ({ limit: 1, contended: false }),
        probe: async () => undefined,
        cloneUrl: async () => 'https://example.invalid/acme/app.git',
      } as unknown as PlanRunPorts;
      const hooks = { trusted: async () => true, dashboardBody: () => undefined };

      for (let tick = 0; tick < 3; tick++) await reconcilePlanRun(deps, hooks, 'p1');

      expect((await store.getRun('p1'))?.state).toBe('blocked');
      expect(comments).toHaveLength(1);
      expect(comments[0]).toMatchObject({ number: 7, body: expect.stringContaining('maxSesions') });
      expect(notices).toEqual(['blocked']);
      expect(filed).toEqual(['plan-blitz: M1 is BLOCKED']);
      expect((await store.getRun('p1'))?.progress.reason).toMatch(/does not parse/);

      configText = 'maxSessions: 2\n';
      await reconcilePlanRun(deps, hooks, 'p1');
      const after = await store.getRun('p1');
      // It goes on: with nothing in the milestone, on to its end.
      expect(after?.state).toBe('done');
      expect(after?.progress.hardBlocker).toBeUndefined();
      expect(closed).toEqual([99]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a write refused for an App permission blocks it, said once; the grant lets it go on', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'plan-permission-'));
    try {
      const store = openSqliteRunStore(':memory:');
      // An earlier pass's merge was refused without contents:write (kept through the run writer).
      const refusedWrite = {
        permission: { name: 'contents', level: 'write' } as const,
        since: '2026-12-02T11:59:00Z',
        repo: 'acme/app',
      };
      await store.createRun({
        ...newRun('p2'),
        kind: 'plan',
        state: 'running',
        triggerIssue: 7,
        progress: { refusedWrite },
      });
      let held: Record<string, string> = { contents: 'read', issues: 'write' };
      const notices: string[] = [];
      const forge = {
        kind: 'github',
        getDefaultBranch: async () => 'main',
        getFile: async () => 'maxSessions: 2\n',
        loadMilestone: async () => ({
          milestone: { number: 1, title: 'M1', description: '' },
          issues: [],
          externalBlockers: [],
        }),
        heldPermissions: async () => held,
        installationSettingsPage: async () => 'https://github.example/settings/installations/77',
        createIssue: async () => ({ ref: { number: 99 } }),
        getIssue: async (ref: { number: number }) => ({ ref, state: 'open' }),
        closeIssue: async () => undefined,
        createComment: async () => ({ id: 1 }),
      } as unknown as Forge;
      const deps = {
        store,
        forges: async () => forge,
        ledger: { listByRun: async () => [] },
        logger: silentLogger(),
        config: { modelNotesPath: join(dir, 'models.md'), runner: { retries: 1 }, roster: [] },
        clock: { now: () => new Date('2026-12-02T12:00:00Z') },
        notifiers: [
          {
            target: 'test',
            events: new Set(['blocked']),
            notify: async (n: { event: string; sentence: string }) => {
              notices.push(n.sentence);
              return { ok: true };
            },
          },
        ],
        machine: () => ({ limit: 1, contended: false }),
        probe: async () => undefined,
        cloneUrl: async () => 'https://example.invalid/acme/app.git',
      } as unknown as PlanRunPorts;
      const hooks = { trusted: async () => true, dashboardBody: () => undefined };

      for (let tick = 0; tick < 3; tick++) await reconcilePlanRun(deps, hooks, 'p2');
      const blocked = await store.getRun('p2');
      expect(blocked?.state).toBe('blocked');
      expect(blocked?.progress.hardBlocker?.cause).toMatchObject({
        kind: 'missing_permission',
        permission: { name: 'contents', level: 'write' },
      });
      expect(notices).toHaveLength(1);
      expect(notices[0]).toContain('`contents:write`');
      expect(notices[0]).toContain('https://github.example/settings/installations/77');

      held = { contents: 'write', issues: 'write' };
      await reconcilePlanRun(deps, hooks, 'p2');
      const after = await store.getRun('p2');
      expect(after?.state).not.toBe('blocked');
      expect(after?.progress.hardBlocker).toBeUndefined();
      expect(after?.progress.refusedWrite).toBeUndefined();
      expect(notices).toHaveLength(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
