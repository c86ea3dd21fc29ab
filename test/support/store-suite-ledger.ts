// Store suite, runner part: the attempt ledger and the runner registry. The ledger cases take any
// AttemptLedger factory, so the in-memory ledger (src/runner/ledger.test.ts) runs the same ones.
import { describe, expect, it } from 'vitest';
import { type AttemptLedger, OpenAttemptError } from '../../src/runner/types.ts';
import type { FreshDatabase } from './store-suite.ts';
import { attempt, repo } from './store-suite-fixtures.ts';

/** The cases every AttemptLedger passes; `ledger` makes a new, empty one per test. */
export const describeLedgerCases = (
  engine: string,
  ledger: () => AttemptLedger | Promise<AttemptLedger>,
): void => {
  describe(`attempt ledger (${engine})`, () => {
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

    it('keeps an attempt’s typed failure cause, and clears it with a later end that has none', async () => {
      const l = await ledger();
      await l.create(attempt('a'));
      await l.create(attempt('b', { issue: { repo, number: 2 } }));
      const limit = {
        kind: 'environment' as const,
        cause: 'provider_limit' as const,
        resetAt: '2026-01-01T05:00:00.000Z',
      };
      await l.update('a', { outcome: 'environment_failure', failureCause: limit });
      await l.update('b', { outcome: 'environment_failure', failureCause: { kind: 'missing_tool' } });
      expect((await l.get('a'))!.failureCause).toEqual(limit);
      expect((await l.listByRun('run-1')).map((r) => r.failureCause)).toEqual([
        limit,
        { kind: 'missing_tool' },
      ]);
      await l.update('a', { outcome: 'solved', failureCause: undefined });
      expect((await l.get('a'))!.failureCause).toBeUndefined();
    });

    it('refuses a second open attempt of one issue in one run, and only that', async () => {
      const l = await ledger();
      await l.create(attempt('a'));
      const second = l.create(attempt('b', { startedAt: '2026-01-01T00:01:00Z' }));
      await expect(second).rejects.toBeInstanceOf(OpenAttemptError);
      await expect(second).rejects.toMatchObject({ code: 'conflict', openAttempt: 'a' });
      expect(await l.get('b')).toBeUndefined();
      // An ended attempt of the issue, the same issue in another run and another issue are no bar.
      await l.create(attempt('ended', { outcome: 'unsolved' }));
      await l.create(attempt('other-run', { runId: 'run-2' }));
      await l.create(attempt('other-issue', { issue: { repo, number: 2 } }));
      expect((await l.listOpen()).map((r) => r.id).sort()).toEqual(['a', 'other-issue', 'other-run']);
      // Once it ends, the issue takes its next attempt.
      await l.update('a', { outcome: 'unsolved', endedAt: '2026-01-01T00:02:00Z' });
      await l.create(attempt('b', { startedAt: '2026-01-01T00:03:00Z' }));
      expect((await l.listOpen()).map((r) => r.id).sort()).toEqual(['b', 'other-issue', 'other-run']);
    });

    it('refuses to reopen an attempt (a resume) while another of its issue is open, changing nothing', async () => {
      const l = await ledger();
      await l.create(attempt('old', { outcome: 'stalled', endedAt: '2026-01-01T00:01:00Z' }));
      await l.create(attempt('new', { startedAt: '2026-01-01T00:02:00Z' }));
      const reopen = l.update('old', { outcome: undefined, endedAt: undefined, nudges: 1 });
      await expect(reopen).rejects.toMatchObject({ code: 'conflict', openAttempt: 'new' });
      expect(await l.get('old')).toMatchObject({ outcome: 'stalled', nudges: 0 });
      // An update that leaves the open attempt open is no reopening.
      expect(await l.update('new', { nudges: 2 })).toMatchObject({ nudges: 2 });
    });

    it('lists by issue and by run', async () => {
      const l = await ledger();
      await l.create(attempt('late', { startedAt: '2026-01-02T00:00:00Z' }));
      // One open attempt per issue: the earlier one has ended.
      await l.create(attempt('early', { startedAt: '2026-01-01T00:00:00Z', outcome: 'unsolved' }));
      await l.create(attempt('other', { runId: 'run-2', issue: { repo, number: 9 } }));
      expect((await l.listByIssue({ repo, number: 1 })).map((r) => r.id).sort()).toEqual(['early', 'late']);
      expect((await l.listByRun('run-2')).map((r) => r.id)).toEqual(['other']);
    });
  });
};

export const describeRunnerCases = (engine: string, fresh: () => Promise<FreshDatabase>): void => {
  describeLedgerCases(engine, async () => (await (await fresh()).runs()).ledger);

  describe(`attempt ledger across connections (${engine})`, () => {
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

    it('two replicas starting an attempt of one issue at once: one is stored, the other refused', async () => {
      const db = await fresh();
      const [a, b] = [await db.runs(), await db.runs()];
      for (let round = 0; round < 5; round++) {
        const ids = [`r${round}-a`, `r${round}-b`];
        const results = await Promise.allSettled([
          a.ledger.create(attempt(ids[0]!, { issue: { repo, number: 10 + round } })),
          b.ledger.create(attempt(ids[1]!, { issue: { repo, number: 10 + round } })),
        ]);
        expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
        const refused = results.find((r) => r.status === 'rejected')?.reason;
        expect(refused).toBeInstanceOf(OpenAttemptError);
        const stored = await a.ledger.listByIssue({ repo, number: 10 + round });
        expect(stored).toHaveLength(1);
        expect(refused).toMatchObject({ openAttempt: stored[0]!.id });
      }
    });

    it('keeps the whole FINAL REPORT and the last stall fingerprint across a new connection', async () => {
      const db = await fresh();
      const first = await db.runs();
      await first.ledger.create(attempt('a'));
      const finalReport = {
        pr: 'none — branch pushed',
        tests: 'npm test — 12 passed',
        review: 'one nit, fixed',
        status: 'done — pushed',
        uncertainties: ['Chose 204 over 200'],
        outOfScopeBugs: ['login page 500s on empty password'],
      };
      const stallFingerprint = { logSize: 812, head: 'abc123', remote: null };
      await first.ledger.update('a', { finalReport, stallFingerprint });
      await first.close();
      const second = await db.runs();
      expect(await second.ledger.get('a')).toMatchObject({ finalReport, stallFingerprint });
      // Clearing the fingerprint (a relaunch) is kept too.
      await second.ledger.update('a', { stallFingerprint: undefined });
      expect((await second.ledger.get('a'))!.stallFingerprint).toBeUndefined();
    });
  });

  describe(`runner registry (${engine})`, () => {
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
      // brt_<id>_<secret>: the secret is base64url and may itself contain `_`, so take all after the id.
      const secret = /^brt_[0-9a-f]+_(.+)$/.exec(token)?.[1];
      expect(secret?.length).toBeGreaterThanOrEqual(20);
      expect(JSON.stringify(await r.listTokens())).not.toContain(secret);
      const advert = { tools: ['claude'], roles: ['blitz' as const], repos: ['acme/app'], maxSessions: 2 };
      await r.advertise(info.id, advert, '2026-01-01T00:00:00Z');
      expect(await r.authenticate(token)).toMatchObject({ advert, lastSeenAt: '2026-01-01T00:00:00Z' });
    });

    it('marks a runner unheard of since before the cutoff lost once, across two replicas, until it is heard again', async () => {
      const db = await fresh();
      const [a, b] = [await db.registry(), await db.registry()];
      const far = await a.createToken('host-far');
      const near = await a.createToken('host-near');
      await a.createToken('host-never');
      await a.seen(far.info.id, '2026-01-01T00:00:00.000Z', -180_000);
      await a.seen(near.info.id, '2026-01-01T00:05:00.000Z');
      const cutoff = '2026-01-01T00:03:00.000Z';
      const at = '2026-01-01T00:05:00.000Z';
      const [x, y] = await Promise.all([a.markLost(cutoff, at), b.markLost(cutoff, at)]);
      // One replica got it, the other nothing; a runner never heard from (no last-seen time) is not lost.
      expect([...x, ...y].map((t) => [t.name, t.lostAt, t.clockSkewMs])).toEqual([
        ['host-far', at, -180_000],
      ]);
      expect(await a.markLost(cutoff, at)).toEqual([]);
      expect((await a.listTokens()).find((t) => t.name === 'host-far')?.lostAt).toBe(at);
      // Heard again: live, its skew kept when the request sent none.
      await b.seen(far.info.id, '2026-01-01T00:06:00.000Z');
      const back = (await a.listTokens()).find((t) => t.name === 'host-far');
      expect(back).toMatchObject({ lastSeenAt: '2026-01-01T00:06:00.000Z', clockSkewMs: -180_000 });
      expect(back?.lostAt).toBeUndefined();
      expect(await a.authenticate(far.token)).toMatchObject({ name: 'host-far' });
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

/**
 * What a database from before migration 090 may hold: two open attempts of issue 1 in run-1 (a job
 * delivered again started a second worker) and one open attempt of issue 2. Each row is the
 * attempts table's columns, in order.
 */
export const attemptsBefore090 = (): unknown[][] =>
  [
    attempt('older', { startedAt: '2026-01-01T00:00:00.000Z' }),
    attempt('newer', { startedAt: '2026-01-01T00:05:00.000Z' }),
    attempt('alone', { issue: { repo, number: 2 }, startedAt: '2026-01-01T00:01:00.000Z' }),
  ].map((r) => [r.id, r.runId, 'o/r', r.issue.number, 1, r.startedAt, JSON.stringify(r)]);

/** After migration 090 over `attemptsBefore090`: the older attempt superseded, the others open, one per issue. */
export const expectOlderSuperseded = async (ledger: AttemptLedger): Promise<void> => {
  expect((await ledger.listOpen()).map((r) => r.id).sort()).toEqual(['alone', 'newer']);
  const older = await ledger.get('older');
  expect(older).toMatchObject({
    outcome: 'cancelled',
    endedAt: '2026-01-01T00:05:00.000Z',
    failureSummary: expect.stringMatching(/^Superseded: a later attempt of this issue was open/),
    tokens: { input: 10, output: 1 },
  });
  // The record still reads whole, and the index now holds: a third open attempt is refused.
  expect(older?.job).toEqual({});
  await expect(
    ledger.create(attempt('third', { startedAt: '2026-01-01T00:09:00.000Z' })),
  ).rejects.toMatchObject({ openAttempt: 'newer' });
};
