// A Gitea comment is taken once when its live webhook and the recovery after a restart (intake/recover.ts
// hands the receiver the same comment as delivery `comment:<id>`) race: the live path claims the
// comment's mark before it takes the comment, in the store's deduplicating write, so whichever path
// claims first answers and the other does nothing. Here the live delivery is held mid-processing (after
// its claim, at its first forge call) while the recovered one comes in, which is the window a
// look-then-write mark left open.
import { describe, expect, it } from 'vitest';
import { normalizeGitea } from '../../src/intake/gitea/normalize.ts';
import { commentKey } from '../../src/intake/process-events.ts';
import { resumeUnprocessed } from '../../src/intake/receive.ts';
import { createHarness, GITEA_SECRET } from '../support/intake-harness.ts';
import { fixture, signedGiteaRequest } from '../support/signing.ts';

const commentId = (p: Record<string, unknown>) => (p.comment as { id: number }).id;

describe('a Gitea comment taken live and by recovery at once', () => {
  it('is answered once, whichever path claims it first', async () => {
    let entered: () => void = () => {};
    const holding = new Promise<void>((r) => (entered = r));
    let release: () => void = () => {};
    const held = new Promise<void>((r) => (release = r));
    let first = true;
    const h = createHarness({
      roles: { alice: 'write' },
      commentMarks: ['gitea'],
      onForge: async () => {
        if (!first) return;
        first = false;
        entered();
        await held;
      },
    });
    const payload = fixture('gitea', 'issue_comment.created');
    const live = await h.post(
      '/api/gitea/webhooks',
      signedGiteaRequest({ secret: GITEA_SECRET, eventType: 'issue_comment', payload, deliveryId: 'live-1' }),
    );
    expect(live.status).toBe(202);
    // The live delivery is mid-processing: it looked at (or claimed) the mark and waits for its forge.
    await holding;
    const recovered = await h.receive({
      forge: 'gitea',
      deliveryId: commentKey(commentId(payload)),
      event: 'issue_comment',
      payload: fixture('gitea', 'issue_comment.created'),
      normalize: normalizeGitea,
    });
    release();
    await h.queue.idle();
    expect(h.gitea.calls.filter((c) => c.method === 'reactToComment')).toHaveLength(1);
    expect(recovered.outcome).toBe('duplicate');
    expect(await h.store.listIntents({ forge: 'gitea' })).toHaveLength(1);
  });

  it('a live delivery retried after it claimed the comment still takes it', async () => {
    let failOnce = true;
    const h = createHarness({
      roles: { alice: 'write' },
      commentMarks: ['gitea'],
      onForge: async () => {
        if (!failOnce) return;
        failOnce = false;
        throw new Error('forge unreachable');
      },
    });
    const payload = fixture('gitea', 'issue_comment.created');
    await h.post(
      '/api/gitea/webhooks',
      signedGiteaRequest({ secret: GITEA_SECRET, eventType: 'issue_comment', payload, deliveryId: 'live-2' }),
    );
    await h.queue.idle();
    expect(h.gitea.calls.filter((c) => c.method === 'reactToComment')).toHaveLength(0);
    // The retry of the same delivery (what the delivery retry tick does) finds its own claim.
    expect((await h.store.listUnprocessedDeliveries()).map((d) => d.deliveryId)).toEqual(['live-2']);
    // An hour on: past the failure's backoff and the lease.
    const later = { now: () => new Date(Date.now() + 3_600_000) };
    expect(await resumeUnprocessed({ ...h.intake, clock: later })).toBe(1);
    await h.queue.idle();
    expect(h.gitea.calls.filter((c) => c.method === 'reactToComment')).toHaveLength(1);
    expect(await h.store.listIntents({ forge: 'gitea' })).toHaveLength(1);
  });
});
