// The store test suite both engines run (test/integration/store-sqlite.test.ts and
// store-postgres.test.ts): the same cases and assertions for Store, RunStore and the attempt ledger,
// plus what several replicas on one database need. A "replica" is a second store opened on the same
// database: a second connection on SQLite, a second pool on Postgres.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { AttemptLedger, AttemptRecord } from '../../src/runner/types.ts';
import type { RunStore } from '../../src/store/run-store.ts';
import type { RunnerRegistry } from '../../src/store/runner-tokens.ts';
import type { NewDelivery, NewIntent, Store } from '../../src/store/types.ts';

export type RunStoreWithLedger = RunStore & { ledger: AttemptLedger };

/** One empty database for one test; every open is a new connection to it. */
export interface StoreDatabase {
  openStore(): Promise<Store>;
  openRunStore(): Promise<RunStoreWithLedger>;
  openRunnerRegistry(): Promise<RunnerRegistry>;
}

export interface StoreEngine {
  name: string;
  freshDatabase(): Promise<StoreDatabase>;
}

const repo = { owner: 'o', name: 'r' };
export const attempt = (id: string, over: Partial<AttemptRecord> = {}): AttemptRecord =>
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

export const newRun = (id: string, milestoneNumber = 1) => ({
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

const intentFor = (deliveryId: string, seq = 0): NewIntent => ({
  forge: 'github',
  repo: 'acme/app',
  issueNumber: 1,
  command: { name: 'blitz', dryRun: false },
  sender: 'alice',
  deliveryId,
  seq,
});

export const describeStoreSuite = (engine: StoreEngine): void => {
  const opened: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
  });
  /** A fresh database with helpers that remember what to close after the test. */
  const fresh = async () => {
    const db = await engine.freshDatabase();
    return {
      store: async () => {
        const s = await db.openStore();
        opened.push(s);
        return s;
      },
      runs: async () => {
        const s = await db.openRunStore();
        opened.push(s);
        return s;
      },
      registry: async () => {
        const s = await db.openRunnerRegistry();
        opened.push(s);
        return s;
      },
    };
  };

  describe(`Store (${engine.name})`, () => {
    it('a delivery id is taken once; later sightings are recorded as duplicates', async () => {
      const store = await (await fresh()).store();
      const d = { forge: 'github', deliveryId: 'abc', event: 'issue_comment', outcome: 'accepted' } as const;
      expect(await store.recordDelivery(d)).toEqual({ outcome: 'accepted' });
      expect(await store.recordDelivery(d)).toEqual({ outcome: 'duplicate' });
      expect(await store.recordDelivery({ ...d, forge: 'gitea' })).toEqual({ outcome: 'accepted' });
      const rows = await store.listDeliveries({ forge: 'github' });
      expect(rows.map((r) => r.outcome)).toEqual(['accepted', 'duplicate']);
    });

    it('a rejected sighting does not take the id, so a later genuine delivery is still accepted', async () => {
      const store = await (await fresh()).store();
      const d = { forge: 'gitea', deliveryId: 'x1', event: 'issues' } as const;
      expect(await store.recordDelivery({ ...d, outcome: 'rejected', reason: 'schema' })).toEqual({
        outcome: 'rejected',
      });
      expect(await store.recordDelivery({ ...d, outcome: 'accepted' })).toEqual({ outcome: 'accepted' });
    });

    it('an ignored delivery also takes the id', async () => {
      const store = await (await fresh()).store();
      const d = { forge: 'github', deliveryId: 'i1', event: 'push' } as const;
      expect(await store.recordDelivery({ ...d, outcome: 'ignored', reason: 'not a command' })).toEqual({
        outcome: 'ignored',
      });
      expect(await store.recordDelivery({ ...d, outcome: 'accepted' })).toEqual({ outcome: 'duplicate' });
      const rows = await store.listDeliveries({ deliveryId: 'i1' });
      expect(rows.map((r) => [r.outcome, r.reason])).toEqual([
        ['ignored', 'not a command'],
        ['duplicate', 'delivery id already seen'],
      ]);
    });

    it('intents are idempotent on (forge, delivery, seq) and keep the command as data', async () => {
      const store = await (await fresh()).store();
      const intent = {
        forge: 'github',
        repo: 'o/r',
        issueNumber: 3,
        command: { name: 'blitz', milestone: 'M1' },
        sender: 'alice',
        deliveryId: 'd1',
        seq: 0,
      } as const;
      const first = await store.addIntent(intent);
      const again = await store.addIntent(intent);
      expect(first.created).toBe(true);
      expect(again.created).toBe(false);
      expect(again.intent.id).toBe(first.intent.id);
      const list = await store.listIntents({ repo: 'o/r' });
      expect(list).toHaveLength(1);
      expect(list[0]).toMatchObject({
        command: { name: 'blitz', milestone: 'M1' },
        status: 'queued',
        issueNumber: 3,
      });
    });

    it('keeps an accepted delivery’s events until it is processed, then drops them', async () => {
      const store = await (await fresh()).store();
      const events = [{ kind: 'issue-closed', issueNumber: 3 }];
      await store.recordDelivery({
        forge: 'gitea',
        deliveryId: 'e1',
        event: 'issues',
        outcome: 'accepted',
        events,
      });
      await store.recordDelivery({ forge: 'gitea', deliveryId: 'e2', event: 'push', outcome: 'ignored' });
      expect(await store.listUnprocessedDeliveries()).toEqual([{ forge: 'gitea', deliveryId: 'e1', events }]);
      await store.markDeliveryProcessed('gitea', 'e1');
      expect(await store.listUnprocessedDeliveries()).toEqual([]);
    });

    it('marks a delivery processed and answers ping until closed', async () => {
      const store = await (await fresh()).store();
      await store.recordDelivery({ forge: 'github', deliveryId: 'p', event: 'issues', outcome: 'accepted' });
      await store.markDeliveryProcessed('github', 'p');
      const [row] = await store.listDeliveries({ deliveryId: 'p' });
      expect(row?.processedAt).toBeTypeOf('string');
      expect(await store.ping()).toBe(true);
      await store.close();
      expect(await store.ping()).toBe(false);
    });

    it('two replicas recording the same deliveries at once: each id is accepted exactly once', async () => {
      const db = await fresh();
      const [a, b] = [await db.store(), await db.store()];
      const ids = Array.from({ length: 25 }, (_, i) => `race-${i}`);
      const sighting = (deliveryId: string): NewDelivery => ({
        forge: 'github',
        deliveryId,
        event: 'issue_comment',
        outcome: 'accepted',
        events: [{ n: 1 }],
      });
      const results = await Promise.all(
        ids.flatMap((id) => [a.recordDelivery(sighting(id)), b.recordDelivery(sighting(id))]),
      );
      for (let i = 0; i < ids.length; i++) {
        const pair = [results[2 * i]!.outcome, results[2 * i + 1]!.outcome].sort();
        expect(pair, ids[i]).toEqual(['accepted', 'duplicate']);
      }
      const rows = await a.listDeliveries({ forge: 'github' });
      expect(rows.filter((r) => r.outcome === 'accepted')).toHaveLength(ids.length);
      expect(await b.listUnprocessedDeliveries()).toHaveLength(ids.length);
    });

    it('two replicas adding the same intent at once create it once', async () => {
      const db = await fresh();
      const [a, b] = [await db.store(), await db.store()];
      const results = await Promise.all([a.addIntent(intentFor('d1')), b.addIntent(intentFor('d1'))]);
      expect(results.map((r) => r.created).sort()).toEqual([false, true]);
      expect(results[0]!.intent.id).toBe(results[1]!.intent.id);
      expect(await a.listIntents()).toHaveLength(1);
    });
  });

  describe(`RunStore (${engine.name})`, () => {
    it('refuses a second live run on the same milestone and returns the live one', async () => {
      const s = await (await fresh()).runs();
      expect((await s.createRun(newRun('r1'))).created).toBe(true);
      const again = await s.createRun(newRun('r2'));
      expect(again).toMatchObject({ created: false, live: { id: 'r1' } });
      expect(await s.getRun('r2')).toBeUndefined();
      await s.updateRun('r1', { state: 'done' });
      expect((await s.createRun(newRun('r3'))).created).toBe(true);
      expect((await s.listLiveRuns()).map((r) => r.id)).toEqual(['r3']);
      expect((await s.listRuns({ repo: 'acme/app' })).map((r) => r.id).sort()).toEqual(['r1', 'r3']);
      expect(await s.liveRun('github', 'acme/app', 1)).toMatchObject({ id: 'r3' });
    });

    it('keeps progress JSON and run issues, patching only the given fields', async () => {
      const s = await (await fresh()).runs();
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

    it('keeps a dashboard comment id beyond 2^31 (GitHub comment ids are that large)', async () => {
      const s = await (await fresh()).runs();
      await s.createRun({ ...newRun('r1'), installationId: 3_000_000_001 });
      await s.updateRun('r1', { dashboardCommentId: 2_876_543_210 });
      expect(await s.getRun('r1')).toMatchObject({
        dashboardCommentId: 2_876_543_210,
        installationId: 3_000_000_001,
      });
    });

    it('updating an unknown run is not_found and creates nothing', async () => {
      const s = await (await fresh()).runs();
      await expect(s.updateRun('nope', { state: 'done' })).rejects.toMatchObject({ code: 'not_found' });
      expect(await s.listRuns()).toEqual([]);
    });

    it('claims a queued intent once, even across two connections', async () => {
      const db = await fresh();
      const intake = await db.store();
      const { intent } = await intake.addIntent(intentFor('d1'));
      const [a, b] = [await db.runs(), await db.runs()];
      expect((await a.listQueuedIntents()).map((i) => i.id)).toEqual([intent.id]);
      expect(await a.claimIntent(intent.id, 'started')).toBe(true);
      expect(await b.claimIntent(intent.id, 'started')).toBe(false);
      expect(await b.listQueuedIntents()).toEqual([]);
    });

    it('two replicas claiming the same intents at once: each intent is claimed exactly once', async () => {
      const db = await fresh();
      const intake = await db.store();
      const ids: number[] = [];
      for (let i = 0; i < 15; i++) ids.push((await intake.addIntent(intentFor(`d${i}`))).intent.id);
      const [a, b] = [await db.runs(), await db.runs()];
      const results = await Promise.all(
        ids.flatMap((id) => [a.claimIntent(id, 'by-a'), b.claimIntent(id, 'by-b')]),
      );
      for (let i = 0; i < ids.length; i++) {
        expect([results[2 * i], results[2 * i + 1]].filter(Boolean), `intent ${ids[i]}`).toHaveLength(1);
      }
      expect(await a.listQueuedIntents()).toEqual([]);
    });

    it('two replicas starting the same milestone at once: one run is created, the other finds it', async () => {
      const db = await fresh();
      const [a, b] = [await db.runs(), await db.runs()];
      const [ra, rb] = await Promise.all([a.createRun(newRun('ra')), b.createRun(newRun('rb'))]);
      expect([ra.created, rb.created].sort()).toEqual([false, true]);
      const winner = ra.created ? ra.run : rb.created ? rb.run : undefined;
      const loser = ra.created ? rb : ra;
      expect(loser).toMatchObject({ created: false, live: { id: winner?.id } });
      expect(await a.listLiveRuns()).toHaveLength(1);
    });

    it('withRunLock: a second holder on another replica waits until the first is done', async () => {
      const db = await fresh();
      const [a, b] = [await db.runs(), await db.runs()];
      const events: string[] = [];
      let open = (): void => {};
      const gate = new Promise<void>((r) => {
        open = r;
      });
      const first = a.withRunLock('run-1', async () => {
        events.push('a:in');
        await gate;
        events.push('a:out');
        return 'a';
      });
      while (events.length === 0) await sleep(5);
      const second = b.withRunLock('run-1', async () => {
        events.push('b:in');
        return 'b';
      });
      // Another run is not held up by run-1's holder.
      expect(await b.withRunLock('run-2', async () => 'other')).toBe('other');
      await sleep(150);
      expect(events).toEqual(['a:in']);
      open();
      expect(await Promise.all([first, second])).toEqual(['a', 'b']);
      expect(events).toEqual(['a:in', 'a:out', 'b:in']);
    });

    it('withRunLock: the lock is released when the holder throws, and the error reaches the caller', async () => {
      const db = await fresh();
      const [a, b] = [await db.runs(), await db.runs()];
      await expect(
        a.withRunLock('run-1', async () => {
          throw new Error('reconcile failed');
        }),
      ).rejects.toThrow('reconcile failed');
      expect(await b.withRunLock('run-1', async () => 'next')).toBe('next');
      expect(await a.withRunLock('run-1', async () => 'again')).toBe('again');
    });
  });

  describe(`attempt ledger (${engine.name})`, () => {
    const ledger = async () => (await (await fresh()).runs()).ledger;

    it('totals tokens per issue and run, without charging environment failures', async () => {
      const l = await ledger();
      await l.create(attempt('a', { outcome: 'unsolved' }));
      await l.create(attempt('b', { outcome: 'environment_failure', tokens: { input: 1000, output: 1000 } }));
      await l.create(attempt('c', { issue: { repo, number: 2 }, tokens: { input: 5, output: 5, cache: 3 } }));
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
      const l = await ledger();
      await l.create(attempt('a'));
      await expect(l.create(attempt('a'))).rejects.toMatchObject({ code: 'conflict' });
      await expect(l.update('zz', { nudges: 1 })).rejects.toMatchObject({ code: 'not_found' });
    });

    it('hands out copies: changing a returned record does not change the ledger', async () => {
      const l = await ledger();
      await l.create(attempt('a'));
      const got = (await l.get('a'))!;
      got.nudges = 99;
      expect((await l.get('a'))!.nudges).toBe(0);
    });

    it('an update with an undefined outcome reopens the attempt (a resume)', async () => {
      const l = await ledger();
      await l.create(attempt('a', { outcome: 'stalled', endedAt: '2026-01-01T01:00:00Z' }));
      expect(await l.listOpen()).toEqual([]);
      const r = await l.update('a', { outcome: undefined, endedAt: undefined, nudges: 1 });
      expect(r.outcome).toBeUndefined();
      expect((await l.listOpen()).map((x) => x.id)).toEqual(['a']);
    });

    it('lists by issue and by run', async () => {
      const l = await ledger();
      await l.create(attempt('late', { startedAt: '2026-01-02T00:00:00Z' }));
      await l.create(attempt('early', { startedAt: '2026-01-01T00:00:00Z' }));
      await l.create(attempt('other', { runId: 'run-2', issue: { repo, number: 9 } }));
      expect((await l.listByIssue({ repo, number: 1 })).map((r) => r.id).sort()).toEqual(['early', 'late']);
      expect((await l.listByRun('run-2')).map((r) => r.id)).toEqual(['other']);
    });

    it('survives a new connection to the same database (a bot restart)', async () => {
      const db = await fresh();
      const first = await db.runs();
      await first.ledger.create(attempt('a'));
      await first.ledger.update('a', { pid: 1234, nudges: 2 });
      await first.close();
      const second = await db.runs();
      expect(await second.ledger.get('a')).toMatchObject({ pid: 1234, nudges: 2 });
      expect((await second.ledger.listOpen()).map((r) => r.id)).toEqual(['a']);
    });
  });
  describe(`runner registry (${engine.name})`, () => {
    it('authenticates a created token and nothing after it is revoked', async () => {
      const r = await (await fresh()).registry();
      const { token, info } = await r.createToken('host-a');
      expect(token).toMatch(/^brt_[0-9a-f]{16}_/);
      expect(await r.authenticate(token)).toMatchObject({ id: info.id, name: 'host-a' });
      expect(await r.revokeToken('host-a')).toBe(true);
      expect(await r.authenticate(token)).toBeUndefined();
      expect(await r.revokeToken('host-a')).toBe(false);
      // A new token after revocation is a new identity; the old one stays dead.
      const again = await r.createToken('host-a');
      expect(await r.authenticate(again.token)).toMatchObject({ name: 'host-a' });
      expect(await r.authenticate(token)).toBeUndefined();
    });

    it('refuses a wrong secret for a real id, a malformed token and a second live token per name', async () => {
      const r = await (await fresh()).registry();
      const { token } = await r.createToken('host-a');
      const wrong =
        `${token.slice(0, -4)}AAAA` === token ? `${token.slice(0, -4)}BBBB` : `${token.slice(0, -4)}AAAA`;
      expect(await r.authenticate(wrong)).toBeUndefined();
      expect(await r.authenticate('Bearer nonsense')).toBeUndefined();
      await expect(r.createToken('host-a')).rejects.toMatchObject({ code: 'conflict' });
      await expect(r.createToken('bad name!')).rejects.toMatchObject({ code: 'bad_request' });
      expect((await r.listTokens()).map((t) => t.name)).toEqual(['host-a']);
    });

    it('two replicas creating a token for one name at once: one token, the other is a conflict', async () => {
      const db = await fresh();
      const [a, b] = [await db.registry(), await db.registry()];
      const results = await Promise.allSettled([a.createToken('host-a'), b.createToken('host-a')]);
      expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
      const failed = results.find((r) => r.status === 'rejected');
      expect(failed?.reason).toMatchObject({ code: 'conflict' });
      expect(await a.listTokens()).toHaveLength(1);
    });

    it('keeps the store free of the token text, and an advert is read back checked', async () => {
      const r = await (await fresh()).registry();
      const { token, info } = await r.createToken('host-a');
      expect(JSON.stringify(await r.listTokens())).not.toContain(token.split('_').at(-1));
      const advert = { tools: ['claude'], roles: ['blitz' as const], repos: ['acme/app'], maxSessions: 2 };
      await r.advertise(info.id, advert, '2026-01-01T00:00:00Z');
      expect(await r.authenticate(token)).toMatchObject({ advert, lastSeenAt: '2026-01-01T00:00:00Z' });
    });

    it('raises a receipt sequence, never lowers it', async () => {
      const r = await (await fresh()).registry();
      const base = {
        attemptId: 'a1',
        runId: 'run',
        issueRepo: 'o/r',
        issueNumber: 1,
        jobQueue: 'q',
        jobId: 'j',
        runnerName: 'host-a',
      };
      await r.saveReceipt({ ...base, lastSeq: 5 }, 't');
      await r.saveReceipt({ ...base, lastSeq: 3 }, 't');
      expect((await r.getReceipt('a1'))?.lastSeq).toBe(5);
      await r.saveReceipt({ ...base, lastSeq: 9 }, 't');
      expect((await r.listReceiptsByJob('q', 'j')).map((x) => x.lastSeq)).toEqual([9]);
    });
  });
};
