// Store suite, intake part: deliveries (dedupe, replicas racing) and intents.
import { describe, expect, it } from 'vitest';
import type { NewDelivery } from '../../src/store/types.ts';
import type { FreshDatabase } from './store-suite.ts';
import { intentFor } from './store-suite-fixtures.ts';

export const describeIntakeCases = (engine: string, fresh: () => Promise<FreshDatabase>): void => {
  describe(`Store (${engine})`, () => {
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
      // The new intent answered without a read back is the row as stored, field for field.
      expect(first.intent).toStrictEqual(again.intent);
      const list = await store.listIntents({ repo: 'o/r' });
      expect(list).toHaveLength(1);
      expect(list[0]).toStrictEqual(first.intent);
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

    it('many sightings at once on one replica (one batch): each id taken once, repeats and rejects recorded', async () => {
      const store = await (await fresh()).store();
      const base = { forge: 'github', event: 'issue_comment' } as const;
      const sightings: NewDelivery[] = [
        ...Array.from({ length: 30 }, (_, i) => ({
          ...base,
          deliveryId: `b-${i}`,
          outcome: 'accepted' as const,
          events: [{ n: i }],
        })),
        { ...base, deliveryId: 'b-3', outcome: 'accepted', events: [{ n: 3 }] },
        { ...base, deliveryId: 'b-4', outcome: 'ignored', reason: 'not a command' },
        { ...base, deliveryId: 'b-5', outcome: 'rejected', reason: 'schema' },
      ];
      const results = await Promise.all(sightings.map((d) => store.recordDelivery(d)));
      expect(results.slice(0, 30).every((r) => r.outcome === 'accepted')).toBe(true);
      expect(results.slice(30).map((r) => r.outcome)).toEqual(['duplicate', 'duplicate', 'rejected']);
      const rows = await store.listDeliveries({ forge: 'github' });
      expect(rows).toHaveLength(33);
      expect(
        rows
          .filter((r) => r.deliveryId === 'b-3')
          .map((r) => r.outcome)
          .sort(),
      ).toEqual(['accepted', 'duplicate']);
      expect(await store.listUnprocessedDeliveries()).toHaveLength(30);
    });

    it('two replicas adding the same intent at once create it once', async () => {
      const db = await fresh();
      const [a, b] = [await db.store(), await db.store()];
      const results = await Promise.all([a.addIntent(intentFor('d1')), b.addIntent(intentFor('d1'))]);
      expect(results.map((r) => r.created).sort()).toEqual([false, true]);
      expect(results[0]!.intent.id).toBe(results[1]!.intent.id);
      expect(await a.listIntents()).toHaveLength(1);
    });

    it('a delivery leased by a live replica is taken by another only after its lease ran out', async () => {
      const db = await fresh();
      const a = await db.store();
      const b = await db.store();
      await a.recordDelivery({
        forge: 'github',
        deliveryId: 'l1',
        event: 'issues',
        outcome: 'accepted',
        events: [],
      });
      const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
      expect(await a.leaseDelivery('github', 'l1', 'A', t(30), t(0))).toBe(true);
      // B tries while A's lease is live: refused; A renews its own.
      expect(await b.leaseDelivery('github', 'l1', 'B', t(40), t(10))).toBe(false);
      expect(await a.leaseDelivery('github', 'l1', 'A', t(50), t(20))).toBe(true);
      // A stops renewing; once the lease is past, B takes it, and A can no longer renew.
      expect(await b.leaseDelivery('github', 'l1', 'B', t(59), t(51))).toBe(true);
      expect(await a.leaseDelivery('github', 'l1', 'A', t(58), t(52))).toBe(false);
      await b.markDeliveryProcessed('github', 'l1');
      expect(await a.leaseDelivery('github', 'l1', 'A', t(99), t(98))).toBe(false);
      expect(await a.leaseDelivery('github', 'unknown', 'A', t(99), t(98))).toBe(false);
    });

    it('a delivery recorded with a lease is held by that holder from its first write; a duplicate takes none', async () => {
      const db = await fresh();
      const a = await db.store();
      const b = await db.store();
      const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
      const sighting = { forge: 'gitea' as const, deliveryId: 'r1', event: 'issues', events: [] };
      expect(
        await a.recordDelivery({ ...sighting, outcome: 'accepted', lease: { holder: 'A', until: t(30) } }),
      ).toEqual({ outcome: 'accepted' });
      // The doubled delivery on B: a duplicate, and it does not move A's lease.
      expect(
        await b.recordDelivery({ ...sighting, outcome: 'accepted', lease: { holder: 'B', until: t(90) } }),
      ).toEqual({ outcome: 'duplicate' });
      expect(await b.leaseDelivery('gitea', 'r1', 'B', t(40), t(10))).toBe(false);
      expect(await a.leaseDelivery('gitea', 'r1', 'A', t(50), t(20))).toBe(true);
      expect(await b.leaseDelivery('gitea', 'r1', 'B', t(70), t(51))).toBe(true);
    });
  });
};
