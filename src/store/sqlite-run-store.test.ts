import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/support/git.ts';
import { openSqliteRunStore } from './sqlite-run-store.ts';
import { openSqliteStore } from './sqlite-store.ts';

const newRun = (id: string, milestoneNumber = 1) => ({
  id,
  forge: 'github' as const,
  repo: 'acme/app',
  kind: 'blitz' as const,
  milestoneNumber,
  milestoneTitle: 'M1',
  slug: 'm1',
  options: { maxSessions: 2 },
  state: 'planning' as const,
  integrationBranch: 'blitz/m1',
});

describe('sqlite run store', () => {
  it('refuses a second live run on the same milestone and returns the live one', async () => {
    const s = openSqliteRunStore(':memory:');
    expect((await s.createRun(newRun('r1'))).created).toBe(true);
    const again = await s.createRun(newRun('r2'));
    expect(again).toMatchObject({ created: false, live: { id: 'r1' } });
    expect(await s.getRun('r2')).toBeUndefined();
    await s.updateRun('r1', { state: 'done' });
    expect((await s.createRun(newRun('r3'))).created).toBe(true);
    expect((await s.listLiveRuns()).map((r) => r.id)).toEqual(['r3']);
  });

  it('keeps progress JSON and run issues, patching only the given fields', async () => {
    const s = openSqliteRunStore(':memory:');
    await s.createRun(newRun('r1'));
    await s.updateRun('r1', {
      progress: { build: { status: 'passed', covers: ['acme/app#1'], failures: 0 } },
    });
    expect((await s.getRun('r1'))!.progress.build?.status).toBe('passed');
    await s.upsertRunIssue('r1', 'acme/app', 3, { state: 'pr_open', prNumber: 12 });
    await s.upsertRunIssue('r1', 'acme/app', 3, { reviewPosted: true });
    const [issue] = await s.listRunIssues('r1');
    expect(issue).toMatchObject({ number: 3, state: 'pr_open', prNumber: 12, reviewPosted: true });
    await s.upsertRunIssue('r1', 'acme/app', 3, { prNumber: null });
    expect((await s.listRunIssues('r1'))[0]!.prNumber).toBeUndefined();
    await expect(s.upsertRunIssue('r1', 'acme/app', 3, { bogus: 1 } as never)).rejects.toMatchObject({
      code: 'bad_request',
    });
  });

  it('claims a queued intent once, even across two connections to one file', async () => {
    const file = join(tempDir(), 'blitz.db');
    const intake = openSqliteStore(file);
    const { intent } = await intake.addIntent({
      forge: 'github',
      repo: 'acme/app',
      issueNumber: 1,
      command: { name: 'blitz', dryRun: false },
      sender: 'alice',
      deliveryId: 'd1',
      seq: 0,
    });
    const a = openSqliteRunStore(file);
    const b = openSqliteRunStore(file);
    expect((await a.listQueuedIntents()).map((i) => i.id)).toEqual([intent.id]);
    expect(await a.claimIntent(intent.id, 'started')).toBe(true);
    expect(await b.claimIntent(intent.id, 'started')).toBe(false);
    expect(await b.listQueuedIntents()).toEqual([]);
    await Promise.all([a.close(), b.close(), intake.close()]);
  });
});
